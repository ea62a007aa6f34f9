/**
 * Where a schema refuses data, as deep as the data's meaning allows.
 * schemastery reports a union it cannot match at the union itself ("expected
 * {…http…} | {…ws…}"), dropping why each branch refused. When the data means
 * one branch (its `protocol: ws`, or the only branch it fits; see
 * `branch.ts`), the refusal that matters is that branch's own: the field
 * inside it and what that field wants. This walk finds it, through objects,
 * lists, dicts, intersections, wrappers and unions at any depth.
 */
import Schema from 'schemastery'
import { copyData, isPlainObject } from './data.ts'
import { meantBranch, refusedDiscriminator } from './branch.ts'

/** A refusal: where inside the data (schemastery's path segments) and schemastery's message there. */
export interface Refusal {
  path: PropertyKey[]
  /** schemastery's message with its `$`-path prefix; it may quote the received value. */
  message: string
  /** What the place expects, when this walk says it (then it quotes no data and `message` is not used). */
  expected?: string
}

type Path = readonly PropertyKey[]

const MAX_DEPTH = 64
const isNullable = (value: unknown): boolean => value === undefined || value === null

/** `error` as a refusal, when it is schemastery's; `undefined` for any other throw. */
export function refusalOf(error: unknown): Refusal | undefined {
  return Schema.ValidationError.is(error) ? { path: [...(error.options.path ?? [])], message: error.message } : undefined
}

/**
 * The deepest refusal of `data` by `schema` that the data's meaning points
 * at, or `undefined` when the schema accepts the data. Works on copies:
 * schemastery writes adapted values into what it resolves.
 */
export function findRefusal(schema: Schema, data: unknown): Refusal | undefined {
  return locate(schema, data, [], false, 0)
}

/**
 * Run `schema` over a copy of `data` at `path`: its refusal, or `undefined`.
 * Another throw (a transform's callback) is a refusal at `path` whose text is not kept: it may quote the data.
 */
function attempt(schema: Schema, data: unknown, path: Path, strict: boolean): Refusal | undefined {
  try {
    Schema.resolve(copyData(data), schema, { path: [...path] }, strict)
    return undefined
  } catch (error) {
    return refusalOf(error) ?? { path: [...path], message: 'is invalid' }
  }
}

/** What schemastery resolves in place of absent data: the schema's default (an intersection's first part's, when it has none). */
function effective(schema: Schema, data: unknown): unknown {
  if (!isNullable(data) || schema.type === 'lazy') return data
  let current: Schema | undefined = schema
  let fallback = schema.meta.default
  while (current?.type === 'intersect' && isNullable(fallback)) {
    current = current.list?.[0]
    fallback = current?.meta.default
  }
  return isNullable(fallback) ? data : copyData(fallback)
}

function locate(schema: Schema, data: unknown, path: Path, strict: boolean, depth: number): Refusal | undefined {
  const refusal = attempt(schema, data, path, strict)
  if (!refusal || depth > MAX_DEPTH) return refusal
  const value = effective(schema, data)
  const deeper = (child: Schema, item: unknown, at: Path, childStrict = false) => locate(child, item, at, childStrict, depth + 1)
  return inside(schema, value, path, strict, deeper) ?? refusal
}

type Deeper = (child: Schema, item: unknown, at: Path, strict?: boolean) => Refusal | undefined

/** The first refusal among `schema`'s parts that `value` meets, in the order schemastery resolves them; `undefined` to keep the node's own. */
function inside(schema: Schema, value: unknown, path: Path, strict: boolean, deeper: Deeper): Refusal | undefined {
  switch (schema.type) {
    case 'object':
      if (!isPlainObject(value)) return undefined
      return first(Object.entries(schema.dict ?? {}), ([key, child]) => deeper(child, value[key], [...path, key]))
    case 'dict':
      // A key its key schema refuses is the dict's own refusal: only values are entered.
      if (!isPlainObject(value) || !schema.inner) return undefined
      return first(Object.keys(value), (key) => deeper(schema.inner!, value[key], [...path, key]))
    case 'array':
      if (!Array.isArray(value) || !schema.inner) return undefined
      return first(value.map((item, index) => [item, index] as const), ([item, index]) => deeper(schema.inner!, item, [...path, index]))
    case 'tuple':
      if (!Array.isArray(value)) return undefined
      return first(schema.list ?? [], (child, index) => deeper(child, value[index], [...path, index]))
    case 'intersect':
      // schemastery resolves each part strictly, in order; a conflict between parts that all accept stays the intersection's.
      return first(schema.list ?? [], (part) => deeper(part, value, path, true))
    case 'union': {
      const branch = meantBranch(schema.list ?? [], value)
      if (branch) return deeper(branch, value, path, strict)
      // No branch takes the data's discriminator (`protocol: htp`): the refusal is that field's.
      const refused = refusedDiscriminator(schema.list ?? [], value)
      const expected = refused && `expected ${refused.values.map((constant) => JSON.stringify(constant)).join(' | ')}`
      return refused && { path: [...path, refused.key], message: '', expected }
    }
    case 'transform':
      return schema.inner && deeper(schema.inner, value, path, true)
    case 'lazy':
      return schema.inner && typeof schema.inner.type === 'string' ? deeper(schema.inner, value, path, strict) : undefined
    default:
      return undefined
  }
}

function first<T>(items: readonly T[], find: (item: T, index: number) => Refusal | undefined): Refusal | undefined {
  for (let index = 0; index < items.length; index++) {
    const found = find(items[index]!, index)
    if (found) return found
  }
  return undefined
}
