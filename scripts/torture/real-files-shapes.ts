/**
 * Real-files stages about what users write by hand: the YAML shapes the issue
 * lists (a first key with an anchor, a tag or an explicit `? key`, a flow-map
 * root with a trailing comma, a comment on a section's key line, a comment
 * indented deeper than the fields) edited by writes; a section left empty
 * (`web-search:` or `~`) at boot; and a key the schema does not declare,
 * holding a secret, typed by hand.
 */
import type { StageContext } from './real-files-context.ts'
import type { FilesHost } from './real-files-host.ts'
import { lostBytes, readRegular } from './real-files-judge.ts'
import { parseSettingsText } from './yaml.ts'

/** A hand-written document holding only `web-search` (engine bing, limit 10), and what no edit may drop. */
interface Shape {
  name: string
  text: string
  /** What sits on the section's key line (a comment, an anchor, a tag, `? key`): it must survive every edit, replace({}) included. */
  keep: string[]
}

const SHAPES: readonly Shape[] = [
  { name: 'a first key with an anchor', text: '# the first key carries an anchor\n&first web-search:\n  engine: bing   # mine\n\n  limit: 10\n', keep: ['&first'] },
  { name: 'a first key with a tag', text: '# the first key carries a tag\n!!str web-search:\n  engine: bing   # mine\n\n  limit: 10\n', keep: ['!!str'] },
  { name: 'an explicit first key', text: '# the first key is explicit\n? web-search\n:\n  engine: bing   # mine\n\n  limit: 10\n', keep: ['? web-search'] },
  {
    name: 'a flow-map root with a trailing comma',
    text: '# a flow map root, written by hand\n{\n  web-search: { engine: bing, limit: 10 },   # one line per section\n}\n',
    keep: ['# one line per section'],
  },
  { name: 'a comment on the key line', text: 'web-search:   # my search settings\n  engine: bing\n\n  limit: 10\n', keep: ['# my search settings'] },
  // The deeper comment sits on a line of its own: every edit but replace({}) must keep that line.
  { name: 'a comment deeper than the fields', text: 'web-search:\n  engine: bing\n      # a note indented deeper than the fields\n  limit: 10\n', keep: [] },
]

/** An edit a write makes, the lines it may change, and what the section must read after it. */
interface Edit {
  name: string
  run(c: StageContext, host: FilesHost): Promise<boolean>
  /** Lines of the shape this edit may change. */
  mayChange(line: string): boolean
  /** Whether the data after the edit is what it should be. */
  holds(data: Record<string, any>): boolean
}

const landed = (result: { kind: string }) => result.kind === 'value'
const mentionsLimit = (line: string) => /limit/.test(line)

const EDITS: readonly Edit[] = [
  {
    name: 'an update of one field',
    run: async (c, host) => landed(await c.mutate(host, 'web-search', [{ op: 'set', path: ['limit'], value: 23 }])),
    mayChange: mentionsLimit,
    holds: (data) => data['web-search']?.limit === 23 && data['web-search']?.engine === 'bing',
  },
  {
    name: 'an added section',
    run: async (c, host) => landed(await c.mutate(host, 'assistant', [{ op: 'set', path: ['model'], value: 'large' }])),
    // A flow map takes the new entry before its closing brace.
    mayChange: (line) => line === '}',
    holds: (data) => data.assistant?.model === 'large' && data['web-search']?.limit === 10,
  },
  {
    name: 'replace({})',
    run: async (c, host) => landed(await c.call(host, 'replace', ['web-search', {}, null])),
    // Everything inside the section may go (fields, their comments, blank lines); its key's fragments in `keep` and the comments above it stay.
    mayChange: (line) => !line.startsWith('#'),
    holds: (data) => data['web-search'] == null || Object.keys(data['web-search']).length === 0,
  },
  {
    name: 'an unset',
    run: async (c, host) => landed(await c.mutate(host, 'web-search', [{ op: 'unset', path: ['limit'] }])),
    mayChange: mentionsLimit,
    holds: (data) => data['web-search']?.limit === undefined && data['web-search']?.engine === 'bing',
  },
]

