/**
 * JSON Schema (draft 2020-12) for the settings document, built from the
 * schemastery schemas of the registered kinds, so an editor (the YAML language
 * server, say) can complete and check `settings.yaml` while the user types.
 *
 * Pure: nothing here reads a document or keeps state between calls. Schemas
 * are only read, with two exceptions that schemastery and the seam make
 * anyway: a lazy schema's builder runs on first use, and a default holding
 * secrets goes through the seam's redactor, which tries it against union branches.
 *
 * The guiding rule: whatever the seam accepts, the JSON Schema accepts too,
 * so an editor never flags a section the seam would take. Where schemastery's
 * rule cannot be said exactly, the JSON Schema says less (it is looser), never
 * more. The exceptions: the document's own shape, where keys the seam ignores
 * with a warning are flagged (see {@link settingsJsonSchema}), and a string's
 * lower length bound (see the `string` case of `Converter.core`).
 */
import { localizedText } from './locale.ts'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import type Schema from 'schemastery'
import { isPlainObject, setOwn } from './data.ts'
import { SCOPES_KEY } from './document.ts'
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES } from './ids.ts'
import { SECTION_VERSION_KEY } from './migration-types.ts'
import { createRedactor, unlazy, type Redactor } from './redact.ts'
import { orReference, REFERENCE_DEF, referenceSchema } from './json-schema-references.ts'

export { REFERENCE_DEF } from './json-schema-references.ts'

type AnySchema = Schema<any, any>

/** The value types of JSON Schema's `type` keyword. */
export type JsonSchemaType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string'

/**
 * One JSON Schema (2020-12) object, limited to the keywords this module
 * writes. `doNotSuggest` is not part of the standard: it is the editor hint
 * (understood by the VS Code JSON and YAML language services) that a field
 * should not be offered in completion; see {@link JSON_SCHEMA_EXTRA_KEYWORDS}.
 */
export interface JsonSchema {
  $ref?: string
  $defs?: Record<string, JsonSchema>
  title?: string
  description?: string
  default?: unknown
  deprecated?: boolean
  writeOnly?: boolean
  doNotSuggest?: boolean
  type?: JsonSchemaType | JsonSchemaType[]
  const?: unknown
  enum?: unknown[]
  anyOf?: JsonSchema[]
  allOf?: JsonSchema[]
  not?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: JsonSchema | false
  propertyNames?: JsonSchema
  prefixItems?: JsonSchema[]
  items?: JsonSchema
  minItems?: number
  maxItems?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  multipleOf?: number
}

/** The JSON Schema of a whole settings document, as {@link settingsJsonSchema} builds it. */
export interface JsonSchemaDocument extends JsonSchema {
  $schema: typeof JSON_SCHEMA_DIALECT
  $id?: string
  type: 'object'
  properties: Record<string, JsonSchema>
  additionalProperties: false
  $defs: Record<string, JsonSchema>
}

/** One registered kind as {@link settingsJsonSchema} reads it: its namespace, its schema, and an optional title for editors. */
export interface SettingsJsonSchemaKind {
  ns: string
  schema: AnySchema
  title?: string
}

/** Options of {@link settingsJsonSchema}. */
export interface SettingsJsonSchemaOptions {
  /** The document schema's `$id`, for an editor that maps schemas to files by URI. */
  $id?: string
  /**
   * The locale descriptions are written in when a schema gives them per locale
   * (`zh-CN` falls back to `zh`, `en-US`, `en`, the untagged text, the first). Default `en-US`.
   */
  locale?: string
  /**
   * Whether every value position also takes a reference the provider
   * resolves: `{ "$secret": name }`, `{ "$env": variable }` or `{ "$file": path }`
   * (exactly one key, a non-empty string), defined once under `$defs` as
   * {@link REFERENCE_DEF}. Default `true`; `false` describes values as the schema resolves them.
   */
  references?: boolean
}

/** The `$schema` a document schema declares: JSON Schema draft 2020-12. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema' as const

/**
 * Keywords outside the 2020-12 vocabularies that the schemas built here may
 * hold. Editors read them as hints; a validator that refuses unknown keywords
 * (ajv in its default strict mode) must be told about them first, for
 * example with `ajv.addVocabulary([...JSON_SCHEMA_EXTRA_KEYWORDS])`.
 */
export const JSON_SCHEMA_EXTRA_KEYWORDS: readonly string[] = Object.freeze(['doNotSuggest'])

