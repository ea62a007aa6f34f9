import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { DocumentEdit } from '../src/codec/diff.ts'
import { parseSettings } from '../src/codec/parse.ts'
import { renderDocument, renderJson, renderYaml } from '../src/codec/serialize.ts'

// The in-place editor can be told to fail, so the fresh-render fallback is
// exercised on purpose; by default it is the real editor.
const editor = vi.hoisted(() => ({ mode: 'real' as 'real' | 'throw' | 'unchanged' | 'unparsable' | 'fixed', calls: 0, fixed: '' }))

vi.mock('../src/codec/yaml-edit.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/codec/yaml-edit.ts')>()
  class YamlEditor extends actual.YamlEditor {
    private readonly source: string
    constructor(...args: ConstructorParameters<typeof actual.YamlEditor>) {
      super(...args)
      this.source = args[0]
    }
    override apply(edits: readonly DocumentEdit[]): string {
      editor.calls++
      if (editor.mode === 'throw') throw new Error('overlapping YAML edits')
      if (editor.mode === 'unchanged') return this.source
      if (editor.mode === 'unparsable') return this.source + 'broken: [unclosed\n'
      if (editor.mode === 'fixed') return editor.fixed
      return super.apply(edits)
    }
  }
  return { ...actual, YamlEditor }
})

afterEach(() => {
  editor.mode = 'real'
  editor.calls = 0
})

type Doc = Record<string, any>

const FIXTURES = ['basic.yaml', 'four-space.yaml', 'zero-indent.yaml', 'flow.yaml', 'anchors.yaml', 'scopes.yaml', 'prompts.yaml'] as const

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')
}

function reparse(text: string): Record<string, unknown> {
  return parseSettings(text, 'yaml', 'settings.yaml').data
}

/** A plain copy (through JSON, so an anchor and its aliases do not share one object). */
function plainCopy(data: unknown): Doc {
  return JSON.parse(JSON.stringify(data)) as Doc
}

describe('renderJson', () => {
  it('writes 2-space indentation and a trailing newline', () => {
    expect(renderJson({ chat: { model: 'o3', stop: ['a', 'b'] } })).toBe(
      '{\n  "chat": {\n    "model": "o3",\n    "stop": [\n      "a",\n      "b"\n    ]\n  }\n}\n',
    )
  })

  it('keeps keys in the order the document holds them', () => {
    expect(renderJson({ zeta: 1, alpha: { y: 1, x: 2 } })).toBe('{\n  "zeta": 1,\n  "alpha": {\n    "y": 1,\n    "x": 2\n  }\n}\n')
  })

  it('writes an empty document as {}', () => {
    expect(renderJson({})).toBe('{}\n')
  })
})

describe('renderDocument', () => {
  const jsonText = '{\n    "web-search": {"engine": "bing", "safe": true},\n    "chat": {"model": "gpt-4o"}\n}'

  it('re-serializes a JSON document with 2-space indentation, keys in their existing order', () => {
    const parsed = parseSettings(jsonText, 'json', 'settings.json')
    const next = plainCopy(parsed.data)
    next['web-search'].engine = 'google'
    next.chat.temperature = 0.2
    next.scopes = { 'preset/coder': { chat: { model: 'o3' } } }
    const rendered = renderDocument('json', jsonText, parsed, next)
    expect(rendered).toStrictEqual({
      text: `{
  "web-search": {
    "engine": "google",
    "safe": true
  },
  "chat": {
    "model": "gpt-4o",
    "temperature": 0.2
  },
  "scopes": {
    "preset/coder": {
      "chat": {
        "model": "o3"
      }
    }
  }
}
`,
      preserved: true,
      // The next write starts from the data this text was made from: it reads back as that.
      parsed: { data: next },
    })
    expect(parseSettings(rendered.text, 'json', 'settings.json').data).toStrictEqual(next)
  })

  it('writes a fresh JSON document holding only the written section', () => {
    const parsed = parseSettings('', 'json', 'settings.json')
    expect(renderDocument('json', '', parsed, { chat: { model: 'o3' } })).toStrictEqual({
      text: '{\n  "chat": {\n    "model": "o3"\n  }\n}\n',
      preserved: true,
      parsed: { data: { chat: { model: 'o3' } } },
    })
  })

  it('edits a YAML document in place', () => {
    const text = '# mine\nchat:\n  model: gpt-4o   # default\n'
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const rendered = renderDocument('yaml', text, parsed, { chat: { model: 'o3' } })
    expect(rendered).toMatchObject({ text: '# mine\nchat:\n  model: o3   # default\n', preserved: true })
    // What the check read comes back, with where each entry now stands, so the next write need not parse the same bytes again.
    expect(rendered.parsed?.data).toStrictEqual({ chat: { model: 'o3' } })
    expect(rendered.parsed?.segments).toEqual([{ key: 'chat', start: 0, end: rendered.text.length }])
  })
})