/** Each hand-written shape, edited by each kind of write: every byte outside the change must stay. */
export async function handShapes(c: StageContext): Promise<void> {
  const { deploy, file } = await c.deployment(SHAPES[0]!.text)
  const host = await c.host({ file, home: deploy })
  const pairs = c.variation === 0 ? SHAPES.flatMap((shape) => EDITS.map((edit) => [shape, edit] as const)) : [[c.pick(SHAPES), EDITS[c.variation % EDITS.length]!] as const]
  if (c.upright(host)) {
    for (const [shape, edit] of pairs) {
      await c.save(file, shape.text)
      // Past the watcher's debounce, as a user saving and then using the page would be.
      await new Promise((resolve) => setTimeout(resolve, 150))
      if (!(await edit.run(c, host))) {
        if (!host.alive()) break
        c.wrong(`${edit.name} of ${shape.name} was refused`)
        continue
      }
      const after = readRegular(file) ?? ''
      const lost = lostBytes(shape.text, after, edit.mayChange, shape.keep)
      c.counts.lostBytes += lost
      if (lost) c.note(`${edit.name} of ${shape.name} lost ${lost} bytes: ${JSON.stringify(after.slice(0, 200))}`)
      const data = parseSettingsText(after)
      if (!data || !edit.holds(data)) c.wrong(`${edit.name} of ${shape.name} left ${JSON.stringify(data)}`)
    }
  }
  await c.stop(host)
}

/** Empty sections as users leave them: every field commented out, or `~`. */
const EMPTY_SECTIONS: readonly { name: string; text: string }[] = [
  { name: 'web-search: with nothing under it', text: '# every field commented out\nweb-search:\n#  engine: bing\n#  limit: 10\nassistant:\n  model: small\n' },
  { name: 'web-search: ~', text: 'web-search: ~\nassistant:\n  model: small   # mine\n' },
  { name: 'web-search: with only indented comments', text: 'web-search:\n  # engine: bing\n  # limit: 10\n' },
]

/** A section with nothing in it at boot: both example plugins start, and a write fills it in, every other byte kept. */
export async function emptySection(c: StageContext): Promise<void> {
  const shape = c.pick(EMPTY_SECTIONS)
  c.variant = shape.name
  const { deploy, file } = await c.deployment(shape.text)
  const host = await c.host({ file, home: deploy })
  if (c.upright(host) && (await c.setLimit(host, 14))) {
    const after = readRegular(file) ?? ''
    const lost = lostBytes(shape.text, after, (line) => line.startsWith('web-search:'))
    c.counts.lostBytes += lost
    if (lost) c.note(`filling in ${shape.name} lost ${lost} bytes: ${JSON.stringify(after.slice(0, 200))}`)
    if (parseSettingsText(after)?.['web-search']?.limit !== 14) c.wrong(`the write into ${shape.name} is not in the document`)
  }
  await c.stop(host)
}

/** A secret under a key the schema does not declare (a renamed field, a typo): it must never leave the process. */
export async function undeclaredKey(c: StageContext): Promise<void> {
  const key = c.pick(['apikey', 'token', 'apiKeyOld'])
  c.variant = key
  const secret = c.tally.sentinels.make('undeclared')
  const { deploy, file } = await c.deployment(`web-search:\n  engine: bing\n  ${key}: ${secret}   # typed by hand\n  limit: 10\n`)
  const host = await c.host({ file, home: deploy })
  if (c.upright(host)) {
    await c.call(host, 'describe', [])
    await c.setLimit(host, 16)
    await c.mutate(host, 'web-search', [{ op: 'set', path: ['engine'], value: 'google' }])
    const history = await c.call(host, 'history', [])
    const versions = history.kind === 'value' ? (history.value as { versions: { id: string }[] }).versions : []
    for (const version of versions.slice(0, 2)) await c.call(host, 'compare', [version.id])
  }
  await c.stop(host)
}