/** Matches no value at all. */
const NEVER: () => JsonSchema = () => ({ not: {} })

/** Flags under which a node is converted; a node is converted once per distinct set (see `Converter.node`). */
interface NodeFlags {
  /**
   * The value here may be `null` (or absent) when it reaches schemastery: a
   * section, an object property, a dict value, an array or tuple item. Union
   * branches, intersection parts and a transform's inner schema only ever see
   * what their parent let through, which is never `null`.
   */
  entry: boolean
  /** schemastery's `strict` flag, set inside intersections and transforms: unknown keys are dropped, not refused. */
  strict: boolean
  /**
   * The value is whole: it sits inside an array or tuple, which a higher layer
   * replaces rather than merges into, so a required field must be present.
   */
  complete: boolean
  /** Under a `role('secret')` node: no value of the schema (default, constant) may be written out. */
  secret: boolean
  /**
   * The value is a whole section: the seam reads a `null` section as no section
   * (the layers below apply), so `null` passes there whatever the schema says of a
   * missing value, as an absent section does.
   */
  section?: boolean
}


/** A deep copy of `value` when it is JSON data (finite numbers, plain objects, arrays), else `undefined`. */
function jsonCopy(value: unknown): { value: unknown } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { value }
  if (typeof value === 'number') return Number.isFinite(value) ? { value } : undefined
  if (Array.isArray(value)) {
    const items: unknown[] = []
    for (const item of value) {
      const copy = jsonCopy(item)
      if (!copy) return undefined
      items.push(copy.value)
    }
    return { value: items }
  }
  if (isPlainObject(value)) {
    const result: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      // JSON has no `undefined`: an entry holding it is left out, as JSON.stringify does.
      if (value[key] === undefined) continue
      const copy = jsonCopy(value[key])
      if (!copy) return undefined
      setOwn(result, key, copy.value)
    }
    return { value: result }
  }
  return undefined
}

/** The JSON type of a JSON value. */
function jsonTypeOf(value: unknown): JsonSchemaType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value as 'string' | 'number' | 'boolean' | 'object'
}

function isEmptyContainer(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isPlainObject(value) && Object.keys(value).length === 0
}

/** A length bound (string length, item count) as JSON Schema's non-negative integer, or `undefined` when it bounds nothing. */
function lowerCount(min: unknown): number | undefined {
  return typeof min === 'number' && Number.isFinite(min) && min > 0 ? Math.ceil(min) : undefined
}
function upperCount(max: unknown): number | undefined {
  return typeof max === 'number' && Number.isFinite(max) ? Math.max(0, Math.floor(max)) : undefined
}

/** Whether `schema` is nothing but the given keys (no annotation, no other assertion). */
function only(schema: JsonSchema, ...keys: (keyof JsonSchema)[]): boolean {
  const own = Object.keys(schema)
  return own.length === keys.length && keys.every((key) => own.includes(key))
}

function typesOf(schema: JsonSchema): JsonSchemaType[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]
}

function setTypes(schema: JsonSchema, types: JsonSchemaType[]): void {
  schema.type = types.length === 1 ? types[0]! : types
}

function isNever(schema: JsonSchema): boolean {
  return only(schema, 'not') && Object.keys(schema.not!).length === 0
}

/**
 * `core`, made to accept `null` as well: schemastery reads a `null` (a YAML
 * empty value) where the schema is not required as "use the default". Done in
 * place where a type list or value list can simply take `null`, by wrapping otherwise.
 */
function acceptNull(core: JsonSchema): JsonSchema {
  if (Object.keys(core).length === 0) return core
  if (isNever(core)) return { type: 'null' }
  if (core.anyOf || core.allOf || core.not || core.$ref) {
    if (core.anyOf && !core.allOf && !core.not && !core.$ref && !core.type) {
      if (!core.anyOf.some((branch) => typesOf(branch).includes('null') || (only(branch, 'const') && branch.const === null))) core.anyOf.push({ type: 'null' })
      return core
    }
    return { anyOf: [core, { type: 'null' }] }
  }
  if (core.type !== undefined && !typesOf(core).includes('null')) setTypes(core, [...typesOf(core), 'null'])
  if (core.enum && !core.enum.includes(null)) core.enum.push(null)
  if ('const' in core && core.const !== null) {
    core.enum = [core.const, null]
    delete core.const
  }
  return core
}

