/**
 * fast-check arbitraries for the fuzz's writes: what a careless or hostile
 * caller can hand `update`, `replace` and `mutate` in-process, through the
 * controller, through the typed wire client, or as raw HTTP bodies. Values mix
 * JSON with keys that reach object machinery (`__proto__`, `valueOf`, `<<`),
 * keys and strings past every size limit, values past the depth limits, and,
 * in-process, data JSON cannot carry at all.
 */
import fc from 'fast-check'

/** Where a write enters the stack. */
export type Via = 'settings' | 'controller' | 'wire' | 'raw'

/** One generated write. `revision` names a symbolic revision (`current`, `stale`) or is the literal value to send. */
export interface WriteCase {
  via: Via
  mode: 'update' | 'replace' | 'mutate'
  ns: unknown
  scope: unknown
  revision: { symbolic: 'current' | 'stale' } | { value: unknown }
  payload: unknown
  /** For `via: 'raw'`: the method named in the URL and the body bytes sent as they are. */
  raw?: { method: string; body: string | Uint8Array }
}

/** Keys that reach object, YAML or path machinery. */
const SPECIAL_KEYS = [
  '__proto__', 'constructor', 'prototype', 'valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', 'toJSON', 'then', 'length',
  '<<', '=', '~', '', ' ', '-', '? x', '&a', '*a', '!!str', '#', 'a: b', 'a.b', '$', '[0]', '0', '01', '-1', '1e3', 'true', 'null',
  'scopes', 'preset/a', '\n', '\t', '\r\n', '\u0000', '\uFEFF', '\ud800', 'é', '🔑', '"', "'", '{', '[', '%YAML', '---',
] as const

/** Strings a YAML scalar could be mistaken for, or that its writer must quote or escape. */
const SPECIAL_STRINGS = [
  'yes', 'no', 'on', 'off', '~', 'null', 'NULL', '0x1F', '0o17', '1e3', '.inf', '-.inf', '.nan', '2001-12-14', '12:30:00', '&anchor', '*alias',
  '!!str x', '!!binary aGk=', '<<', '%YAML 1.1', '---', '...', '@x', '`x', '\t', '\u0000', '\uFEFF', '\ud800', '\udfff', '\r\n', 'a: b', '- x',
  '# c', '"', "'", '\\', '\u2028', '\u0085', ' lead', 'trail ', '',
] as const

/** Known fields of the fuzz schema, so many writes get past the schema and reach the store. */
const FIELDS = ['name', 'count', 'flags', 'list', 'free', 'mode'] as const

/** A string of `n` copies of one character: long keys and huge strings without paying to generate each character. */
const repeated = (min: number, max: number) => fc.tuple(fc.integer({ min, max }), fc.constantFrom('k', 'é', '<', '\u0000', ' ', '🔑', '\n')).map(([n, c]) => c.repeat(n))

/** A key: mostly known fields and special keys, sometimes random or over 1,000 characters. */
export const key: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FIELDS) },
  // The keys with a history of trouble, more often than their share of the special keys.
  { weight: 2, arbitrary: fc.constantFrom('<<', '__proto__', 'constructor', 'valueOf', 'toString') },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_KEYS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) },
  { weight: 1, arbitrary: repeated(1000, 5000) },
)

/** An object whose entries are own data properties, `__proto__` included (plain assignment would set the prototype). */
export function objectFrom(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const target: Record<string, unknown> = {}
  for (const [name, value] of entries) Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
  return target
}

/** Nest `leaf` `depth` levels deep in objects (`{ a: … }`) or arrays. */
function nest(depth: number, asArray: boolean, leaf: unknown): unknown {
  let value = leaf
  for (let level = 0; level < depth; level++) value = asArray ? [value] : { a: value }
  return value
}

/** Values past the depth limits: just under and over the seam's 64, and over the wire's 256. */
const deep = fc.tuple(fc.oneof(fc.integer({ min: 60, max: 70 }), fc.integer({ min: 250, max: 400 })), fc.boolean()).map(([depth, asArray]) => nest(depth, asArray, 1))

