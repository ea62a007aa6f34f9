/**
 * Which branch of a union the data means. Published plugins tell their
 * branches apart by a constant (an adapter's `protocol: ws`) or by the shape
 * of the value (`false` or an object of options); when the data fits one
 * branch only, a refusal is about that branch's fields, and what is missing is
 * that branch's values. Both the refusal walk (`refusal.ts`) and the search
 * for missing values (`needs-setup.ts`) read branches through here.
 */
import type Schema from 'schemastery'
import { isPlainObject } from './data.ts'
import { dataEqual } from './equal.ts'

const isNullable = (value: unknown): boolean => value === undefined || value === null

/**
 * Whether `data` holds a value where `schema` fixes a different constant: the
 * schema is that constant, or an object one of whose constant fields `data`
 * sets otherwise (looked for through intersections, wrappers, and a union all
 * of whose branches it contradicts). Absent data contradicts nothing.
 */
function contradicts(schema: Schema, data: unknown, depth = 0): boolean {
  if (isNullable(data) || depth > 32) return false
  switch (schema.type) {
    case 'const':
      return !dataEqual(data, schema.value)
    case 'intersect':
      return (schema.list ?? []).some((part) => contradicts(part, data, depth + 1))
    case 'union': {
      const list = schema.list ?? []
      return list.length > 0 && list.every((branch) => contradicts(branch, data, depth + 1))
    }
    case 'transform':
    case 'lazy':
      return isSchema(schema.inner) && contradicts(schema.inner, data, depth + 1)
    case 'object':
      // Only constant fields discriminate: a wrong value in another field is a refusal inside the branch, not another branch.
      return isPlainObject(data) && Object.entries(schema.dict ?? {}).some(([key, child]) => child.type === 'const' && contradicts(child, data[key], depth + 1))
    default:
      return false
  }
}

/**
 * Whether `schema` could take a value of `data`'s kind at all (an object for
 * an object or dict, a list for a list or tuple, a string, number or boolean
 * for that scalar); anything it cannot tell counts as fitting.
 */
function fits(schema: Schema, data: unknown, depth = 0): boolean {
  if (isNullable(data) || depth > 32) return true
  switch (schema.type) {
    case 'string':
      return typeof data === 'string'
    case 'number':
      return typeof data === 'number'
    case 'boolean':
      return typeof data === 'boolean'
    case 'object':
    case 'dict':
      return isPlainObject(data)
    case 'array':
    case 'tuple':
      return Array.isArray(data)
    case 'intersect':
      return (schema.list ?? []).every((part) => fits(part, data, depth + 1))
    case 'union':
      return (schema.list ?? []).some((branch) => fits(branch, data, depth + 1))
    case 'transform':
    case 'lazy':
      return !isSchema(schema.inner) || fits(schema.inner, data, depth + 1)
    default:
      return true
  }
}

/** Whether `schema` names `data` by a constant it holds: the constant itself, or a constant field `data` sets to that value. */
function confirms(schema: Schema, data: unknown, depth = 0): boolean {
  if (isNullable(data) || depth > 32) return false
  switch (schema.type) {
    case 'const':
      return dataEqual(data, schema.value)
    case 'intersect':
    case 'union':
      return (schema.list ?? []).some((part) => confirms(part, data, depth + 1))
    case 'transform':
    case 'lazy':
      return isSchema(schema.inner) && confirms(schema.inner, data, depth + 1)
    case 'object':
      return isPlainObject(data) && Object.entries(schema.dict ?? {}).some(([key, child]) => child.type === 'const' && confirms(child, data[key], depth + 1))
    default:
      return false
  }
}

/**
 * The branches `data` could mean: those it does not contradict and whose
 * kind it fits. Empty when it fits none.
 */
export function possibleBranches(list: readonly Schema[], data: unknown): Schema[] {
  return list.filter((branch) => !contradicts(branch, data) && fits(branch, data))
}

/**
 * The one branch of a union's `list` that `data` means, or `undefined` when
 * it cannot be told. Among the possible branches ({@link possibleBranches}),
 * the first of these that leaves exactly one: all of them; those whose
 * constant the data names; those whose required constant the data does not
 * lack; those declaring a key the data holds that no other possible branch
 * declares; those a form shows (not `hidden`).
 */
