/**
 * What a schema declares at one place inside its data, for a tool that types
 * and checks one value before writing it (the `dsh settings set` command): the
 * schema (or, where the data cannot tell a union's branches apart, the few
 * schemas) a value at that place is judged by, whether the place is a secret,
 * or where the path leaves what the schema declares and which names it
 * declares there. Unions are read through the branch the data means, the same
 * judgment the seam's refusals make (`branch.ts`).
 */
import Schema from 'schemastery'
import { meantBranch, possibleBranches } from './branch.ts'
import { isPlainObject, valueAt, withoutPaths } from './data.ts'
import { SettingsValidationError } from './errors.ts'
import { formatPath } from './json.ts'
import { createRedactor } from './redact.ts'
import { applySchema } from './resolve.ts'
import { unlazy } from './schema-nodes.ts'
import type { SettingsSchema } from './types.ts'

type AnySchema = SettingsSchema<any>

/** Why a path segment leaves what the schema declares. */
export type UndeclaredReason =
  /** An object (or every branch the data may mean) declares no such key. */
  | 'no-key'
  /** A list or tuple is entered by item number (a decimal), and a tuple only below its length. */
  | 'not-an-item'
  /** The place above holds a single value (a string, number, boolean or constant): nothing is inside it. */
  | 'no-children'

/** A place the schema declares. */
export interface DeclaredPlace {
  declared: true
  /**
   * The schema a value there is judged by; several when the data leaves a
   * union's branch open and more than one branch declares the place (any of
   * them may take the value).
   */
  schemas: AnySchema[]
  /** The place is a secret (`role('secret')`), or lies inside one. */
  secret: boolean
  /** The place is a secret or holds one somewhere below (a list of objects with tokens, say). */
  holdsSecret: boolean
}

/** A path that leaves what the schema declares. */
export interface UndeclaredPlace {
  declared: false
  /** How many leading segments of the path the schema declares (the next one is refused). */
  depth: number
  reason: UndeclaredReason
  /** The keys declared at that level (of every branch the data may mean), in declaration order. */
  names: string[]
}

/** What {@link schemaAt} answers. */
export type SchemaPlace = DeclaredPlace | UndeclaredPlace

/** One level down from a node: the schemas the segment leads to, or why it leads nowhere, and the names declared there. */
interface Step {
  children: AnySchema[]
  names: string[]
  reason: UndeclaredReason
}

const ITEM = /^(0|[1-9][0-9]*)$/
/** schemastery's word for a required value that is absent. */
const MISSING = 'missing required value'
const MAX_DEPTH = 64

function isSecretNode(node: AnySchema): boolean {
  return node.meta?.role === 'secret'
}

/** Whether a node only takes constants (a constant, or a union of them): a discriminator, when a union's branches hold it. */
function isConstant(input: AnySchema, depth = 0): boolean {
  const { node } = unwrap(input)
  if (node.type === 'const') return true
  return node.type === 'union' && depth < MAX_DEPTH && (node.list ?? []).every((branch) => isConstant(branch, depth + 1))
}

/** A node with the wrappers (`lazy`, `transform`) it sits in looked through, and whether any of them was a secret. */
function unwrap(input: AnySchema): { node: AnySchema; secret: boolean } {
  let node = input
  let secret = isSecretNode(input)
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    node = unlazy(node)
    secret ||= isSecretNode(node)
    if (node.type !== 'transform' || typeof node.inner !== 'function') break
    node = node.inner
  }
  return { node, secret }
}

function combine(steps: Step[]): Step {
  const children = [...new Set(steps.flatMap((step) => step.children))]
  const names = [...new Set(steps.flatMap((step) => step.names))]
  // The most telling reason: a missing key over a missing item over a scalar.
  const reason = steps.find((step) => step.reason === 'no-key')?.reason ?? steps[0]?.reason ?? 'no-children'
  return { children, names, reason }
}

/** Where `segment` leads from `input`, given the data at that level (`data`, which chooses a union's branch). */
function step(input: AnySchema, segment: string, data: unknown, depth = 0): Step {
  const { node } = unwrap(input)
  if (depth > MAX_DEPTH) return { children: [], names: [], reason: 'no-children' }
  switch (node.type) {
    case 'object': {
      const dict = node.dict ?? {}
      return { children: Object.hasOwn(dict, segment) ? [dict[segment]!] : [], names: Object.keys(dict), reason: 'no-key' }
    }
    case 'dict':
      return { children: node.inner ? [node.inner] : [Schema.any()], names: [], reason: 'no-key' }
    case 'array':
      return { children: ITEM.test(segment) && node.inner ? [node.inner] : [], names: [], reason: 'not-an-item' }
    case 'tuple': {
      const item = ITEM.test(segment) ? node.list?.[Number(segment)] : undefined
      return { children: item ? [item] : [], names: [], reason: 'not-an-item' }
    }
    case 'intersect':
      // Merged: a key any part declares is declared, judged by every part that declares it.
      return combine((node.list ?? []).map((part) => step(part, segment, data, depth + 1)))
    case 'union': {
      const list = node.list ?? []
      const meant = meantBranch(list, data)
      if (meant) {
        const found = step(meant, segment, data, depth + 1)
        // A constant there is what tells the branches apart: a write to it may choose another branch.
        if (found.children.length && !found.children.every(isConstant)) return found
      }
      // The data leaves the branch open (or its guess does not declare the place): every branch it could mean counts.
      const possible = possibleBranches(list, data)
      return combine((possible.length ? possible : list).map((branch) => step(branch, segment, data, depth + 1)))
    }
    case 'any':
    case 'is':
    case 'function':
      // Opaque to the schema: whatever lies inside is the plugin's to judge.
      return { children: [Schema.any()], names: [], reason: 'no-key' }
    default:
      return { children: [], names: [], reason: 'no-children' }
  }
}

