/**
 * Keys the schema does not declare (a secret field a plugin upgrade renamed, `apikey:` typed by
 * hand) stay in the document and in the owner's value, but their values never leave the process:
 * describe, diffs, refusals and logs name the path, never the value.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { diffSection } from '../src/history-diff.ts'
import { createRedactor } from '../src/redact.ts'
import { undeclaredPaths } from '../src/undeclared.ts'
import { boot, type Harness } from './harness.ts'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const OLD_KEY = 'sk-old-4f1d2c'
const TYPED_KEY = 'sk-typed-9e0a77'

/** After the upgrade: the secret is `token`, and `apiKey` is no longer declared. */
const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  token: Schema.string().role('secret'),
  safeSearch: Schema.object({ level: Schema.union(['moderate', 'strict']).default('moderate') }),
  mirrors: Schema.array(Schema.object({ url: Schema.string().required(), token: Schema.string().role('secret') })).default([]),
})

const allText = (value: unknown) => JSON.stringify(value)

describe('undeclaredPaths: walked as the redactor walks', () => {
  it('lists keys an object does not declare, at any depth, and nothing below them', () => {
    const schema = Schema.object({ a: Schema.string(), nested: Schema.object({ b: Schema.number() }) })
    expect(undeclaredPaths(schema, { a: 'x', old: { deep: 1 }, nested: { b: 1, c: 2 } })).toEqual([['old'], ['nested', 'c']])
    expect(undeclaredPaths(schema, { a: 'x' })).toEqual([])
    expect(undeclaredPaths(schema, undefined)).toEqual([])
    expect(undeclaredPaths(schema, null)).toEqual([])
  })

  it('a dict declares every key and walks its values; lists walk their items; a tuple item past its length is undeclared', () => {
    const schema = Schema.object({
      providers: Schema.dict(Schema.object({ baseUrl: Schema.string() })),
      mirrors: Schema.array(Schema.object({ url: Schema.string() })),
      hours: Schema.tuple([Schema.number(), Schema.number()]),
    })
    const value = { providers: { any: { baseUrl: 'u', apikey: 'k' } }, mirrors: [{ url: 'a' }, { url: 'b', tokn: 't' }], hours: [1, 2, 3, 4] }
    expect(undeclaredPaths(schema, value)).toEqual([
      ['providers', 'any', 'apikey'],
      ['mirrors', '1', 'tokn'],
      ['hours', '2'],
      ['hours', '3'],
    ])
  })

  it('a key is undeclared only when no branch of a union, nor any part of an intersection, declares it there', () => {
    const union = Schema.union([
      Schema.object({ kind: Schema.const('a').required(), x: Schema.object({ p: Schema.number() }) }),
      Schema.object({ kind: Schema.const('b').required(), x: Schema.object({ q: Schema.number() }), y: Schema.string() }),
    ])
    // x is declared by both; x.p by one, x.q by the other; x.r and z by none.
    expect(undeclaredPaths(union, { kind: 'a', x: { p: 1, q: 2, r: 3 }, y: 'kept', z: 'gone' })).toEqual([['x', 'r'], ['z']])
    const intersect = Schema.intersect([Schema.object({ a: Schema.number() }), Schema.object({ b: Schema.number() })])
    expect(undeclaredPaths(intersect, { a: 1, b: 2, c: 3 })).toEqual([['c']])
  })

  it('a branch that wants a scalar where the value holds a container does not vouch for what is inside it', () => {
    const union = Schema.union([
      Schema.object({ kind: Schema.const('a').required(), opts: Schema.object({ p: Schema.number() }) }),
      Schema.object({ kind: Schema.const('b').required(), opts: Schema.string() }),
    ])
    expect(undeclaredPaths(union, { kind: 'a', opts: { p: 1, apikey: 'k' } })).toEqual([['opts', 'apikey']])
    // Declared by one branch as a scalar, by the other not at all: the keys inside are nobody's.
    const other = Schema.union([Schema.object({ kind: Schema.const('a').required() }), Schema.object({ kind: Schema.const('b').required(), x: Schema.string() })])
    expect(undeclaredPaths(other, { kind: 'a', x: { secret: 'k', list: [1] } })).toEqual([['x', 'secret'], ['x', 'list']])
  })

  it('a branch that leaves a key undeclared whole still lets another declare what is inside it', () => {
    const union = Schema.union([Schema.object({ kind: Schema.const('a').required() }), Schema.object({ kind: Schema.const('b').required(), x: Schema.object({ p: Schema.number() }) })])
    expect(undeclaredPaths(union, { kind: 'a', x: { p: 1, r: 2 } })).toEqual([['x', 'r']])
  })

  it('walks transforms through their input schema, and lazy schemas', () => {
    const tree: Schema = Schema.object({ name: Schema.string(), children: Schema.array(Schema.lazy(() => tree)) })
    expect(undeclaredPaths(tree, { name: 'a', children: [{ name: 'b', children: [{ nick: 'c' }] }] })).toEqual([['children', '0', 'children', '0', 'nick']])
    const trimmed = Schema.object({ box: Schema.transform(Schema.object({ w: Schema.number() }), (box) => box) })
    expect(undeclaredPaths(trimmed, { box: { w: 1, h: 2 } })).toEqual([['box', 'h']])
  })

  it('treats any, is and function schemas as declaring everything below them (opaque)', () => {
    const schema = Schema.object({ extra: Schema.any(), when: Schema.is(Date), run: Schema.function() })
    expect(undeclaredPaths(schema, { extra: { anything: { at: 'all' } }, when: new Date(0), run: {} })).toEqual([])
  })

  it('lists what a value of another shape than the schema\'s holds (the schema declares none of it), but not inside a malformed section', () => {
    const schema = Schema.object({ name: Schema.string(), list: Schema.array(Schema.number()), when: Schema.number() })
    expect(undeclaredPaths(schema, { name: { apiKey: 'x' }, list: { a: 1 }, when: ['k', 'l'] })).toEqual([['name', 'apiKey'], ['list', 'a'], ['when', '0'], ['when', '1']])
    expect(undeclaredPaths(schema, ['not', 'a', 'section'])).toEqual([])
    // A bitset takes a list of flag names; a constant object is declared whole.
    expect(undeclaredPaths(Schema.object({ flags: Schema.bitset({ read: 1 }), fixed: Schema.const({ a: 1 } as never) }), { flags: ['read'], fixed: { a: 1 } })).toEqual([])
    // A field that may be null (the example plugins' `container`) still walks its object.
    const nullable = Schema.object({ box: Schema.union([Schema.object({ w: Schema.number() }), Schema.const(null)]) })
    expect(undeclaredPaths(nullable, { box: { w: 1, apikey: 'k' } })).toEqual([['box', 'apikey']])
  })
})

