/**
 * Property: under a random schema (objects, dicts, lists, tuples, unions, intersections,
 * transforms, lazy and `any` parts, secrets), keys the schema does not declare, planted at random
 * depths in the base, the global section and a scoped section with sentinel string values, never
 * reach JSON text that leaves the process: the seam's redacted describe, its diffs, the
 * controller's describe, write, history, compare and restore answers, the forwarded events and the
 * log. And every planted key is listed in `undeclared` with a path that `mutate` `unset` removes.
 */
import type { Fiber } from 'cordis'
import fc from 'fast-check'
import Schema from 'schemastery'
import { PROTOTYPE_KEYS } from 'dsh-settings'
import { afterEach, describe, expect, it } from 'vitest'
import type { SettingsPathOpView } from '../src/index.ts'
import { plugController, plugProvider, plugServer, registerKind, rootContext } from './harness.ts'
import { KeepingMemoryProvider } from './keeping-provider.ts'

const SENTINEL = 'UNDECLARED-SENTINEL'
const NS = 'prop-kind'
const SCOPE = 'preset/prop'

// ---------------------------------------------------------------------------
// Random schemas, with values they accept and undeclared keys planted in them
// ---------------------------------------------------------------------------

type Fields = [string, Spec][]
type Spec =
  | { t: 'string' | 'number' | 'secret' | 'any' }
  | { t: 'object' | 'transform' | 'lazy'; fields: Fields }
  | { t: 'dict' | 'array'; inner: Spec }
  | { t: 'tuple'; items: Spec[] }
  /**
   * `union`: objects told apart by a required `kind` constant (`b0`, `b1`, …), the last a twin of
   * the first with every field a string, so one branch declares a scalar where another holds an object.
   * `intersect`: objects with disjoint keys.
   */
  | { t: 'union' | 'intersect'; parts: Fields[] }

/** Declared keys are lowercase letters, so a planted key (with a capital, a digit or a dash) is never one of them. */
const keyArb = fc.stringMatching(/^[a-z]{1,4}$/).filter((key) => key !== 'kind')
const plantedKeyArb = fc.constantFrom('apiKey', 'Token', 'old2', 'x-legacy')

function fieldsArb(depth: number, prefix = ''): fc.Arbitrary<Fields> {
  return fc.uniqueArray(fc.tuple(keyArb.map((key) => prefix + key), specArb(depth - 1)), { selector: ([key]) => key, maxLength: 3 })
}

function specArb(depth: number): fc.Arbitrary<Spec> {
  const leaf = fc.constantFrom<Spec>({ t: 'string' }, { t: 'number' }, { t: 'secret' }, { t: 'any' })
  if (depth <= 0) return leaf
  const partsArb = (t: 'union' | 'intersect') =>
    fc.integer({ min: 1, max: 3 }).chain((count) =>
      fc.tuple(...Array.from({ length: count }, (_, index) => fieldsArb(depth, t === 'intersect' ? 'xyz'[index] : ''))).map((parts) => ({
        t,
        parts: t === 'union' ? [...parts, parts[0]!.map(([key]): [string, Spec] => [key, { t: 'string' }])] : parts,
      })),
    )
  return fc.oneof(
    { arbitrary: leaf, weight: 3 },
    { arbitrary: fc.constantFrom('object' as const, 'transform' as const, 'lazy' as const).chain((t) => fieldsArb(depth).map((fields) => ({ t, fields }))), weight: 3 },
    { arbitrary: fc.constantFrom('dict' as const, 'array' as const).chain((t) => specArb(depth - 1).map((inner) => ({ t, inner }))), weight: 2 },
    { arbitrary: fc.array(specArb(depth - 1), { maxLength: 3 }).map((items) => ({ t: 'tuple' as const, items })), weight: 1 },
    { arbitrary: partsArb('union'), weight: 1 },
    { arbitrary: partsArb('intersect'), weight: 1 },
  )
}

function build(spec: Spec): Schema<any> {
  const object = (fields: Fields) => Schema.object(Object.fromEntries(fields.map(([key, field]) => [key, build(field)])))
  switch (spec.t) {
    case 'string': return Schema.string()
    case 'number': return Schema.number()
    case 'secret': return Schema.string().role('secret')
    case 'any': return Schema.any()
    case 'object': return object(spec.fields)
    case 'transform': return Schema.transform(object(spec.fields), (value) => value)
    case 'lazy': {
      const built = object(spec.fields)
      return Schema.lazy(() => built)
    }
    case 'dict': return Schema.dict(build(spec.inner))
    case 'array': return Schema.array(build(spec.inner))
    case 'tuple': return Schema.tuple(spec.items.map(build))
    case 'union': return Schema.union(spec.parts.map((fields, index) => Schema.object({ kind: Schema.const(`b${index}`).required(), ...object(fields).dict })))
    case 'intersect': return Schema.intersect(spec.parts.map(object))
  }
}