/**
 * Whether `schema` may admit `null`: `false` only when one of its keywords
 * surely refuses it (a reference is not followed, so it may).
 */
function mayAdmitNull(schema: JsonSchema): boolean {
  if (isNever(schema)) return false
  if (schema.not && only(schema.not, 'type') && typesOf(schema.not).join() === 'null') return false
  if (schema.type !== undefined && !typesOf(schema).includes('null')) return false
  if (schema.enum && !schema.enum.includes(null)) return false
  if ('const' in schema && schema.const !== null) return false
  if (schema.anyOf && !schema.anyOf.some(mayAdmitNull)) return false
  if (schema.allOf && !schema.allOf.every(mayAdmitNull)) return false
  return true
}

/**
 * `core`, made to refuse `null`: schemastery refuses a missing value where the
 * schema is required, even when the schema has a default or a branch admits `null`.
 * A union's branches refuse it each (one that is only `null` is dropped), so an
 * editor offering each branch's values never offers `null` there.
 */
function refuseNull(core: JsonSchema): JsonSchema {
  if (!mayAdmitNull(core)) return core
  if (core.anyOf && !core.allOf && !core.not && !core.$ref && core.type === undefined && !core.enum && !('const' in core)) {
    const branches = core.anyOf.map((branch) => refuseNull({ ...branch })).filter((branch) => !isNever(branch))
    if (!branches.length) return NEVER()
    core.anyOf = branches
    return core
  }
  const types = typesOf(core)
  if (core.enum) {
    core.enum = core.enum.filter((value) => value !== null)
    return core.enum.length ? core : NEVER()
  }
  if ('const' in core) return core.const === null ? NEVER() : core
  if (types.includes('null')) {
    setTypes(core, types.filter((type) => type !== 'null'))
    if (!types.some((type) => type !== 'null')) return NEVER()
    return core
  }
  if (core.not) return { allOf: [core, { not: { type: 'null' } }] }
  core.not = { type: 'null' }
  return core
}

/**
 * A regular expression's source as a JSON Schema `pattern`, or `undefined`
 * when it cannot be said the same way: JSON Schema patterns have no flags
 * (editors and ajv compile them in unicode mode), so a pattern needing
 * `i`, `m`, `s`, `y` or `v`, or one that does not compile in unicode mode, is left out.
 */
function patternOf(pattern: unknown): string | undefined {
  if (!pattern || typeof pattern !== 'object') return undefined
  const { source, flags = '' } = pattern as { source?: unknown; flags?: unknown }
  if (typeof source !== 'string' || typeof flags !== 'string') return undefined
  // `g` and `d` change nothing for a fresh `test`; `u` is what JSON Schema validators use anyway.
  if (/[^gdu]/.test(flags)) return undefined
  try {
    new RegExp(source, 'u')
  } catch {
    return undefined
  }
  return source
}

/**
 * The JSON types a `Schema.is` check admits. JSON data holds no class
 * instances, so only checks for `Object`, `Array` and the wrappers of
 * primitives (by name, as a string constructor is matched along the
 * prototype chain) can pass.
 */
function isCore(constructor: unknown): JsonSchema {
  if (typeof constructor === 'function') {
    if (constructor === Object) return { type: ['object', 'array'] }
    if (constructor === Array) return { type: 'array' }
    return NEVER()
  }
  switch (constructor) {
    case 'Object':
      return { type: ['object', 'array', 'string', 'number', 'boolean'] }
    case 'Array':
      return { type: 'array' }
    case 'String':
      return { type: 'string' }
    case 'Number':
      return { type: 'number' }
    case 'Boolean':
      return { type: 'boolean' }
    default:
      return NEVER()
  }
}

/**
 * A number schema. schemastery checks `step` as "a multiple of step counted
 * from min (or 0)", in decimal arithmetic. Only an integer step says the
 * same thing in JSON Schema: the value is then an integer (`type: integer`),
 * and a multiple of the step when the counting starts at a multiple of it.
 * A fractional step is left out: validators divide in binary floating point
 * (`0.07 / 0.01` is not a whole number there), so they would refuse values
 * the seam accepts.
 */