describe('renderYaml: editing only the entries a write changes', () => {
  const text = '# settings\n\nalpha:\n  n: 1   # one\n\n# the second\nbeta:\n  list: [a, b]\ngamma:\n  s: "x"\n'

  it('cuts the document at its top-level keys and edits only the changed piece, byte for byte', () => {
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    expect(parsed.segments?.map((segment) => [segment.key, text.slice(segment.start, segment.end)])).toEqual([
      ['alpha', '# settings\n\nalpha:\n  n: 1   # one\n\n# the second\n'],
      ['beta', 'beta:\n  list: [a, b]\n'],
      ['gamma', 'gamma:\n  s: "x"\n'],
    ])
    const next = { ...parsed.data, beta: { list: ['a', 'b', 'c'] } }
    const rendered = renderYaml(text, parsed, next)
    expect(rendered.text).toBe(text.replace('list: [a, b]', 'list: [a, b, c]'))
    // No whole-document parse was made: the node tree is left to be parsed when a write needs it.
    expect(rendered.parsed?.yaml).toBeUndefined()
    expect(rendered.parsed?.data).toBe(next)
  })

  it("keeps the pieces' places right across writes that change their lengths", () => {
    let current = text
    let parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const steps = [
      { ...parsed.data, alpha: { n: 123456 } },
      { alpha: { n: 123456 }, beta: { list: ['a', 'b'] }, gamma: { s: 'a much longer string than before' } },
      { alpha: { n: 1 }, beta: { list: [] }, gamma: { s: 'a much longer string than before' } },
    ]
    for (const next of steps) {
      const rendered = renderYaml(current, parsed, next)
      expect(reparse(rendered.text)).toStrictEqual(next)
      current = rendered.text
      parsed = rendered.parsed!
      // The places handed on are where a fresh parse of the text puts them.
      expect(parsed.segments).toEqual(parseSettings(current, 'yaml', 'settings.yaml').segments)
    }
    expect(current).toBe('# settings\n\nalpha:\n  n: 1   # one\n\n# the second\nbeta:\n  list: []\ngamma:\n  s: "a much longer string than before"\n')
  })

  it('adds a top-level key to the last entry alone, and edits the whole document when a write removes one', () => {
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const added = renderYaml(text, parsed, { ...parsed.data, delta: { on: true } })
    expect(reparse(added.text)).toStrictEqual({ ...parsed.data, delta: { on: true } })
    // The entries before the last are not read: the text keeps them, the parse hands on where each stands.
    expect(added.parsed && Object.hasOwn(added.parsed, 'yaml')).toBe(false)
    expect(added.parsed?.segments?.map((segment) => segment.key)).toStrictEqual([...Object.keys(parsed.data), 'delta'])
    const { gamma: _gone, ...rest } = parsed.data
    const removed = renderYaml(text, parsed, rest)
    expect(reparse(removed.text)).toStrictEqual(rest)
    expect(removed.parsed?.yaml).toBeDefined()
  })

  it('refuses an edited piece that reads right alone but runs on into the next entry', () => {
    const before = 'gamma:\n  block: x\n\ndelta:\n  n: 1\n'
    const parsed = parseSettings(before, 'yaml', 'settings.yaml')
    const next = { gamma: 'line one line two', delta: { n: 1 } }
    // Alone this piece reads as gamma's next value; followed by `delta:` it no longer parses.
    editor.mode = 'fixed'
    editor.fixed = 'gamma:\n#>  block: |\n    line one\n    line two\n\n'
    expect(parseSettings(editor.fixed, 'yaml', 'settings.yaml').data).toStrictEqual({ gamma: 'line one line two' })
    expect(() => parseSettings(editor.fixed + 'delta:\n  n: 1\n', 'yaml', 'settings.yaml')).toThrow()
    const rendered = renderYaml(before, parsed, next)
    expect(reparse(rendered.text)).toStrictEqual(next)
  })

  it('never cuts a document whose parts are linked (anchors, aliases, merge keys, tags) or that holds document markers', () => {
    for (const linked of [
      'a: &x {n: 1}\nb: *x\n',
      'base: {n: 1}\nb:\n  <<: {n: 2}\n',
      'a: !!str 1\nb: 2\n',
      '---\na: 1\nb: 2\n',
      '{a: 1, b: 2}\n',
      '? a\n: 1\nb: 2\n',
    ]) {
      expect(parseSettings(linked, 'yaml', 'settings.yaml').segments, linked).toBeUndefined()
    }
  })
})