export function meantBranch(list: readonly Schema[], data: unknown): Schema | undefined {
  const possible = possibleBranches(list, data)
  const tiers: ((branch: Schema) => boolean)[] = [
    () => true,
    (branch) => confirms(branch, data),
    (branch) => !lacksConstant(branch, data),
    (branch) => ownKeys(branch, possible, data),
    (branch) => !branch.meta.hidden,
  ]
  for (const tier of tiers) {
    const narrowed = possible.filter(tier)
    if (narrowed.length === 1) return narrowed[0]
  }
  return undefined
}

/** Whether `schema` requires a constant field (a discriminator) that `data` does not hold. */
function lacksConstant(schema: Schema, data: unknown, depth = 0): boolean {
  if (depth > 32) return false
  switch (schema.type) {
    case 'intersect':
      return (schema.list ?? []).some((part) => lacksConstant(part, data, depth + 1))
    case 'union': {
      const list = schema.list ?? []
      return list.length > 0 && list.every((branch) => lacksConstant(branch, data, depth + 1))
    }
    case 'transform':
    case 'lazy':
      return isSchema(schema.inner) && lacksConstant(schema.inner, data, depth + 1)
    case 'object': {
      const value = isPlainObject(data) ? data : {}
      return Object.entries(schema.dict ?? {}).some(([key, child]) => child.type === 'const' && child.meta.required && isNullable(value[key]))
    }
    default:
      return false
  }
}

/** Whether `branch` declares a key `data` holds that no other of `possible` declares. */
function ownKeys(branch: Schema, possible: readonly Schema[], data: unknown): boolean {
  if (!isPlainObject(data)) return false
  const others = possible.filter((other) => other !== branch).map((other) => declaredKeys(other))
  const mine = declaredKeys(branch)
  return Object.keys(data).some((key) => mine.has(key) && others.every((keys) => !keys.has(key)))
}

/** The top-level keys `schema` declares, through intersections, unions and wrappers. */
function declaredKeys(schema: Schema, keys = new Set<string>(), depth = 0): Set<string> {
  if (depth > 32) return keys
  if (schema.type === 'object') for (const key of Object.keys(schema.dict ?? {})) keys.add(key)
  if (schema.type === 'intersect' || schema.type === 'union') for (const part of schema.list ?? []) declaredKeys(part, keys, depth + 1)
  if ((schema.type === 'transform' || schema.type === 'lazy') && isSchema(schema.inner)) declaredKeys(schema.inner, keys, depth + 1)
  return keys
}

/**
 * When every branch of `list` fixes a constant at one key (an adapter's
 * `protocol`) and `data` holds there a value none of them takes: that key and
 * the constants the branches take, in order. `undefined` otherwise.
 */
export function refusedDiscriminator(list: readonly Schema[], data: unknown): { key: string; values: unknown[] } | undefined {
  if (!isPlainObject(data) || !list.length) return undefined
  const [head, ...rest] = list.map((branch) => constantFields(branch))
  for (const [key, values] of head!) {
    if (isNullable(data[key]) || !rest.every((fields) => fields.has(key))) continue
    const all = [...values, ...rest.flatMap((fields) => fields.get(key)!)]
    if (all.every((value) => !dataEqual(data[key], value))) return { key, values: all.filter((value, index) => all.findIndex((other) => dataEqual(other, value)) === index) }
  }
  return undefined
}

/** The constant fields of `schema`'s top level, key to the constants it takes there (a union's branches', all together). */
function constantFields(schema: Schema, depth = 0): Map<string, unknown[]> {
  const fields = new Map<string, unknown[]>()
  if (depth > 32) return fields
  const add = (key: string, values: unknown[]) => fields.set(key, [...(fields.get(key) ?? []), ...values])
  if (schema.type === 'object') for (const [key, child] of Object.entries(schema.dict ?? {})) if (child.type === 'const') add(key, [child.value])
  if (schema.type === 'intersect') for (const part of schema.list ?? []) for (const [key, values] of constantFields(part, depth + 1)) add(key, values)
  if ((schema.type === 'transform' || schema.type === 'lazy') && isSchema(schema.inner)) return constantFields(schema.inner, depth + 1)
  if (schema.type === 'union') {
    const each = (schema.list ?? []).map((branch) => constantFields(branch, depth + 1))
    for (const [key] of each[0] ?? []) if (each.every((branchFields) => branchFields.has(key))) add(key, each.flatMap((branchFields) => branchFields.get(key)!))
  }
  return fields
}

/** Whether a `lazy` or `transform` schema's `inner` is a built schema (a lazy one is a stub until first used). */
function isSchema(inner: Schema | undefined): inner is Schema {
  return typeof inner === 'function' && typeof inner.type === 'string'
}