function numberCore(meta: Schemastery.Meta): JsonSchema {
  const core: JsonSchema = { type: 'number' }
  const { min, max, step } = meta
  if (typeof min === 'number' && Number.isFinite(min)) core.minimum = min
  if (typeof max === 'number' && Number.isFinite(max)) core.maximum = max
  if (typeof step === 'number' && step !== 0 && Number.isInteger(step)) {
    const size = Math.abs(step)
    const start = min ?? 0
    if (Number.isInteger(start)) {
      core.type = 'integer'
      if (size > 1 && start % size === 0) core.multipleOf = size
    }
  }
  return core
}

/** A text that tells two JSON values apart, for removing duplicate enum values. */
function valueKey(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    isPlainObject(item) ? Object.fromEntries(Object.keys(item).sort().map((key) => [key, item[key]])) : item,
  )
}

/**
 * The value schemastery puts in for a missing one: the schema's default or,
 * for an intersection without one, its first part's (and so on down).
 */
function fallbackOf(node: AnySchema, meta: Schemastery.Meta): unknown {
  let fallback: unknown = meta.default
  let current: AnySchema | undefined = node
  while (current?.type === 'intersect' && (fallback === undefined || fallback === null)) {
    current = current.list?.[0]
    fallback = current?.meta.default
  }
  return fallback
}

/**
 * Whether a `null` (or missing) value passes where `node` is an entry:
 * schemastery refuses it when the schema is required, and otherwise resolves
 * the default in its place, which fails for an object whose default leaves
 * out a required field (the `{}` every object schema has by itself, say).
 * Deeper failures of a default are not looked for: the answer may be "passes"
 * where the seam refuses, never the other way round.
 */
function nullResolves(node: AnySchema, meta: Schemastery.Meta): boolean {
  if (meta.required) return false
  const fallback = fallbackOf(node, meta)
  if (fallback === undefined || fallback === null || node.type !== 'object' || !isPlainObject(fallback)) return true
  return Object.entries(node.dict ?? {}).every(([key, field]) => {
    const required = unlazy(field).meta?.required || field.meta?.required
    return !required || (Object.hasOwn(fallback, key) && fallback[key] !== undefined && fallback[key] !== null)
  })
}

/** Converts the nodes of one or more schemas, collecting the definitions recursive parts need. */
class Converter {
  /** Definitions of recursive parts, by name; they are referenced as `#/$defs/<name>`. */
  readonly defs: Record<string, JsonSchema> = {}
  /** The definition name of a node converted under a given set of flags, once it turned out recursive. */
  private readonly names = new Map<AnySchema, Map<string, string>>()
  /** Nodes being converted right now (under a given set of flags), to catch a node that contains itself. */
  private readonly active = new Map<AnySchema, Map<string, { name?: string }>>()
  private count = 0
  private redactor: Redactor | undefined

  /** Whether a reference took the place of a value somewhere: the result then needs its definition. */
  referenced = false

  /**
   * @param locale - descriptions given per locale are written in this one (see `localizedText`).
   * @param references - whether every value position also takes a reference (`{ "$secret": name }`, …).
   */
  constructor(
    private readonly locale = 'en-US',
    private readonly references = true,
  ) {}

  /** The definitions the converted schemas refer to: recursive parts, and the reference when one is allowed. */
  allDefs(): Record<string, JsonSchema> {
    return this.referenced ? { ...this.defs, [REFERENCE_DEF]: referenceSchema() } : { ...this.defs }
  }

  /** One section: its value may be absent or `null` (both read as no section: the layers below apply), and is merged over lower layers. */
  section(schema: AnySchema): JsonSchema {
    this.redactor = createRedactor(schema)
    return this.node(schema, { entry: true, strict: false, complete: false, secret: false, section: true })
  }

  /**
   * Convert one node. A node met again while it is still being converted
   * (under the same flags) is recursive: it is written once under `$defs`
   * and referenced from every place it occurs, so a lazy schema that refers
   * to itself ends.
   */
  private node(input: AnySchema, given: NodeFlags): JsonSchema {
    const node = unlazy(input)
    const flags: NodeFlags = { ...given, secret: given.secret || input.meta?.role === 'secret' || node.meta?.role === 'secret' }
    const key = `${+flags.entry}${+flags.strict}${+flags.complete}${+flags.secret}${+(flags.section === true)}`
    const known = this.names.get(node)?.get(key)
    if (known) return { $ref: `#/$defs/${known}` }
    let frames = this.active.get(node)
    const open = frames?.get(key)
    if (open) {
      open.name ??= `recursive.${++this.count}`
      return { $ref: `#/$defs/${open.name}` }
    }
    if (!frames) this.active.set(node, (frames = new Map()))
    const frame: { name?: string } = {}
    frames.set(key, frame)
    let body: JsonSchema
    try {
      body = this.annotated(input, node, flags)
    } finally {
      frames.delete(key)
    }
    if (!frame.name) return body
    this.defs[frame.name] = body
    let named = this.names.get(node)
    if (!named) this.names.set(node, (named = new Map()))
    named.set(key, frame.name)
    return { $ref: `#/$defs/${frame.name}` }
  }

