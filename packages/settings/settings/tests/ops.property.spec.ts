import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SettingsInputError, SettingsValidationError } from '../src/errors.ts'
import type { InputCall } from '../src/json.ts'
import type { JsonObject, JsonValue } from '../src/types.ts'
import { checkPayload, deriveSection, type WriteMode } from '../src/writes.ts'
import { sharesNothing } from './assertions.ts'

const inputCall = (mode: WriteMode): InputCall => ({ label: `settings ${mode} for "demo"`, ns: 'demo' })
const runs = { numRuns: 200 }

// ---------------------------------------------------------------------------
// Arbitraries. Keys come from a small alphabet (no prototype keys) that holds
// decimal strings too, so generated paths also address array elements.
// ---------------------------------------------------------------------------

const KEYS = ['a', 'b', 'c', 'x', '0', '1', '2'] as const
const key = fc.constantFrom(...KEYS)

const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
  fc.string({ maxLength: 6 }),
)

const tree = fc.letrec<{ value: JsonValue; object: JsonObject; array: JsonValue[] }>((tie) => ({
  value: fc.oneof({ maxDepth: 3, depthIdentifier: 'json' }, leaf, tie('object'), tie('array')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4, depthIdentifier: 'json' }),
  array: fc.array(tie('value'), { maxLength: 4, depthIdentifier: 'json' }),
}))

/** Sections with no arrays anywhere, so every path runs through objects. */
const arrayFree = fc.letrec<{ value: JsonValue; object: JsonObject }>((tie) => ({
  value: fc.oneof({ maxDepth: 3, depthIdentifier: 'plain' }, leaf, tie('object')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4, depthIdentifier: 'plain' }),
})).object

const jsonValue = tree.value
const section = tree.object
const path = fc.array(key, { maxLength: 4 })
const op = fc.oneof(
  fc.record({ op: fc.constant('set' as const), path, value: jsonValue }),
  fc.record({ op: fc.constant('unset' as const), path }),
)
const ops = fc.array(op, { maxLength: 8 })
/** Stored values that are not a section at all (`null` is not among them: it reads as an empty section). */
const malformed = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(jsonValue, { maxLength: 3 }))

type Op = { op: 'set'; path: string[]; value: JsonValue } | { op: 'unset'; path: string[] }

// ---------------------------------------------------------------------------
// Reference model: a naive, immutable re-statement of the write semantics.
// ---------------------------------------------------------------------------

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)
const isIndex = (segment: string) => /^(0|[1-9][0-9]*)$/.test(segment)

/** A plain deep copy (normal prototypes), written without the code under test. */
function clone(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(clone)
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)]))
  return value
}

/** `update`: patch objects merge into stored objects; anything else in the patch wins outright. */
function modelUpdate(stored: JsonObject, patch: JsonObject): JsonObject {
  const out = clone(stored) as JsonObject
  for (const [k, v] of Object.entries(patch)) {
    const below = Object.hasOwn(out, k) ? out[k] : undefined
    out[k] = isObject(v) && isObject(below) ? modelUpdate(below, v) : clone(v)
  }
  return out
}

class Refused extends Error {}

/** Set `value` at `path` inside the container `node`, returning a new node. */
function setIn(node: JsonValue, segments: string[], value: JsonValue): JsonValue {
  if (segments.length === 0) return clone(value)
  const [head, ...rest] = segments as [string, ...string[]]
  const asContainer = (child: JsonValue | undefined): JsonValue => (Array.isArray(child) || isObject(child) ? child : {})
  if (Array.isArray(node)) {
    const highest = rest.length === 0 ? node.length : node.length - 1
    if (!isIndex(head) || Number(head) > highest) throw new Refused('not an element index')
    const copy = node.slice()
    copy[Number(head)] = setIn(asContainer(node[Number(head)]), rest, value)
    return copy
  }
  const object = node as JsonObject
  return { ...object, [head]: setIn(asContainer(Object.hasOwn(object, head) ? object[head] : undefined), rest, value) }
}