describe('describe and undeclared keys', () => {
  it('keeps a renamed secret field out of every view, and lists its path for the page to remove', async () => {
    h = await boot({ document: { search: { engine: 'google', apiKey: OLD_KEY, token: 'sk-new' } } })
    const { value: search } = await h.mount((ctx) => ctx.settings.register('search', Search))
    // The owner still sees what is stored: only the wire boundary withholds it.
    expect(search.get()).toMatchObject({ apiKey: OLD_KEY })
    const [view] = h.provider.describe({ redactSecrets: true })
    expect(allText(view)).not.toContain(OLD_KEY)
    expect(allText(view)).not.toContain('sk-new')
    expect(view!.undeclared).toEqual([{ path: ['apiKey'], layer: 'global' }])
    expect(view!.value).toEqual({ engine: 'google', safeSearch: { level: 'moderate' }, mirrors: [] })
    expect(view!.user).toEqual({ engine: 'google' })
    expect(view!.problem).toBeUndefined()
    // The path is a mutate path: unsetting it removes the leftover.
    await h.provider.mutate('search', view!.undeclared!.map(({ path }) => ({ op: 'unset' as const, path })))
    expect(h.provider.document().search).toEqual({ engine: 'google', token: 'sk-new' })
    expect(h.provider.describe({ redactSecrets: true })[0]!.undeclared).toEqual([])
  })

  it('lists and withholds keys typed by hand in nested objects and list items, in every layer', async () => {
    h = await boot({
      document: {
        search: { safeSearch: { level: 'strict', apikey: TYPED_KEY } },
        scopes: { 'preset/coder': { search: { mirrors: [{ url: 'https://m', tokn: TYPED_KEY }], engine: 'bing', apikey: TYPED_KEY } } },
      },
    })
    await h.mount((ctx) => ctx.settings.register('search', Search, { base: { engine: 'google', apiKey: OLD_KEY } as never }))
    await h.mountInScope('preset/coder', (ctx) => ctx.settings.register('search', Search, { base: { legacy: OLD_KEY } as never }))
    const [global] = h.provider.describe({ redactSecrets: true })
    expect(global!.undeclared).toEqual([
      { path: ['apiKey'], layer: 'base' },
      { path: ['safeSearch', 'apikey'], layer: 'global' },
    ])
    const [scoped] = h.provider.describe({ redactSecrets: true, scope: 'preset/coder' })
    expect(scoped!.undeclared).toEqual([
      { path: ['legacy'], layer: 'base' },
      { path: ['safeSearch', 'apikey'], layer: 'global' },
      { path: ['mirrors', '0', 'tokn'], layer: 'scope' },
      { path: ['apikey'], layer: 'scope' },
    ])
    for (const view of [global, scoped]) {
      expect(allText(view)).not.toContain(OLD_KEY)
      expect(allText(view)).not.toContain(TYPED_KEY)
    }
    expect(scoped!.user).toEqual({ mirrors: [{ url: 'https://m' }], engine: 'bing' })
    expect(scoped!.inherited).toEqual({ engine: 'bing', safeSearch: { level: 'strict' }, mirrors: [] })
    // The in-process view (no redaction) keeps the values and lists the same paths.
    const [verbatim] = h.provider.describe({ scope: 'preset/coder' })
    expect(allText(verbatim)).toContain(TYPED_KEY)
    expect(verbatim!.undeclared).toEqual(scoped!.undeclared)
  })

  it('lists the undeclared keys of a section not in effect, and shows none of its values', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('search', Search))
    await h.provider.edit({ search: { engine: 'altavista', apiKey: OLD_KEY } })
    const [view] = h.provider.describe({ redactSecrets: true })
    expect(view!.problem).toMatchObject({ path: ['engine'] })
    expect(view!.undeclared).toEqual([{ path: ['apiKey'], layer: 'global' }])
    expect(allText(view)).not.toContain(OLD_KEY)
  })

  it('scrubs undeclared values from an owner check\'s refusal and from the log', async () => {
    h = await boot()
    await h.mount((ctx) =>
      ctx.settings.register('search', Search, {
        validate: (value) => {
          if (value.engine === 'google') throw new Error(`google needs a token, got ${JSON.stringify(value)}`)
        },
      }),
    )
    await h.provider.update('search', { apiKey: OLD_KEY })
    const refused = await h.provider.update('search', { engine: 'google' }).then(() => undefined, (error: Error) => error)
    expect(refused?.message).toContain('google needs a token')
    expect(refused?.message).toContain('[redacted]')
    expect(allText({ message: refused?.message, cause: String((refused as { cause?: unknown }).cause) })).not.toContain(OLD_KEY)
    await h.provider.edit({ search: { engine: 'google', apiKey: OLD_KEY } })
    const [view] = h.provider.describe({ redactSecrets: true })
    expect(view!.problem?.message).toContain('[redacted]')
    expect(allText(view)).not.toContain(OLD_KEY)
    expect(h.logs.map((line) => line.text).join('\n')).not.toContain(OLD_KEY)
  })

  it('scrubs undeclared values from a failed watcher\'s and listener\'s log line', async () => {
    h = await boot({ document: { search: { apiKey: OLD_KEY } } })
    const { value: search } = await h.mount((ctx) => ctx.settings.register('search', Search))
    search.watch((next) => {
      throw new Error(`watcher saw ${JSON.stringify(next)}`)
    })
    h.root.on('settings/updated', (_ns, next) => {
      throw new Error(`listener saw ${JSON.stringify(next)}`)
    })
    await h.provider.update('search', { engine: 'google' })
    await h.logged((line) => line.text.includes('watcher for'))
    const text = h.logs.map((line) => line.text).join('\n')
    expect(text).toContain('listener')
    expect(text).toContain('[redacted]')
    expect(text).not.toContain(OLD_KEY)
  })
})