describe('renderYaml: verification and fallback', () => {
  const text = '# header\nchat:\n  model: gpt-4o\n'
  const next = { chat: { model: 'o3', note: 'n'.repeat(130) } }

  it('returns the very same text when nothing changed, without editing', () => {
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    expect(renderYaml(text, parsed, plainCopy(parsed.data))).toStrictEqual({ text, preserved: true })
    expect(editor.calls).toBe(0)
  })

  it('renders afresh, unfolded, when the in-place editor throws', () => {
    editor.mode = 'throw'
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const rendered = renderYaml(text, parsed, next)
    expect(rendered).toStrictEqual({ text: `chat:\n  model: o3\n  note: ${'n'.repeat(130)}\n`, preserved: false })
    expect(reparse(rendered.text)).toStrictEqual(next)
  })

  it('renders afresh when the edited text does not parse', () => {
    editor.mode = 'unparsable'
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const rendered = renderYaml(text, parsed, next)
    expect(rendered.preserved).toBe(false)
    expect(reparse(rendered.text)).toStrictEqual(next)
  })

  it('retries with corrections a bounded number of times, then renders afresh', () => {
    editor.mode = 'unchanged'
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const rendered = renderYaml(text, parsed, next)
    expect(rendered.preserved).toBe(false)
    expect(reparse(rendered.text)).toStrictEqual(next)
    expect(editor.calls).toBeGreaterThan(1)
    // At most four rounds on the changed piece, then four on the whole document.
    expect(editor.calls).toBeLessThanOrEqual(8)
  })

  it('holds next after a real fallback (an edit of a literal block scalar)', () => {
    const original = fixture('prompts.yaml')
    const parsed = parseSettings(original, 'yaml', 'prompts.yaml')
    const edited = plainCopy(parsed.data)
    edited.chat.system = 'Be brief.'
    expect(reparse(renderYaml(original, parsed, edited).text)).toStrictEqual(edited)
  })

  it('holds next for a section holding a literal key named <<, even when it renders afresh', () => {
    const source = 'sec:\n  name: x\n'
    const parsed = parseSettings(source, 'yaml', 'settings.yaml')
    const withKey = { sec: { name: 'x', '<<': { a: 1 } } }
    expect(reparse(renderYaml(source, parsed, withKey).text)).toStrictEqual(withKey)
  })

  it('does not throw for a section holding a literal key named << with a scalar value', () => {
    const source = 'sec:\n  name: x\n'
    const parsed = parseSettings(source, 'yaml', 'settings.yaml')
    const withKey = { sec: { name: 'x', '<<': 'literal' } }
    expect(reparse(renderYaml(source, parsed, withKey).text)).toStrictEqual(withKey)
  })
})

// ---------------------------------------------------------------------------
// Properties over random small edits of the hand-written fixtures.
// ---------------------------------------------------------------------------

type Path = (string | number)[]

function isContainer(value: unknown): value is Doc | unknown[] {
  return typeof value === 'object' && value !== null
}

/** Every path into `value` (the root excluded), with containers and leaves. */
function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (path.length) out.push(path)
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...path, index], out))
  else if (isContainer(value)) for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], out)
  return out
}

function parentOf(root: Doc, path: Path): Doc | unknown[] | undefined {
  let node: unknown = root
  for (const segment of path.slice(0, -1)) {
    if (!isContainer(node)) return undefined
    node = (node as Doc)[segment as string]
  }
  return isContainer(node) ? node : undefined
}

type Edit =
  | { op: 'set'; path: Path; value: unknown }
  | { op: 'delete'; path: Path }
  | { op: 'add'; path: Path; key: string; value: unknown }