/** What a planted key holds: the sentinel, alone or inside a structure. */
const plantedValueArb = fc.oneof(
  fc.constant(SENTINEL),
  fc.constant({ nested: SENTINEL, other: 1 }),
  fc.constant([SENTINEL]),
)

function objectValueArb(fields: Fields): fc.Arbitrary<Record<string, unknown>> {
  const entries = fields.map(([key, spec]) => fc.option(valueArb(spec), { nil: undefined, freq: 4 }).map((value) => [key, value] as const))
  return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs.filter(([, value]) => value !== undefined)))
}

/** Whether `value` holds, at any depth, a key the seam refuses by design (`PROTOTYPE_KEYS`: `SETTINGS_BAD_INPUT`, reason `prototype-key`). */
function holdsPrototypeKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, item]) => PROTOTYPE_KEYS.has(key) || holdsPrototypeKey(item))
}

/**
 * JSON for an `any` field: whatever fast-check makes, less values with a prototype key, which the
 * seam refuses before any schema sees them (a base holding one cannot be registered at all).
 */
const anyValueArb = fc.jsonValue({ maxDepth: 1 }).filter((value) => !holdsPrototypeKey(value))

/** Values the schema of `spec` accepts. */
function valueArb(spec: Spec): fc.Arbitrary<unknown> {
  switch (spec.t) {
    case 'string': return fc.stringMatching(/^[a-z]{0,5}$/)
    case 'number': return fc.integer()
    case 'secret': return fc.stringMatching(/^[0-9a-f]{6}$/).map((hex) => `sk-${hex}`)
    case 'any': return anyValueArb
    case 'object':
    case 'transform':
    case 'lazy': return objectValueArb(spec.fields)
    case 'dict':
      return fc.uniqueArray(fc.tuple(keyArb, valueArb(spec.inner)), { selector: ([key]) => key, maxLength: 2 }).map((entries) => Object.fromEntries(entries))
    case 'array': return fc.array(valueArb(spec.inner), { maxLength: 2 })
    case 'tuple': return fc.tuple(...spec.items.map(valueArb))
    case 'union': return fc.oneof(...spec.parts.map((fields, index) => objectValueArb(fields).map((value) => ({ ...value, kind: `b${index}` }))))
    case 'intersect': return fc.tuple(...spec.parts.map(objectValueArb)).map((parts) => Object.assign({}, ...parts))
  }
}

/**
 * `value` (of `spec`) with undeclared keys planted at random: maybe one beside the declared keys of
 * each object, maybe items past a tuple's length. Nothing is planted under `any`, which declares
 * whatever it holds (and shows it).
 */
function plantedArb(spec: Spec, value: unknown): fc.Arbitrary<unknown> {
  const inObject = (fields: Fields, object: Record<string, unknown>) => {
    const declared = new Map(fields)
    const entries = Object.entries(object).map(([key, item]) => (declared.has(key) ? plantedArb(declared.get(key)!, item) : fc.constant(item)).map((planted) => [key, planted] as const))
    return fc
      .tuple(fc.tuple(...entries), fc.option(fc.tuple(plantedKeyArb, plantedValueArb), { nil: undefined, freq: 2 }))
      .map(([pairs, extra]) => ({ ...Object.fromEntries(pairs), ...(extra ? { [extra[0]]: extra[1] } : {}) }))
  }
  switch (spec.t) {
    case 'object':
    case 'transform':
    case 'lazy': return inObject(spec.fields, value as Record<string, unknown>)
    case 'union': {
      const index = Number(String((value as { kind: string }).kind).slice(1))
      return inObject([['kind', { t: 'string' }], ...spec.parts[index]!], value as Record<string, unknown>)
    }
    case 'intersect': return inObject(spec.parts.flat(), value as Record<string, unknown>)
    case 'dict': {
      const entries = Object.entries(value as Record<string, unknown>).map(([key, item]) => plantedArb(spec.inner, item).map((planted) => [key, planted] as const))
      return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs))
    }
    case 'array': return fc.tuple(...(value as unknown[]).map((item) => plantedArb(spec.inner, item)))
    case 'tuple':
      return fc
        .tuple(fc.tuple(...spec.items.map((item, index) => plantedArb(item, (value as unknown[])[index]))), fc.array(plantedValueArb, { maxLength: 2 }))
        .map(([items, extra]) => [...items, ...extra])
    default: return fc.constant(value)
  }
}