  /** A node's assertions, its `null` rule where it is an entry, then its annotations. */
  private annotated(input: AnySchema, node: AnySchema, flags: NodeFlags): JsonSchema {
    // A lazy schema's own meta counts as well, as schemastery merges it into what the builder returns.
    const meta: Schemastery.Meta = input === node ? node.meta ?? {} : { ...input.meta, ...node.meta }
    // A loose schema answers its default instead of failing: it admits any value.
    let schema = meta.loose ? {} : this.core(node, meta, flags)
    // Where no value passes, no reference does either: whatever it resolves to is refused.
    const takesValues = !isNever(schema)
    if (flags.entry) schema = flags.section || nullResolves(node, meta) ? acceptNull(schema) : refuseNull(schema)
    // A value position (not the section itself, which is always an object of fields) may hold a reference the provider resolves.
    if (flags.entry && !flags.section && this.references && takesValues) {
      schema = orReference(schema)
      // `orReference` leaves a schema without `anyOf` only where it added nothing (any value, or none).
      this.referenced ||= schema.anyOf !== undefined
    }
    // Annotations come last, so a transform's or a lazy schema's own override those of the schema it wraps.
    const description = localizedText(meta.description, this.locale)
    if (description !== undefined) schema.description = description
    if (meta.badges?.some((badge) => badge?.text === 'deprecated')) schema.deprecated = true
    if (meta.hidden) schema.doNotSuggest = true
    if (meta.role === 'secret') schema.writeOnly = true
    if (flags.entry && !flags.secret) {
      const fallback = this.defaultOf(node, meta)
      if (fallback !== undefined) schema.default = fallback.value
    }
    return schema
  }

  /**
   * The default schemastery puts in for a missing value ({@link fallbackOf}),
   * as JSON data with every secret taken out, or `undefined` when there is
   * none to show. The empty object or list a container schema fills in by
   * itself is left out: it says nothing, and an editor would insert `{}`
   * rather than offer the fields.
   */
  private defaultOf(node: AnySchema, meta: Schemastery.Meta): { value: unknown } | undefined {
    let fallback = fallbackOf(node, meta)
    if (fallback === undefined || fallback === null) return undefined
    if (this.redactor?.containsSecret(node)) {
      fallback = this.redactor.redactWith(fallback, node).value
      if (fallback === undefined) return undefined
    }
    const copy = jsonCopy(fallback)
    if (!copy) return undefined
    if (isEmptyContainer(copy.value) && ['object', 'dict', 'array', 'tuple', 'intersect'].includes(node.type)) return undefined
    return copy
  }