class Widget {
  size = 1
}

/** In-process only: what JSON cannot carry. Thunks, so a cycle or a class instance is made fresh per case. */
const EXOTIC: readonly (readonly [string, () => unknown])[] = [
  ['function', () => () => 1],
  ['NaN', () => NaN],
  ['Infinity', () => -Infinity],
  ['undefined', () => undefined],
  // A hole, which is not the same as an `undefined` entry.
  ['sparse array', () => [1, , 3]],
  ['array with undefined', () => [1, undefined]],
  ['Date', () => new Date(0)],
  ['Map', () => new Map([['a', 1]])],
  ['Set', () => new Set([1])],
  ['class instance', () => new Widget()],
  ['null-prototype object', () => Object.assign(Object.create(null) as object, { a: 1 })],
  ['inherited keys', () => Object.create({ inherited: 1 }) as object],
  ['cycle', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = cycle
    return cycle
  }],
  ['symbol', () => Symbol('s')],
  ['symbol key', () => ({ [Symbol('k')]: 1, a: 1 })],
  ['bigint', () => 10n],
  ['boxed number', () => new Number(1)],
  ['Buffer', () => Buffer.from('x')],
  ['RegExp', () => /x/],
  ['Error', () => new Error('e')],
  ['negative zero', () => -0],
]

/** A non-JSON value, made fresh each time it is read. */
const exotic = fc.constantFrom(...EXOTIC).map(([, make]) => make())

const leaf = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 1, arbitrary: exotic },
  { weight: 1, arbitrary: deep },
  // Huge strings, rarely: past the 1 MiB write and body limits at the top.
  { weight: 1, arbitrary: fc.oneof(repeated(10_000, 100_000), fc.constant('x'.repeat(1_100_000))) },
)

/** A value of any shape: JSON with special keys, plus the leaves above. */
export const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map(objectFrom),
})).value

/** A patch or section: mostly an object, sometimes not an object at all. */
const section = fc.oneof({ weight: 8, arbitrary: fc.array(fc.tuple(key, value), { maxLength: 5 }).map(objectFrom) }, { weight: 1, arbitrary: value })

const segment = fc.oneof(key, fc.nat({ max: 5 }).map(String), fc.integer({ min: -2, max: 5 }) as fc.Arbitrary<unknown>)

/** One path op: well-formed, or not (a bad op name, a path that is not an array, a set without a value, extra fields). */
const op = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('set'), path: fc.array(segment, { maxLength: 4 }), value }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('unset'), path: fc.array(segment, { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.oneof(fc.constantFrom('set', 'unset', 'delete', '__proto__'), value), path: value, value }, { requiredKeys: [] }) },
)

const ops = fc.oneof({ weight: 9, arbitrary: fc.array(op, { maxLength: 5 }) }, { weight: 1, arbitrary: value })

const namespace = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('fz', 'fz-loose') },
  { weight: 3, arbitrary: fc.constantFrom('nobody', 'scopes', 'constructor', 'prototype', '__proto__', 'Fz', 'fz_', '', 'fz/x', 'fz ', 'a'.repeat(1000), 'valueOf', 'toString') },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), exotic) },
)

const scope = fc.oneof(
  { weight: 10, arbitrary: fc.constant(undefined) },
  { weight: 5, arbitrary: fc.constant('preset/a') },
  { weight: 3, arbitrary: fc.constantFrom('preset/zz', 'preset/', '/a', 'preset/a/b', 'Preset/A', '__proto__/x', 'preset/__proto__', 'scopes/x', '', 'preset/' + 'a'.repeat(500), null) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), exotic) },
)

const revision: fc.Arbitrary<WriteCase['revision']> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ value: undefined }) },
  { weight: 4, arbitrary: fc.constantFrom({ symbolic: 'current' as const }, { symbolic: 'stale' as const }) },
  { weight: 2, arbitrary: fc.constantFrom(0, -1, 1.5, NaN, Infinity, 2 ** 53, '3', null, {}).map((literal) => ({ value: literal })) },
  { weight: 1, arbitrary: fc.integer().map((literal) => ({ value: literal })) },
)

