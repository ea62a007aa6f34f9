/**
 * Schemas for the secret scan: one `role('secret')` leaf wrapped in a chain of
 * positions (object, array item, tuple slot, dict value, union branch,
 * intersect, transform, lazy) under a top-level field, the whole section
 * optionally recursive (the secret one level down the recursion). Each
 * generated schema knows the value that puts a secret at its leaf, the path
 * of that leaf, and where its unions' discriminators are, so the scan can set
 * the secret by every way in and switch each union's branch afterwards.
 */
import { randomBytes, randomInt } from 'node:crypto'
import fc from 'fast-check'
import Schema from 'schemastery'

type AnySchema = Schema<any, any>

/** A position around the secret; `[]` alone is a top-level secret field. */
export const WRAPPERS = ['object', 'array', 'tuple', 'dict', 'union', 'intersect', 'transform', 'lazy'] as const
export type Wrapper = (typeof WRAPPERS)[number]

/** The secret itself: a string, a string with a secret default, a secret on a transform of a plain string, or a number. */
export const LEAVES = ['string', 'string with default', 'secret transform', 'number'] as const
export type Leaf = (typeof LEAVES)[number]

/** What one scan case registers. */
export interface SecretPlan {
  /** Outermost first. */
  chain: Wrapper[]
  leaf: Leaf
  /** Register under `preset/x` too, and write the scope's section. */
  scoped: boolean
  /** Register with a `base` layer holding a secret. */
  withBase: boolean
  /**
   * Make the section schema recursive (`children: array(lazy(() => section))`) and put the secret in
   * `children[0]`. Only the root may be the target of a recursion: schemastery's `toJSON` overflows
   * the stack on a recursion to any other node, and the registration fails.
   */
  recursive: boolean
}

/** A built plan: the schema and how to address its secret. */
export interface SecretSchema {
  plan: SecretPlan
  label: string
  schema: AnySchema
  /** The section value with `secret` at the leaf (and the note field). */
  section(secret: string | number, note?: string): Record<string, unknown>
  /** The leaf's path inside the section. */
  leafPath: string[]
  /** The top-level field holding the secret and its value, for a mutate that sets the whole field. */
  top: { path: string[]; value(secret: string | number): unknown }
  /** The paths (inside the section) of each union's value, where its discriminator `kind` lives. */
  unions: string[][]
  /** Secrets the schema itself holds: its default and its base layer. */
  builtIn: (string | number)[]
}

/** A fresh string secret: a marker on both ends (a cut copy still shows one) around random letters. */
export function freshSecret(): string {
  return `SEKRIT${randomBytes(8).toString('hex')}TERCES`
}

/** A fresh numeric secret: 15 digits starting `77`, a safe integer no revision or timestamp looks like. */
export function freshNumber(): number {
  return 77 * 10 ** 13 + randomInt(10 ** 12, 10 ** 13 - 1)
}

interface Built {
  schema: AnySchema
  value(leaf: unknown): unknown
  path: string[]
  unions: string[][]
}

function wrap(wrapper: Wrapper, inner: Built): Built {
  const under = (prefix: string[]) => inner.unions.map((path) => [...prefix, ...path])
  switch (wrapper) {
    case 'object':
      return { schema: Schema.object({ plain: Schema.string().default('p'), inner: inner.schema }), value: (leaf) => ({ inner: inner.value(leaf) }), path: ['inner', ...inner.path], unions: under(['inner']) }
    case 'array':
      return { schema: Schema.array(inner.schema).default([]), value: (leaf) => [inner.value(leaf)], path: ['0', ...inner.path], unions: under(['0']) }
    case 'tuple':
      return { schema: Schema.tuple([Schema.string(), inner.schema]), value: (leaf) => ['first', inner.value(leaf)], path: ['1', ...inner.path], unions: under(['1']) }
    case 'dict':
      return { schema: Schema.dict(inner.schema).default({}), value: (leaf) => ({ entry: inner.value(leaf) }), path: ['entry', ...inner.path], unions: under(['entry']) }
    case 'union':
      // Branch `a` holds the secret; branch `b` does not know that key, so a switch to `b` leaves it in the value.
      return {
        schema: Schema.union([
          Schema.object({ kind: Schema.const('a').required(), v: inner.schema }),
          Schema.object({ kind: Schema.const('b').required(), other: Schema.string().default('o') }),
        ]),
        value: (leaf) => ({ kind: 'a', v: inner.value(leaf) }),
        path: ['v', ...inner.path],
        unions: [[], ...under(['v'])],
      }
    case 'intersect':
      return { schema: Schema.intersect([Schema.object({ i: Schema.string().default('i') }), Schema.object({ inner: inner.schema })]), value: (leaf) => ({ inner: inner.value(leaf) }), path: ['inner', ...inner.path], unions: under(['inner']) }
    case 'transform':
      return { schema: Schema.transform(inner.schema, (value) => value), value: inner.value, path: inner.path, unions: inner.unions }
    case 'lazy':
      return { schema: Schema.lazy(() => inner.schema), value: inner.value, path: inner.path, unions: inner.unions }
  }
}

