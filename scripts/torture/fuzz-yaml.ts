/**
 * fast-check arbitraries for the documents the fuzz writes into the settings
 * file by hand before a write: valid YAML of random data, valid YAML with a
 * fragment spliced in, fragment soup, anchors and aliases, merge keys, alias
 * bombs, YAML 1.1 tags (binary, sets, timestamps), binary bytes and NULs, huge
 * maps, deep nesting, long keys and prototype keys, and one past the size cap.
 */
import fc from 'fast-check'
import { stringify as stringifyYaml } from 'yaml'
import { key, objectFrom, value } from './fuzz-inputs.ts'

/** A document to write, and what kind of document it is (for the row's figures). */
export interface StoredCase {
  kind: string
  bytes: string | Uint8Array
}

const yaml = { stringify: stringifyYaml }

const FRAGMENTS = [
  'fz:\n', '  name: x\n', '  count: 3\n', '  free:\n', '    - 1\n', '- x\n', '&a ', '*a', '<<: *a\n', '<<: [*a, *b]\n', '{', '}', '[', ']', '"', "'",
  '\t', ': ', '? ', '!!binary ', '!!str ', '!!js/function ', '!custom ', '%YAML 1.1\n', '%TAG ! tag:x,2000:\n', '---\n', '...\n', '\u0000', '\uFEFF',
  '#', '|\n', '>-\n', 'scopes:\n  preset/a:\n    fz:\n', '__proto__:\n', 'constructor:\n  prototype:\n    polluted: 1\n', '  polluted: 1\n',
  'fz-loose:\n', '  ', '\n', '\r\n', 'fz: &b {count: 1}\n', 'fz-probe: {n: 1}\n', '? [a, b]\n: 1\n', '? {a: 1}\n: 2\n', '"\\ud800"', '\\x00',
] as const

/** A document of random data in some registered and some unknown sections, rendered by the `yaml` package. */
const validDoc = fc
  .record({
    fz: fc.array(fc.tuple(key, value), { maxLength: 4 }).map(objectFrom),
    'fz-loose': fc.array(fc.tuple(key, value), { maxLength: 3 }).map(objectFrom),
    other: fc.array(fc.tuple(key, value), { maxLength: 3 }).map(objectFrom),
    scoped: fc.boolean(),
  })
  .map(({ scoped, other, ...sections }) => {
    try {
      return yaml.stringify({ ...sections, ...other, ...(scoped ? { scopes: { 'preset/a': { fz: sections.fz } } } : {}) }, { lineWidth: 0 })
    } catch {
      // Values the renderer cannot take (a bigint, a symbol) still make a document, just not this one.
      return 'fz:\n  name: fallback\n'
    }
  })

/** Billion laughs: each level aliases the one below `width` times. */
function aliasBomb(levels: number, width: number): string {
  const lines = ['l0: &l0 ["lol", "lol"]']
  for (let level = 1; level < levels; level++) lines.push(`l${level}: &l${level} [${Array.from({ length: width }, () => `*l${level - 1}`).join(', ')}]`)
  return `${lines.join('\n')}\nfz:\n  free: *l${levels - 1}\n`
}

/** A map of `n` keys, optionally one repeated at the end (a duplicate key). */
function hugeMap(n: number, duplicate: boolean): string {
  const lines = ['fz-loose:']
  for (let index = 0; index < n; index++) lines.push(`  k${index}: ${index}`)
  if (duplicate) lines.push('  k0: again')
  return `${lines.join('\n')}\n`
}