/** Raw call bodies: not JSON, not UTF-8, nested past the wire's limit, or JSON with what a decoder must refuse. */
const rawBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.uint8Array({ maxLength: 64 }),
  fc.constantFrom(
    '', '{', '{"args":', '[]', 'null', '{"args":{}}', '{"args":[]}', '{"args":["fz"]}', '{"args":["fz",{"count":1},null,null,null]}',
    '{"args":["fz",{"__proto__":{"polluted":1}}]}', '{"args":["fz",{"constructor":{"prototype":{"polluted":1}}}]}', '{"__proto__":{"args":[]}}',
    '{"args":["fz",{"count":1e400}]}', '{"args":["fz",{"count":1,"count":2}]}', '\uFEFF{"args":["fz",{}]}', '{"args":["fz",{"name":"\\ud800"}]}',
  ),
  fc.oneof(fc.integer({ min: 250, max: 260 }), fc.constant(100_000)).map((n) => `{"args":["fz",{"free":${'['.repeat(n)}${']'.repeat(n)}}]}`),
  fc.array(value, { maxLength: 5 }).map((args) => {
    try {
      return JSON.stringify({ args }) ?? ''
    } catch {
      return '{"args":[]}'
    }
  }),
)

/** A write aimed past the call-time checks: valid ids, legal but odd keys and strings, JSON within the limits. */
const benignKey = key.filter((name) => name !== '__proto__' && name !== 'constructor' && name !== 'prototype')
const benignValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(...SPECIAL_STRINGS), repeated(1000, 20_000)), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.array(fc.tuple(benignKey, tie('value')), { maxLength: 4 }).map(objectFrom),
})).value
const benignSection = fc.array(fc.tuple(benignKey, benignValue), { maxLength: 4 }).map(objectFrom)
const benignWrite: fc.Arbitrary<WriteCase> = fc
  .record({
    via: fc.constantFrom<Via>('settings', 'controller', 'wire'),
    mode: fc.constantFrom('update' as const, 'replace' as const, 'mutate' as const),
    ns: fc.constantFrom('fz', 'fz-loose'),
    scope: fc.constantFrom(undefined, undefined, 'preset/a', 'preset/zz'),
    revision: fc.constantFrom<WriteCase['revision']>({ value: undefined }, { symbolic: 'current' }),
    payload: benignSection,
    ops: fc.array(fc.record({ op: fc.constant('set'), path: fc.array(benignKey, { minLength: 1, maxLength: 3 }), value: benignValue }), { maxLength: 3 }),
  })
  .map(({ ops: pathOps, ...rest }) => ({ ...rest, payload: rest.mode === 'mutate' ? pathOps : rest.payload }))

/** A hostile write, by any of the four ways in. */
const hostileWrite: fc.Arbitrary<WriteCase> = fc
  .record({
    via: fc.constantFrom<Via>('settings', 'settings', 'controller', 'wire', 'wire', 'raw'),
    mode: fc.constantFrom('update' as const, 'replace' as const, 'mutate' as const),
    ns: namespace,
    scope,
    revision,
    payload: section,
    ops,
    rawMethod: fc.constantFrom('update', 'replace', 'mutate', 'describe', 'nope', '__proto__', 'constructor', 'toString'),
    rawBody,
  })
  .map(({ ops: pathOps, rawMethod, rawBody: body, ...rest }) => ({
    ...rest,
    payload: rest.mode === 'mutate' ? pathOps : rest.payload,
    ...(rest.via === 'raw' ? { raw: { method: rawMethod, body } } : {}),
  }))

/** A generated write: as often one meant to get through (to reach the store) as a hostile one. */
export const writeCase: fc.Arbitrary<WriteCase> = fc.oneof(benignWrite, hostileWrite)
