/**
 * The in-place scalar edit (a write's most common change: one count, one
 * switch, one string) against the full edit it stands in for: wherever its
 * result reads as intended, it must be byte for byte what the full edit
 * (yaml's node tree, `YamlEditor`) writes. Checked on sections written by
 * `yaml` and js-yaml in several styles, with comments after values and CRLF
 * line ends, and through `renderYaml`, whose other checks it must pass too.
 */
import fc from 'fast-check'
import { dump } from 'js-yaml'
import { dataEqual } from 'dsh-settings'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import type { DocumentEdit } from '../src/codec/diff.ts'
import { parseSettings, parseYaml, YAML_OPTIONS } from '../src/codec/parse.ts'
import { editScalarsInPlace } from '../src/codec/scalar-edit.ts'
import { renderYaml } from '../src/codec/serialize.ts'
import { YamlEditor } from '../src/codec/yaml-edit.ts'
import { readYamlData } from '../src/codec/yaml-fast-read.ts'

type Scalar = string | number | boolean | null

const key = fc.oneof(fc.constantFrom('a', 'limit', 'counter', 'name', 'x', 'enabled', 'label'), fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/))
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('true', 'null', '12', '0x1F', 'a: b', 'x #y', "it's", 'say "hi"', ' lead', 'trail ', '', '-', '~', 'é✓', 'multi\nline'),
)
const section = fc.dictionary(key, fc.oneof({ weight: 3, arbitrary: scalar }, { weight: 1, arbitrary: fc.dictionary(key, scalar, { minKeys: 1, maxKeys: 4 }) }), { minKeys: 1, maxKeys: 6 })