/** Nesting `depth` levels deep: flow brackets, flow maps, or indented block maps. */
function deepDoc(depth: number, style: 'flow-seq' | 'flow-map' | 'block'): string {
  if (style === 'flow-seq') return `fz:\n  free: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
  if (style === 'flow-map') return `fz:\n  free: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`
  return `fz:\n  free:\n${Array.from({ length: depth }, (_, level) => `${'  '.repeat(level + 2)}a:`).join('\n')} 1\n`
}

const templates = fc.constantFrom(
  // Anchors, aliases and merge keys, well-formed and not.
  'base: &b {name: merged, count: 2}\nfz:\n  <<: *b\n  mode: b\n',
  'a: &a {count: 1}\nb: &b {name: x}\nfz:\n  <<: [*a, *b]\n',
  'fz:\n  <<: *missing\n',
  'fz:\n  <<: [1, 2]\n',
  'fz:\n  <<: 5\n',
  'fz: &self\n  free: *self\n',
  'fz:\n  free: &x [*x]\n',
  'fz:\n  "<<": literal\n',
  'fz:\n  ? <<\n  : 1\n',
  'fz: *a\na: &a {count: 1}\n',
  // Prototype keys in a stored section, at the top and inside.
  '__proto__:\n  polluted: 1\nfz:\n  count: 1\n',
  'fz:\n  __proto__:\n    polluted: 1\n',
  'fz:\n  constructor:\n    prototype:\n      polluted: 1\n',
  'fz-loose:\n  valueOf: 1\n  toString: x\n  hasOwnProperty: 2\n',
  'scopes:\n  __proto__:\n    fz: {count: 1}\n',
  'scopes:\n  preset/a:\n    __proto__: {polluted: 1}\n',
  'scopes: 5\n',
  'scopes:\n  preset/a: [1, 2]\n',
  // YAML 1.1 types that are not JSON: binary, sets, ordered maps, timestamps, tagged values.
  '%YAML 1.1\n---\nfz:\n  name: !!binary aGVsbG8=\n',
  '%YAML 1.1\n---\nfz:\n  free: !!set {a, b}\n',
  '%YAML 1.1\n---\nfz:\n  free: !!omap [a: 1, b: 2]\n',
  '%YAML 1.1\n---\nfz:\n  free: 2001-12-14t21:59:43.10-05:00\n',
  'fz:\n  free: !!timestamp 2001-12-14\n',
  'fz:\n  free: !custom {a: 1}\n',
  'fz:\n  count: !!int "3"\n  name: !!str 3\n',
  'fz:\n  free: .nan\n  count: .inf\n',
  'fz:\n  free: 123456789012345678901234567890\n',
  // Not a map at the root, or several documents.
  '- fz\n', 'just text\n', '42\n', '', '---\nfz: {}\n---\nfz: {}\n', '~\n', 'null\n',
  // Keys that are not strings.
  'fz:\n  1: one\n  true: yes\n  null: nothing\n  [a]: list\n',
)

/** Random bytes, sometimes behind a valid start so the parser meets them inside a value. */
const binary = fc.tuple(fc.uint8Array({ maxLength: 200 }), fc.constantFrom('', 'fz:\n  name: ', 'fz:\n  name: "')).map(([bytes, prefix]) => new Uint8Array([...Buffer.from(prefix), ...bytes]))

/** A document for the fuzz to write by hand, labelled by kind. */
export const storedCase: fc.Arbitrary<StoredCase> = fc.oneof(
  { weight: 4, arbitrary: validDoc.map((bytes) => ({ kind: 'valid', bytes })) },
  {
    weight: 3,
    arbitrary: fc.tuple(validDoc, fc.nat(), fc.constantFrom(...FRAGMENTS)).map(([text, at, fragment]) => {
      const position = text.length ? at % text.length : 0
      return { kind: 'spliced', bytes: text.slice(0, position) + fragment + text.slice(position) }
    }),
  },
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((parts) => ({ kind: 'fragments', bytes: parts.join('') })) },
  { weight: 3, arbitrary: templates.map((bytes) => ({ kind: 'anchors/merge/tags/proto', bytes })) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 2, max: 12 })).map(([levels, width]) => ({ kind: 'alias bomb', bytes: aliasBomb(levels, width) })) },
  { weight: 2, arbitrary: binary.map((bytes) => ({ kind: 'binary', bytes })) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1000, max: 20_000 }), fc.boolean()).map(([n, duplicate]) => ({ kind: 'huge map', bytes: hugeMap(n, duplicate) })) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('flow-seq' as const, 'flow-map' as const)),
      // Block nesting costs its depth squared in indentation: 1,500 levels is already 2 MB.
      fc.tuple(fc.integer({ min: 50, max: 1500 }), fc.constant('block' as const)),
    ).map(([depth, style]) => ({ kind: 'deep', bytes: deepDoc(depth, style) })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => ({ kind: 'long key', bytes: `fz-loose:\n  ${'k'.repeat(n)}: 1\n` })) },
  // Past the provider's 8 MiB cap, rarely: it costs a 9 MB write.
  { weight: 1, arbitrary: fc.constant({ kind: 'over the size cap', bytes: `fz:\n  name: ${'x'.repeat(9 * 1024 * 1024)}\n` }) },
)