/**
 * What `schema` declares at `path` inside `data` (a section, as the plugin
 * reads it). Objects are entered by key, dicts by any key, lists by item number
 * (a decimal segment), tuples by item number below their length,
 * intersections as one merged object, and unions through the branch `data`
 * means (`meantBranch` in `branch.ts`: its discriminator constant, else the
 * only branch it fits). What `data` holds at `path` itself is left out of that
 * judgment, since a write there replaces it: setting an adapter's `protocol`
 * switches branches instead of being judged by the current one. Where the
 * data leaves a union open, every branch it could mean that declares the next
 * segment counts, so {@link DeclaredPlace.schemas} may hold several.
 * Nothing is run but the schema's own data (no transform or `is` callback).
 */
export function schemaAt(schema: AnySchema, path: readonly string[], data: unknown): SchemaPlace {
  const rest = path.length ? withoutPaths(data, [path]) : undefined
  let nodes: AnySchema[] = [schema]
  let secret = unwrap(schema).secret
  for (let depth = 0; depth < path.length; depth++) {
    // A write through a single value replaces it with an object (`applyPathOps`): that value chooses no branch.
    const holder = valueAt(rest, path.slice(0, depth))
    const here = isPlainObject(holder) || Array.isArray(holder) ? holder : undefined
    const found = combine(nodes.map((node) => step(node, path[depth]!, here)))
    if (!found.children.length) return { declared: false, depth, reason: found.reason, names: found.names }
    nodes = found.children
    secret ||= nodes.some((node) => unwrap(node).secret)
  }
  const holdsSecret = secret || nodes.some((node) => createRedactor(node).hasSecrets)
  return { declared: true, schemas: nodes, secret, holdsSecret }
}

/** Why a place refuses a value: where below it (empty for the place itself) and what it expects, never the value. */
export interface PlaceRefusal {
  path: string[]
  /** What the schema expects there (`expected number <= 50`, `missing required value`, or `is invalid`). */
  expected: string
}

/**
 * Whether a value for a declared place is accepted by one of its schemas (the
 * value alone, as the place's schema judges it; the section it goes into may
 * still be refused as a whole). `undefined` when one accepts; else the first
 * schema's refusal, at the field inside the value the data means, naming what
 * it expects and never what it got. A value that only lacks a required value
 * inside it is not refused here: a later write may give that (setup of a
 * waiting plugin goes one value at a time), and the section's own judgment
 * names what is still missing.
 */
export function refusalAt(place: DeclaredPlace, value: unknown): PlaceRefusal | undefined {
  let first: PlaceRefusal | undefined
  let incomplete = false
  for (const schema of place.schemas) {
    const refusal = judge(schema, value)
    if (!refusal) return undefined
    if (refusal.expected === MISSING) incomplete = true
    else first ??= refusal
  }
  // Lacking a required value is not this value's fault; what it does hold is still judged, value by value.
  return incomplete ? leafRefusal(place, value) : first
}

/** `schema`'s refusal of `value` alone, or `undefined` when it accepts it. */
function judge(schema: AnySchema, value: unknown): PlaceRefusal | undefined {
  try {
    applySchema(schema, value, { ns: 'value' })
    return undefined
  } catch (error) {
    if (!(error instanceof SettingsValidationError)) throw error
    return { path: [...error.path], expected: expectedIn(error) }
  }
}

/** How many single values inside a structured value are judged one by one. */
const MAX_LEAVES = 1000

/** The paths of the single values (not objects or lists) inside `value`, at most {@link MAX_LEAVES}. */
function leafPaths(value: unknown, path: string[] = [], found: string[][] = []): string[][] {
  if (found.length >= MAX_LEAVES || path.length > MAX_DEPTH) return found
  if (Array.isArray(value)) value.forEach((item, index) => leafPaths(item, [...path, String(index)], found))
  else if (isPlainObject(value)) for (const key of Object.keys(value)) leafPaths(value[key], [...path, key], found)
  else if (path.length) found.push(path)
  return found
}

/** The first single value inside `value` that the schema at its own place refuses (other than as missing). */
function leafRefusal(place: DeclaredPlace, value: unknown): PlaceRefusal | undefined {
  for (const path of leafPaths(value)) {
    const schemas = place.schemas.flatMap((schema) => {
      const found = schemaAt(schema, path, value)
      return found.declared ? found.schemas : []
    })
    const refusals = schemas.map((schema) => judge(schema, valueAt(value, path)))
    if (!schemas.length || refusals.some((refusal) => !refusal || refusal.expected === MISSING)) continue
    return { path: [...path, ...refusals[0]!.path], expected: refusals[0]!.expected }
  }
  return undefined
}

/**
 * The expectation a refusal's message states. The seam builds it as
 * `settings "value" is invalid at <path>: <expected>`, without the value; the
 * path there shows a list's item as `[0]` and a key `0` as `.0`-style text, so
 * both renderings are tried.
 */
function expectedIn(error: SettingsValidationError): string {
  const renderings = [formatPath(error.path.map((segment) => (ITEM.test(segment) ? Number(segment) : segment))), formatPath(error.path)]
  for (const rendered of renderings) {
    const prefix = `settings "value" is invalid at ${rendered}: `
    if (error.message.startsWith(prefix)) return error.message.slice(prefix.length)
  }
  return 'is invalid'
}