/**
 * A schema, and for each layer the same declared value with its own undeclared keys planted (the
 * layers merge into a value the schema takes), the root always holding one, so no case is vacuous.
 */
const caseArb = specArb(3).chain((spec) =>
  valueArb(spec).chain((body) => {
    const section = fc.tuple(plantedArb(spec, body), plantedKeyArb, plantedValueArb).map(([planted, key, value]) => ({ body: planted, [key]: value }) as Record<string, unknown>)
    return fc.record({ base: section, global: section, scoped: section, rewrite: section }).map((layers) => ({
      schema: Schema.object({ n: Schema.number().default(0), token: Schema.string().role('secret'), body: build(spec) }) as Schema<any>,
      ...layers,
    }))
  }),
)

// ---------------------------------------------------------------------------

const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

/** Unset ops for every listed path of one layer, latest first, so an array item's removal does not shift the next one's index. */
function unsetAll(paths: { path: string[]; layer: string }[], layer: string): SettingsPathOpView[] {
  return paths.filter((key) => key.layer === layer).reverse().map(({ path }) => ({ op: 'unset', path }))
}

describe('undeclared keys, property-based', () => {
  it('never reach describe, diffs, controller answers, events or logs, and mutate unsets each listed path', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ schema, base, global, scoped, rewrite }) => {
        const { root, logs } = rootContext()
        const { provider, fiber } = await plugProvider(root, KeepingMemoryProvider, { document: { [NS]: global, scopes: { [SCOPE]: { [NS]: scoped } } } })
        fibers.push(fiber)
        const { controller, fiber: controllerFiber } = await plugController(root, { opener: false })
        fibers.push(controllerFiber)
        const { server } = await plugServer({ root }, fibers)
        try {
          fibers.push(await registerKind(root, NS, schema, { base }))
          fibers.push(await registerKind(root, NS, schema, undefined, SCOPE))
          const answers: unknown[] = []
          // Not vacuous: in process, unredacted, the sentinel is there.
          expect(JSON.stringify(provider.describe({ scope: SCOPE }))).toContain(SENTINEL)

          const start = provider.document()
          answers.push(provider.describe({ redactSecrets: true }), provider.describe({ redactSecrets: true, scope: SCOPE }))
          answers.push(controller.describe(), controller.describe(SCOPE))
          answers.push(await controller.replace(NS, rewrite))
          answers.push(await controller.update(NS, { n: 1 }, null, SCOPE))
          answers.push(provider.diff(start), provider.diff({}))
          const { versions } = await controller.history()
          answers.push(versions)
          for (const { id } of versions) answers.push(await controller.compare(id))
          answers.push(await controller.restore(versions.at(-1)!.id))
          answers.push(await controller.restore(versions[0]!.id, { ns: NS, scope: SCOPE }))

          // Every planted key is listed, and its path is what `mutate` needs to remove it.
          const [globalView] = controller.describe().namespaces
          const [scopedView] = controller.describe(SCOPE).namespaces
          answers.push(await controller.mutate(NS, unsetAll(globalView!.undeclared, 'global'), globalView!.revision))
          answers.push(await controller.mutate(NS, unsetAll(scopedView!.undeclared, 'scope'), scopedView!.revision, SCOPE))
          const stored = provider.document()
          expect(JSON.stringify([stored[NS], stored.scopes?.[SCOPE]?.[NS]])).not.toContain(SENTINEL)
          expect(controller.describe(SCOPE).namespaces[0]!.undeclared.every((key) => key.layer === 'base')).toBe(true)

          answers.push(server.events, logs)
          const text = JSON.stringify(answers)
          expect(text).not.toContain(SENTINEL)
        } finally {
          for (const open of fibers.splice(0).reverse()) await open.dispose()
        }
        expect(JSON.stringify(logs)).not.toContain(SENTINEL)
      }),
      // Shrinking a whole deployment per step outlasts the test's time: report the first counterexample as found.
      { numRuns: 60, endOnFailure: true },
    )
  })
})