  /** What a node admits (besides `null`, which its parent decides), per schemastery kind. */
  private core(node: AnySchema, meta: Schemastery.Meta, flags: NodeFlags): JsonSchema {
    // Children of containers are resolved afresh: not strict, and possibly `null`.
    const child = (complete: boolean): NodeFlags => ({ entry: true, strict: false, complete, secret: flags.secret })
    switch (node.type) {
      case 'string': {
        const core: JsonSchema = { type: 'string' }
        const pattern = patternOf(meta.pattern)
        if (pattern !== undefined) core.pattern = pattern
        // schemastery counts UTF-16 units, JSON Schema characters: the bounds are written as declared, which
        // makes a maximum looser and a minimum stricter for a text with characters outside the BMP (emoji).
        const minLength = lowerCount(meta.min)
        const maxLength = upperCount(meta.max)
        if (minLength !== undefined) core.minLength = minLength
        if (maxLength !== undefined) core.maxLength = maxLength
        return core
      }
      case 'number':
        return numberCore(meta)
      case 'boolean':
        return { type: 'boolean' }
      case 'const': {
        const copy = jsonCopy(node.value)
        if (!copy) return NEVER()
        return flags.secret ? { type: jsonTypeOf(copy.value) } : { const: copy.value }
      }
      case 'any':
        return {}
      case 'never':
      case 'function':
        return NEVER()
      case 'is':
        return isCore(Object.hasOwn(node, 'constructor') ? node.constructor : undefined)
      case 'bitset':
        // A number (any bits), or a list of flag names; names it does not know are ignored.
        return { anyOf: [{ type: 'number' }, { type: 'array', items: { type: 'string' } }] }
      case 'union':
        return this.union(node.list ?? [], flags)
      case 'intersect': {
        const parts = (node.list ?? []).map((part) => this.node(part, { ...flags, entry: false, strict: true, section: false }))
        if (parts.length === 0) return {}
        if (parts.some(isNever)) return NEVER()
        return parts.length === 1 ? parts[0]! : { allOf: parts }
      }
      case 'transform':
        // Its inner schema checks the value; what the callback makes of it is not the document's business.
        return node.inner ? this.node(node.inner, { ...flags, entry: false, strict: true, section: false }) : {}
      case 'object': {
        const properties: Record<string, JsonSchema> = {}
        const required: string[] = []
        for (const [key, field] of Object.entries(node.dict ?? {})) {
          setOwn(properties, key, this.node(field, child(flags.complete)))
          if (unlazy(field).meta?.required || field.meta?.required) required.push(key)
        }
        // Unknown keys are kept by schemastery (dropped under `strict`), never refused: no `additionalProperties`.
        const core: JsonSchema = { type: 'object', properties }
        // A section merges over lower layers, so a field may come from below: `required` only holds for whole values.
        if (flags.complete && required.length) core.required = required
        return core
      }
      case 'dict': {
        const core: JsonSchema = { type: 'object' }
        if (node.inner) core.additionalProperties = this.node(node.inner, child(flags.complete))
        // A key its key schema refuses fails the dict, except under `strict`, where the entry is dropped.
        if (node.sKey && !flags.strict) {
          const names = this.node(node.sKey, { entry: false, strict: false, complete: true, secret: flags.secret })
          const bare = { ...names }
          delete bare.description
          // Every key is a string: a key schema that says no more than that is left out.
          const trivial = Object.keys(bare).length === 0 || (only(bare, 'type') && bare.type === 'string')
          if (!trivial) core.propertyNames = names
        }
        return core
      }
      case 'array': {
        const core: JsonSchema = { type: 'array' }
        if (node.inner) core.items = this.node(node.inner, child(true))
        // schemastery skips the lower bound when the item schema has a default.
        const minItems = node.inner && node.inner.meta?.default != null ? undefined : lowerCount(meta.min)
        const maxItems = upperCount(meta.max)
        if (minItems !== undefined) core.minItems = minItems
        if (maxItems !== undefined) core.maxItems = maxItems
        return core
      }
      case 'tuple': {
        const list = node.list ?? []
        // Extra items are kept (dropped under `strict`), never refused: no `items: false`.
        const core: JsonSchema = { type: 'array', prefixItems: list.map((item) => this.node(item, child(true))) }
        if (!list.length) delete core.prefixItems
        let minItems = 0
        list.forEach((item, index) => {
          if (unlazy(item).meta?.required || item.meta?.required) minItems = index + 1
        })
        if (minItems) core.minItems = minItems
        return core
      }
      default:
        // A kind added with Schema.extend: its rule is unknown here, so any value passes.
        return {}
    }
  }

  /**
   * A union: any branch may take the value. Branches that take nothing are
   * dropped; a union of bare constants reads as one `enum` (branches with a
   * description of their own stay separate, so an editor can show it), and
   * one of bare types as one type list.
   */
  private union(list: readonly AnySchema[], flags: NodeFlags): JsonSchema {
    const branches = list.map((branch) => this.node(branch, { ...flags, entry: false, section: false })).filter((branch) => !isNever(branch))
    if (branches.length === 0) return NEVER()
    if (branches.length === 1) return branches[0]!
    if (branches.every((branch) => only(branch, 'const'))) {
      const seen = new Set<string>()
      const values: unknown[] = []
      for (const { const: value } of branches) {
        const key = valueKey(value)
        if (!seen.has(key)) values.push(value), seen.add(key)
      }
      return { enum: values }
    }
    if (branches.every((branch) => only(branch, 'type'))) {
      const types = [...new Set(branches.flatMap(typesOf))]
      return { type: types.length === 1 ? types[0]! : types }
    }
    return { anyOf: branches }
  }
}