/** A section `{ ns: data }` as YAML in one of several writers' styles. */
function written(data: Record<string, unknown>, style: number): string {
  const doc = { ns: data }
  switch (style) {
    case 0:
      return stringify(doc)
    case 1:
      return stringify(doc, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
    case 2:
      return stringify(doc, { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' })
    case 3:
      return dump(doc)
    case 4:
      return dump(doc, { indent: 4 })
    default:
      // A comment after every value on its key's line, as people annotate settings.
      return stringify(doc).replace(/^( +[^:#\n]+: [^\n#]+?)$/gm, '$1 # note')
  }
}

/** Every path to a scalar in `value`. */
function scalarPaths(value: Record<string, unknown>, prefix: string[] = []): string[][] {
  const paths: string[][] = []
  for (const [name, child] of Object.entries(value)) {
    if (typeof child === 'object' && child !== null) paths.push(...scalarPaths(child as Record<string, unknown>, [...prefix, name]))
    else paths.push([...prefix, name])
  }
  return paths
}

function withValue(value: Record<string, unknown>, path: string[], next: unknown): Record<string, unknown> {
  const [head, ...rest] = path
  return { ...value, [head!]: rest.length ? withValue(value[head!] as Record<string, unknown>, rest, next) : next }
}

describe('editScalarsInPlace', () => {
  it('writes exactly what the full edit writes, wherever its result reads as intended', () => {
    let taken = 0
    let tried = 0
    fc.assert(
      fc.property(section, fc.nat(5), fc.nat(), scalar, fc.boolean(), (data, style, pick, value, crlf) => {
        let text = written(data, style)
        if (crlf) text = text.replace(/\n/g, '\r\n')
        const before = readYamlData(text)
        // Only texts the fast reader takes reach the in-place edit.
        if (before === undefined || !dataEqual(before, { ns: data })) return
        const paths = scalarPaths({ ns: data })
        const path = paths[pick % paths.length]!
        if (dataEqual(path.reduce<any>((at, name) => at[name], { ns: data }), value)) return
        const after = withValue({ ns: data }, path, value)
        const edits: DocumentEdit[] = [{ op: 'set', path, value }]
        tried++
        const quick = editScalarsInPlace(text, edits, { ns: data })
        if (quick === undefined || !dataEqual(readYamlData(quick.text), after)) return
        taken++
        const full = new YamlEditor(text, parseYaml(text).doc, after).apply(edits.map((edit) => ({ ...edit })))
        expect(quick.text).toBe(full)
      }),
      { numRuns: 3000 },
    )
    // The edit is not vacuous: most one-scalar changes are made in place.
    expect(taken).toBeGreaterThan(tried / 2)
  })

  it('keeps a comment after the value, the quotes, and CRLF line ends', () => {
    const text = 'ns:\r\n  counter: 1 # how many\r\n  label: "old"\r\n  name: \'a\'\r\n'
    const edits: DocumentEdit[] = [
      { op: 'set', path: ['ns', 'counter'], value: 2 },
      { op: 'set', path: ['ns', 'label'], value: 'new "one"' },
      { op: 'set', path: ['ns', 'name'], value: "it's" },
    ]
    const quick = editScalarsInPlace(text, edits, { ns: { counter: 1, label: 'old', name: 'a' } })
    expect(quick?.text).toBe('ns:\r\n  counter: 2 # how many\r\n  label: "new \\"one\\""\r\n  name: \'it\'\'s\'\r\n')
  })

  it('edits the key at the path, not a same-named key elsewhere in the section', () => {
    const text = 'ns:\n  inner:\n    x: 1\n  x: 2\n  other:\n    x: 3\n'
    const data = { ns: { inner: { x: 1 }, x: 2, other: { x: 3 } } }
    expect(editScalarsInPlace(text, [{ op: 'set', path: ['ns', 'other', 'x'], value: 9 }], data)?.text).toBe('ns:\n  inner:\n    x: 1\n  x: 2\n  other:\n    x: 9\n')
    expect(editScalarsInPlace(text, [{ op: 'set', path: ['ns', 'x'], value: 9 }], data)?.text).toBe('ns:\n  inner:\n    x: 1\n  x: 9\n  other:\n    x: 3\n')
  })

  it('declines what it does not edit in place: containers, a value on the next line, a flow collection, a key written quoted', () => {
    const data = { ns: { list: [1], map: { a: 1 }, below: 'text', flow: { a: 1 } } }
    expect(editScalarsInPlace('ns:\n  list:\n    - 1\n', [{ op: 'set', path: ['ns', 'list', 0], value: 2 }], data)).toBeUndefined()
    expect(editScalarsInPlace('ns:\n  map:\n    a: 1\n', [{ op: 'set', path: ['ns', 'map'], value: 2 }], data)).toBeUndefined()
    expect(editScalarsInPlace('ns:\n  below:\n    text\n', [{ op: 'set', path: ['ns', 'below'], value: 'x' }], data)).toBeUndefined()
    expect(editScalarsInPlace('ns:\n  flow: {a: 1}\n', [{ op: 'set', path: ['ns', 'flow', 'a'], value: 2 }], data)).toBeUndefined()
    expect(editScalarsInPlace('ns:\n  "q": 1\n', [{ op: 'set', path: ['ns', 'q'], value: 2 }], { ns: { q: 1 } })).toBeUndefined()
    expect(editScalarsInPlace('ns:\n  a: 1\n', [{ op: 'set', path: ['ns', 'a'], value: { b: 1 } }], { ns: { a: 1 } })).toBeUndefined()
  })

  it('says whether the last content line stayed as it was', () => {
    const data = { ns: { a: 1, b: 2 } }
    expect(editScalarsInPlace('ns:\n  a: 1\n  b: 2\n\n# next\n', [{ op: 'set', path: ['ns', 'a'], value: 5 }], data)?.endKept).toBe(true)
    expect(editScalarsInPlace('ns:\n  a: 1\n  b: 2\n\n# next\n', [{ op: 'set', path: ['ns', 'b'], value: 5 }], data)?.endKept).toBe(false)
  })
})

describe('a one-field write through renderYaml', () => {
  it('reads back whole as the next document, read by yaml itself, whichever section and field it changes', () => {
    const documents = fc.array(fc.tuple(section, fc.nat(5)), { minLength: 2, maxLength: 5 })
    fc.assert(
      fc.property(documents, fc.nat(), fc.nat(), scalar, (entries, pickSection, pickPath, value) => {
        // Sections as separate writers left them, one after another, each in its own style.
        const text = entries.map(([data, style], index) => written(data, style).replace(/^ns:/, `ns${index}:`)).join('')
        const parsed = parseSettings(text, 'yaml', 'settings.yaml')
        const name = `ns${pickSection % entries.length}`
        const paths = scalarPaths(parsed.data[name] as Record<string, unknown>)
        const path = paths[pickPath % paths.length]!
        const next = { ...parsed.data, [name]: withValue(parsed.data[name] as Record<string, unknown>, path, value) }
        const rendered = renderYaml(text, parsed, next)
        const { doc, problems } = parseYaml(rendered.text)
        expect(problems).toEqual([])
        expect(doc.toJS(YAML_OPTIONS)).toStrictEqual(next)
      }),
      { numRuns: 1500 },
    )
  })

  it('changes only the bytes of that value, in a hand-written document of many sections', () => {
    const sections = Array.from({ length: 30 }, (_, index) => `# settings of p${index}\np${index}:\n  counter: ${index} # bumped by the plugin\n  label: "plugin ${index}"\n  tags: [a, b]\n`)
    const text = `# mine\n\n${sections.join('\n')}`
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    fc.assert(
      fc.property(fc.nat(29), fc.integer({ min: 0, max: 1e9 }), (index, counter) => {
        const section = parsed.data[`p${index}`] as Record<string, unknown>
        const next = { ...parsed.data, [`p${index}`]: { ...section, counter } }
        const rendered = renderYaml(text, parsed, next)
        expect(rendered.preserved).toBe(true)
        expect(rendered.text).toBe(text.replace(`counter: ${index} #`, `counter: ${counter} #`))
        expect(parseSettings(rendered.text, 'yaml', 'settings.yaml').data).toStrictEqual(next)
      }),
      { numRuns: 200 },
    )
  })
})