/** Remove what `path` addresses inside `node`; an absent path leaves it as it is. */
function unsetIn(node: JsonValue, segments: string[]): JsonValue {
  const [head, ...rest] = segments as [string, ...string[]]
  if (Array.isArray(node)) {
    if (!isIndex(head) || Number(head) >= node.length) return node
    const i = Number(head)
    if (rest.length === 0) return node.filter((_, j) => j !== i)
    return node.map((item, j) => (j === i ? unsetIn(item, rest) : item))
  }
  if (isObject(node)) {
    if (!Object.hasOwn(node, head)) return node
    if (rest.length === 0) return Object.fromEntries(Object.entries(node).filter(([k]) => k !== head))
    return { ...node, [head]: unsetIn(node[head]!, rest) }
  }
  return node
}

/** `mutate`: each op in turn; the empty path addresses the whole section. */
function modelMutate(stored: JsonObject, list: readonly Op[]): JsonObject {
  let current: JsonValue = clone(stored)
  for (const step of list) {
    if (step.path.length === 0) {
      if (step.op === 'unset') current = {}
      else if (isObject(step.value)) current = clone(step.value)
      else throw new Refused('root must be an object')
    } else if (step.op === 'set') {
      current = setIn(current, step.path, step.value)
    } else {
      current = unsetIn(current, step.path)
    }
  }
  return current as JsonObject
}

/** The model's answer, or `Refused` when the model says the write cannot apply. */
function attempt<T>(fn: () => T): T | Refused {
  try {
    return fn()
  } catch (error) {
    if (error instanceof Refused) return error
    throw error
  }
}

function derive(mode: Exclude<WriteMode, 'migrate'>, stored: unknown, payload: unknown): JsonObject {
  return deriveSection(stored, checkPayload(mode, payload, inputCall(mode)), inputCall(mode))
}

// ---------------------------------------------------------------------------

describe('reference model sanity', () => {
  it('agrees with hand-computed examples', () => {
    expect(modelUpdate({ a: { b: 1, c: 2 }, l: [1] }, { a: { b: 3 }, l: [2] })).toEqual({ a: { b: 3, c: 2 }, l: [2] })
    expect(modelMutate({ l: ['x', 'y'] }, [{ op: 'set', path: ['l', '2'], value: 'z' }, { op: 'unset', path: ['l', '0'] }])).toEqual({ l: ['y', 'z'] })
    expect(attempt(() => modelMutate({ l: [] }, [{ op: 'set', path: ['l', '1'], value: 1 }]))).toBeInstanceOf(Refused)
    expect(modelMutate({ a: 5 }, [{ op: 'set', path: ['a', 'b'], value: 1 }])).toEqual({ a: { b: 1 } })
  })
})