/**
 * A section schema that also takes the `$version` the seam keeps in a stored
 * section (the version of the settings it was written for). An object of
 * fields takes it already (unknown keys are allowed); a dict at the root
 * would check it as one of its entries.
 */
function withVersionKey(section: JsonSchema): JsonSchema {
  if (!typesOf(section).includes('object') || section.additionalProperties === undefined) return section
  const version: JsonSchema = {
    description: 'The version of these settings the section was written for; kept by dsh-settings, which migrates an older section when its plugin registers. Leave it as it is.',
    type: 'integer',
    minimum: 0,
    doNotSuggest: true,
  }
  section.properties = { [SECTION_VERSION_KEY]: version, ...section.properties }
  return section
}

/**
 * The JSON Schema of one section: what a namespace's entry in the document
 * may hold, given the kind's schemastery schema. No field is `required` (a
 * section is partial: it overrides fields of the layers below it), except
 * inside list and tuple items, which replace what lies below them whole. A recursive
 * schema's repeated part is written once under the result's own `$defs`.
 */
export function sectionJsonSchema(schema: AnySchema, options: Pick<SettingsJsonSchemaOptions, 'locale' | 'references'> = {}): JsonSchema {
  const converter = new Converter(options.locale, options.references)
  const result = withVersionKey(converter.section(schema))
  const defs = converter.allDefs()
  if (Object.keys(defs).length) result.$defs = defs
  return result
}

/**
 * The JSON Schema (draft 2020-12) of a whole settings document for the given
 * kinds: one property per namespace holding its section schema
 * ({@link sectionJsonSchema}), and `scopes`, a map from scope ids
 * (`<kind>/<id>`) to maps holding the same namespace properties. Each section
 * schema is written once, under `$defs/<namespace>`, and referenced from both places.
 *
 * @throws {TypeError} when a namespace is malformed, reserved or given twice.
 */
export function settingsJsonSchema(kinds: readonly SettingsJsonSchemaKind[], options: SettingsJsonSchemaOptions = {}): JsonSchemaDocument {
  const converter = new Converter(options.locale, options.references)
  const sections: Record<string, JsonSchema> = {}
  for (const { ns, schema, title } of kinds) {
    if (typeof ns !== 'string' || !NAMESPACE_PATTERN.test(ns) || RESERVED_NAMESPACES.has(ns)) {
      throw new TypeError(`settings JSON Schema: ${JSON.stringify(ns)} is not a namespace (it must match ${NAMESPACE_PATTERN} and not be reserved)`)
    }
    if (Object.hasOwn(sections, ns)) throw new TypeError(`settings JSON Schema: namespace ${JSON.stringify(ns)} is given twice`)
    const section = withVersionKey(converter.section(schema))
    if (title !== undefined) section.title = title
    sections[ns] = section
  }
  const refs = (): Record<string, JsonSchema> => Object.fromEntries(Object.keys(sections).map((ns) => [ns, { $ref: `#/$defs/${ns}` }]))
  // Sections hold no `required` field, whatever the schemastery schema says: a section is partial, and a
  // field it leaves out comes from the layers below (the schema's default, the base, the global section).
  // Only list and tuple items, which replace what lies below them whole, keep theirs (see `Converter.core`).
  //
  // `additionalProperties: false`, at the top and in each scope: the seam ignores a key that names no
  // section (with a warning), so an editor should flag it. This also flags the section of a namespace
  // missing from `kinds` (a plugin not loaded right now), which the seam keeps as stored.
  //
  // `scopes` and each scope may be `null` (YAML's `scopes:` or `preset/coder:` with everything under it commented
  // out): the seam reads either as holding no sections, without a warning.
  const scopes: JsonSchema = {
    description: 'Sections that apply under one named scope only, keyed by scope id (<kind>/<id>).',
    type: ['object', 'null'],
    propertyNames: { pattern: SCOPE_ID_PATTERN.source },
    additionalProperties: { type: ['object', 'null'], properties: refs(), additionalProperties: false },
  }
  const document: JsonSchemaDocument = {
    $schema: JSON_SCHEMA_DIALECT,
    ...(options.$id === undefined ? {} : { $id: options.$id }),
    type: 'object',
    properties: { ...refs(), [SCOPES_KEY]: scopes },
    additionalProperties: false,
    $defs: { ...sections, ...converter.allDefs() },
  }
  return document
}