function leafSchema(leaf: Leaf, fallback: string): AnySchema {
  switch (leaf) {
    case 'string':
      return Schema.string().role('secret')
    case 'string with default':
      return Schema.string().role('secret').default(fallback)
    case 'secret transform':
      return Schema.transform(Schema.string(), (value) => value).role('secret')
    case 'number':
      return Schema.number().role('secret')
  }
}

/** Build `plan` into a schema whose top-level field `field` holds the chain. */
export function buildSecretSchema(plan: SecretPlan): SecretSchema {
  const fallback = freshSecret()
  let built: Built = { schema: leafSchema(plan.leaf, fallback), value: (leaf) => leaf, path: [], unions: [] }
  for (const wrapper of [...plan.chain].reverse()) built = wrap(wrapper, built)
  const fields = { field: built.schema, note: Schema.string().default('n'), count: Schema.natural().default(0) }
  const down = plan.recursive ? ['children', '0'] : []
  let schema: AnySchema = Schema.object(fields)
  if (plan.recursive) {
    const node: AnySchema = Schema.object({ ...fields, children: Schema.array(Schema.lazy(() => node)).default([]) })
    schema = node
  }
  const fieldValue = (secret: string | number) => (plan.recursive ? [{ field: built.value(secret) }] : built.value(secret))
  const top = { path: [plan.recursive ? 'children' : 'field'], value: fieldValue }
  const section = (secret: string | number, note?: string) => ({ [top.path[0]!]: fieldValue(secret), ...(note === undefined ? {} : { note }) })
  const label = `${[...(plan.recursive ? ['recursive'] : []), ...plan.chain, plan.leaf].join(' > ')}${plan.scoped ? ' (scoped)' : ''}${plan.withBase ? ' (with base)' : ''}`
  return {
    plan,
    label,
    schema,
    section,
    top,
    leafPath: [...down, 'field', ...built.path],
    unions: built.unions.map((path) => [...down, 'field', ...path]),
    builtIn: plan.leaf === 'string with default' ? [fallback] : [],
  }
}

/** The chains of the first pass: the top-level field, each wrapper alone, and a recursive section (around an object). */
const FIRST_PASS: readonly Wrapper[][] = [[], ...WRAPPERS.map((wrapper) => [wrapper]), ['object']]

/** How many plans cover every position once: a run always tries at least these. */
export const FIRST_PASS_PLANS = FIRST_PASS.length

/**
 * Every position once (each wrapper alone around each kind of leaf, scoped
 * and with a base by turns, then a recursive section), then random chains of
 * up to three wrappers.
 */
export function* secretPlans(): Generator<SecretPlan> {
  let turn = 0
  for (const chain of FIRST_PASS) {
    turn++
    yield { chain, leaf: LEAVES[turn % LEAVES.length]!, scoped: turn % 3 === 0, withBase: turn % 4 === 1, recursive: turn === FIRST_PASS.length }
  }
  const random = fc.record({
    chain: fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 3 }),
    leaf: fc.constantFrom(...LEAVES),
    scoped: fc.boolean(),
    withBase: fc.boolean(),
    recursive: fc.boolean(),
  })
  for (;;) yield* fc.sample(random, 20)
}