describe('diffs and undeclared keys', () => {
  const redactor = createRedactor(Search)

  it('says an undeclared field was set, changed or unset, without its value', () => {
    const before = { engine: 'bing', apiKey: OLD_KEY, old: { nested: 'n1' } }
    const after = { engine: 'google', apikey: TYPED_KEY, old: { nested: 'n2' } }
    const changes = diffSection(redactor, before, after)
    expect(changes).toEqual([
      { path: ['apikey'], change: 'set', undeclared: true },
      { path: ['apiKey'], change: 'unset', undeclared: true },
      { path: ['engine'], change: 'changed', before: 'bing', after: 'google' },
      { path: ['old'], change: 'changed', undeclared: true },
    ])
    expect(allText(changes)).not.toMatch(/sk-|n1|n2/)
    expect(diffSection(redactor, { apiKey: OLD_KEY, engine: 'bing' }, { apiKey: OLD_KEY, engine: 'google' })).toEqual([
      { path: ['engine'], change: 'changed', before: 'bing', after: 'google' },
    ])
  })

  it('compares a section that appears, disappears or is left empty field by field, never as a whole value', () => {
    const section = { engine: 'google', apiKey: OLD_KEY, mirrors: [{ url: 'u', tokn: TYPED_KEY }] }
    const expected = [
      { path: ['apiKey'], change: 'set', undeclared: true },
      { path: ['engine'], change: 'set', after: 'google' },
      { path: ['mirrors'], change: 'set', after: [{ url: 'u' }] },
      { path: ['mirrors', '0', 'tokn'], change: 'set', undeclared: true },
    ]
    expect(diffSection(redactor, undefined, section)).toEqual(expected)
    expect(diffSection(redactor, null, section)).toEqual(expected)
    expect(diffSection(redactor, section, null).map((change) => change.change)).toEqual(['unset', 'unset', 'unset', 'unset'])
    expect(diffSection(redactor, null, undefined)).toEqual([])
    expect(allText(diffSection(redactor, section, undefined))).not.toMatch(/sk-/)
  })

  it('provider.diff withholds undeclared values of global and scoped sections', async () => {
    h = await boot({ document: { search: { apiKey: OLD_KEY } } })
    await h.mount((ctx) => ctx.settings.register('search', Search))
    const before = h.provider.document()
    await h.provider.edit({ search: { engine: 'google' }, scopes: { 'preset/x': { search: { apikey: TYPED_KEY } } } })
    const diff = h.provider.diff(before)
    expect(diff).toEqual([
      { ns: 'search', fields: [
        { path: ['apiKey'], change: 'unset', undeclared: true },
        { path: ['engine'], change: 'set', after: 'google' },
      ] },
      { ns: 'search', scope: 'preset/x', fields: [{ path: ['apikey'], change: 'set', undeclared: true }] },
    ])
    expect(allText(diff)).not.toMatch(/sk-/)
  })
})