describe('deriveSection properties', () => {
  it('update matches the reference deep merge', () => {
    fc.assert(
      fc.property(section, section, (stored, patch) => {
        expect(derive('update', stored, patch)).toEqual(modelUpdate(stored, patch))
      }),
      runs,
    )
  })

  it('update of {} is identity', () => {
    fc.assert(
      fc.property(section, (stored) => {
        expect(derive('update', stored, {})).toEqual(clone(stored))
      }),
      runs,
    )
  })

  it('update is idempotent: applying the same patch twice equals applying it once', () => {
    fc.assert(
      fc.property(section, section, (stored, patch) => {
        const once = derive('update', stored, patch)
        expect(derive('update', once, patch)).toEqual(once)
      }),
      runs,
    )
  })

  it('update over an absent or empty (null) section stores the patch', () => {
    fc.assert(
      fc.property(section, fc.constantFrom(undefined, null), (patch, stored) => {
        expect(derive('update', stored, patch)).toEqual(clone(patch))
      }),
      runs,
    )
  })

  it('mutate over an empty (null) section is mutate over {}', () => {
    fc.assert(
      fc.property(ops, (list) => {
        const expected = attempt(() => modelMutate({}, list))
        if (expected instanceof Refused) expect(() => derive('mutate', null, list)).toThrow(SettingsInputError)
        else expect(derive('mutate', null, list)).toEqual(expected)
      }),
      runs,
    )
  })

  it('update never modifies its inputs, shares nothing with the patch, and shares every stored key the patch does not reach', () => {
    fc.assert(
      fc.property(section, section, (stored, patch) => {
        const storedBefore = clone(stored)
        const patchBefore = clone(patch)
        const result = derive('update', stored, patch) as Record<string, unknown>
        expect(stored).toEqual(storedBefore)
        expect(patch).toEqual(patchBefore)
        expect(sharesNothing(result, patch)).toBe(true)
        expect(result).not.toBe(stored)
        for (const key of Object.keys(stored)) {
          if ((patch as Record<string, unknown>)[key] === undefined) expect(result[key]).toBe((stored as Record<string, unknown>)[key])
        }
      }),
      runs,
    )
  })

  it('replace result deep-equals the section, whatever was stored', () => {
    fc.assert(
      fc.property(fc.oneof(section, malformed, fc.constant(undefined)), section, (stored, replacement) => {
        const result = derive('replace', stored, replacement)
        expect(result).toEqual(clone(replacement))
        expect(sharesNothing(result, replacement)).toBe(true)
      }),
      runs,
    )
  })

  it('mutate matches the reference model, refusing exactly where it refuses', () => {
    fc.assert(
      fc.property(section, ops, (stored, list) => {
        const expected = attempt(() => modelMutate(stored, list))
        if (expected instanceof Refused) {
          expect(() => derive('mutate', stored, list)).toThrow(SettingsInputError)
        } else {
          expect(derive('mutate', stored, list)).toEqual(expected)
        }
      }),
      runs,
    )
  })

  it('mutate never modifies its input section or ops', () => {
    fc.assert(
      fc.property(section, ops, (stored, list) => {
        const storedBefore = clone(stored)
        const opsBefore = structuredClone(list)
        try {
          const result = derive('mutate', stored, list)
          expect(sharesNothing(result, stored, list)).toBe(true)
        } catch (error) {
          expect(error).toBeInstanceOf(SettingsInputError)
        }
        expect(stored).toEqual(storedBefore)
        expect(list).toEqual(opsBefore)
      }),
      runs,
    )
  })

  it('mutate with a set at the root equals replace with that section', () => {
    fc.assert(
      fc.property(section, section, (stored, replacement) => {
        expect(derive('mutate', stored, [{ op: 'set', path: [], value: replacement }])).toEqual(derive('replace', stored, replacement))
      }),
      runs,
    )
  })

  it('mutate of an empty ops list is identity', () => {
    fc.assert(
      fc.property(section, (stored) => {
        expect(derive('mutate', stored, [])).toEqual(clone(stored))
      }),
      runs,
    )
  })

  it('mutate reads back what a set on a path through objects stored', () => {
    const objectPath = fc.array(key, { minLength: 1, maxLength: 4 })
    fc.assert(
      fc.property(arrayFree, objectPath, jsonValue, (stored, segments, value) => {
        const result = derive('mutate', stored, [{ op: 'set', path: segments, value }])
        let node: JsonValue = result
        for (const segment of segments) node = (node as JsonObject)[segment]!
        expect(node).toEqual(clone(value))
      }),
      runs,
    )
  })

  it('mutate leaves a key absent after a set then an unset of it', () => {
    fc.assert(
      fc.property(section, fc.constantFrom('a', 'b', 'c'), jsonValue, (stored, k, value) => {
        const result = derive('mutate', stored, [{ op: 'set', path: [k], value }, { op: 'unset', path: [k] }])
        expect(Object.hasOwn(result, k)).toBe(false)
        expect(result).toEqual(modelMutate(stored, [{ op: 'unset', path: [k] }]))
      }),
      runs,
    )
  })

  it('update refuses every malformed stored value, while replace and a root-first mutate repair it', () => {
    fc.assert(
      fc.property(malformed, section, ops, (stored, data, list) => {
        expect(() => derive('update', stored, data)).toThrow(SettingsValidationError)
        expect(derive('replace', stored, data)).toEqual(clone(data))
        const repairing: Op[] = [{ op: 'set', path: [], value: data }, ...list]
        const expected = attempt(() => modelMutate({}, repairing))
        if (expected instanceof Refused) expect(() => derive('mutate', stored, repairing)).toThrow(SettingsInputError)
        else expect(derive('mutate', stored, repairing)).toEqual(expected)
      }),
      runs,
    )
  })
})