/** Apply one edit to `next` in place; an edit whose target no longer exists is skipped. */
function applyEdit(next: Doc, edit: Edit): void {
  const parent = parentOf(next, edit.path)
  const last = edit.path[edit.path.length - 1]!
  if (!parent || !Object.hasOwn(parent, last)) return
  const copy = structuredClone('value' in edit ? edit.value : undefined)
  if (edit.op === 'set') (parent as Doc)[last as string] = copy
  else if (edit.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last as string]
  } else {
    const target = (parent as Doc)[last as string]
    if (Array.isArray(target)) target.push(copy)
    else if (isContainer(target)) (target as Doc)[edit.key] = copy
  }
}

const anyScalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -100_000, max: 100_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.boolean(),
  fc.constant(null),
)
const anyKey = fc.string({ minLength: 1, maxLength: 6 }).filter((key) => key !== '__proto__')
const anyValue = fc.oneof(
  { weight: 3, arbitrary: anyScalar },
  { weight: 1, arbitrary: fc.array(anyScalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(anyKey, anyScalar, { maxKeys: 3 }) },
)

/** Scalars, keys and values as a settings UI writes them: no YAML syntax in them. */
const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/)
const plainScalar = fc.oneof(word, fc.integer({ min: -1000, max: 1000 }), fc.boolean())
const plainValue = fc.oneof(
  { weight: 3, arbitrary: plainScalar },
  { weight: 1, arbitrary: fc.array(plainScalar, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(word, plainScalar, { minKeys: 1, maxKeys: 3 }) },
)

function editsOf(paths: Path[], key: fc.Arbitrary<string>, value: fc.Arbitrary<unknown>): fc.Arbitrary<Edit[]> {
  const path = fc.constantFrom(...paths)
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({ op: fc.constant('set' as const), path, value }),
    fc.record({ op: fc.constant('delete' as const), path }),
    fc.record({ op: fc.constant('add' as const), path, key, value }),
  )
  return fc.array(edit, { minLength: 1, maxLength: 3 })
}

describe('renderYaml properties', () => {
  it.each(FIXTURES)('returns text that re-parses to exactly next for any small edit of %s', (name) => {
    const original = fixture(name)
    const parsed = parseSettings(original, 'yaml', name)
    fc.assert(
      fc.property(editsOf(pathsOf(parsed.data), anyKey, anyValue), (edits) => {
        const next = plainCopy(parsed.data)
        for (const edit of edits) applyEdit(next, edit)
        const rendered = renderYaml(original, parsed, next)
        expect(reparse(rendered.text)).toStrictEqual(next)
      }),
      { numRuns: 100 },
    )
  })

  it.each(['basic.yaml', 'four-space.yaml', 'zero-indent.yaml', 'flow.yaml', 'scopes.yaml'])(
    'edits plain keys and values of %s in place',
    (name) => {
      const original = fixture(name)
      const parsed = parseSettings(original, 'yaml', name)
      fc.assert(
        fc.property(editsOf(pathsOf(parsed.data), word, plainValue), (edits) => {
          const next = plainCopy(parsed.data)
          for (const edit of edits) applyEdit(next, edit)
          const rendered = renderYaml(original, parsed, next)
          expect(rendered.preserved).toBe(true)
          expect(reparse(rendered.text)).toStrictEqual(next)
        }),
        { numRuns: 100 },
      )
    },
  )

  it.each(['basic.yaml', 'four-space.yaml', 'zero-indent.yaml', 'flow.yaml', 'scopes.yaml'])(
    'changes only the one line holding a scalar set to any other scalar in %s',
    (name) => {
      const original = fixture(name)
      const parsed = parseSettings(original, 'yaml', name)
      const leaves = pathsOf(parsed.data).filter((path) => !isContainer(valueAtPath(parsed.data, path)))
      fc.assert(
        fc.property(fc.constantFrom(...leaves), anyScalar, (path, value) => {
          const next = plainCopy(parsed.data)
          applyEdit(next, { op: 'set', path, value })
          const rendered = renderYaml(original, parsed, next)
          expect(rendered.preserved).toBe(true)
          expect(reparse(rendered.text)).toStrictEqual(next)
          const before = original.split('\n')
          const after = rendered.text.split('\n')
          expect(after.length).toBe(before.length)
          expect(after.filter((line, index) => line !== before[index]).length).toBeLessThanOrEqual(1)
        }),
        { numRuns: 100 },
      )
    },
  )
})

function valueAtPath(root: unknown, path: Path): unknown {
  let node = root
  for (const segment of path) node = (node as Doc)[segment as string]
  return node
}
