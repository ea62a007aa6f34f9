import type { RedactedSecret, SettingsNamespaceView } from 'dsh-settings'
import { discriminatorOf, impliedDefault, keyDefault, keyDescription, OTHERWISE, propertiesOf, spreadIntersect, taggedBranch, type Discriminator, type GrowingEnvelope } from './branches.ts'
import { branchesOf, holdsSecret, readEnvelope, resolveNode, type Envelope, type EnvelopeNode } from './envelope.ts'
import { getAt, hasAt, isPlainObject } from './paths.ts'
import { checkNode } from './validate.ts'

/** How the page should render a field. */
export type FieldKind =
  | 'string' | 'textarea' | 'link' | 'number' | 'slider' | 'boolean' | 'const' | 'select' | 'bitset' | 'json'
  | 'object' | 'dict' | 'array' | 'tuple' | 'union' | 'secret' | 'readonly' | 'unsupported'

/** One form a `union` field may take: its name on the chooser, and the field it renders as (at the union's path). */
export interface FieldVariant {
  label: string
  /**
   * Set when `label` is only the branch's type in English (`text`, `number`, …:
   * it has no description and no constant to name it), so a page can say the
   * type in its own language.
   */
  type?: string
  /**
   * For a union told apart by {@link Field.discriminator}: the constant this form
   * holds there; absent for the one form that takes every other value.
   */
  tag?: unknown
  field: Field
}

/** One choice of a select built from a union of constants. */
export interface FieldOption {
  value: unknown
  label: string
}

/** One node of the form: what to render, its constraints and where its value comes from. */
export interface Field {
  /** Path of the field inside the section; `[]` for the section itself. */
  path: string[]
  /** The envelope uid the field was built from, for {@link validateField}. */
  uid: string
  kind: FieldKind
  label: string
  description?: string
  /** The schema default, to show as a placeholder. Never present for a secret. */
  default?: unknown
  required: boolean
  hidden: boolean
  min?: number
  max?: number
  step?: number
  pattern?: { source: string; flags: string }
  /** For `const`: the constant. */
  constant?: unknown
  /** For `select`: the constants to choose from. */
  options?: FieldOption[]
  /** Object properties, tuple positions, or the current entries of a dict or array. */
  children?: Field[]
  /** For `dict` and `array`: a blank item, to render an "add" row. Its path ends with `''` (dict) or the array length. */
  item?: Field
  /** For `array`: false when the items hold secrets, so their indexes must not move. */
  reorderable?: boolean
  /** The resolved value (redacted: secrets are absent, secret array items are `null`). */
  value: unknown
  /** Whether the described section itself (`view.user`) holds this field. */
  overridden: boolean
  /** For a scoped view: the value the field would have without the scope's own section. */
  inherited?: unknown
  /**
   * For `secret`: whether one is set, which layer supplied it, and where a user
   * section's value comes from (`source`, with the variable, file or store name
   * in `reference`: a secret held by `env` or `file` cannot be written here). Never a value.
   */
  secret?: { set: boolean; layer?: RedactedSecret['layer']; source?: RedactedSecret['source']; reference?: string }
  /** For `union`: the forms offered (hidden branches left out), each built at this field's path. */
  variants?: FieldVariant[]
  /** For `union`: the index in `variants` of the form the value has, or -1 when it has none of them. */
  variant?: number
  /** For a union of objects told apart by one property (a constant in each form, or in all but one): that property's key. */
  discriminator?: string
  /** For a union with a discriminator: the description the schema gives that key (an adapter's base describes `protocol`). */
  discriminatorDescription?: string
  /**
   * For a union whose two forms are told apart by a boolean ("enable to reveal"):
   * the form is picked by ticking the discriminator, not from a list.
   */
  toggle?: boolean
  /** For `array` and `dict` with `role('table')`: render the entries as rows of a table. */
  layout?: 'table'
  /** The field starts folded (`collapse()`). */
  collapsed?: boolean
  /** For `unsupported` and `readonly`: why the page cannot offer an editor. */
  reason?: string
}

/** The form of one namespace under one scope. */
export interface FormModel {
  ns: string
  scope?: string
  /** The revision to send back with every write. */
  revision: number
  applies: SettingsNamespaceView['applies']
  registered: boolean
  envelope: Envelope
  root: Field
  /** The view the form was built from, for the op planner. */
  view: SettingsNamespaceView
}

/** Nodes that recurse through lazy schemas stop once no value is present; this caps the rest. */
const MAX_DEPTH = 64

interface Walk {
  /** The envelope, with the unions made by spreading an intersection over its union parts added. */
  envelope: GrowingEnvelope
  view: SettingsNamespaceView
  /** Uids on the way from the root, to stop lazy recursion where there is no data. */
  stack: readonly string[]
}

function constLabel(node: EnvelopeNode): string {
  return node.meta.description ?? (typeof node.value === 'string' ? node.value : JSON.stringify(node.value) ?? 'null')
}

function leafKind(node: EnvelopeNode, envelope: Envelope): FieldKind | undefined {
  if (node.meta.role === 'secret') return 'secret'
  switch (node.type) {
    case 'string':
      return node.meta.role === 'textarea' ? 'textarea' : node.meta.role === 'link' || node.meta.role === 'url' ? 'link' : 'string'
    case 'number':
      return node.meta.role === 'slider' ? 'slider' : 'number'
    case 'boolean':
    case 'const':
      return node.type
    case 'bitset':
      return node.bits ? 'bitset' : undefined
    case 'any':
      return 'json'
    case 'union':
      return shownBranches(envelope, node).every((branch) => branch.type === 'const') && shownBranches(envelope, node).length ? 'select' : undefined
    default:
      return undefined
  }
}

/** A union's branches that a form offers: hidden ones are a plugin's own escape hatches. */
function shownBranches(envelope: Envelope, node: EnvelopeNode): EnvelopeNode[] {
  return branchesOf(envelope, node).filter((branch) => !branch.meta.hidden)
}

const TYPE_WORDS: Record<string, string> = { string: 'text', number: 'number', boolean: 'on / off', object: 'settings', intersect: 'settings', array: 'list', dict: 'table', tuple: 'list', any: 'JSON' }

function variantLabel(envelope: Envelope, branch: EnvelopeNode, discriminator: Discriminator | undefined): Pick<FieldVariant, 'label' | 'type'> {
  if (discriminator) {
    const constant = resolveNode(envelope, propertiesOf(envelope, branch)?.find(([key]) => key === discriminator.key)?.[1])
    if (constant?.type === 'const') return { label: constLabel(constant) }
  }
  if (branch.type === 'const') return { label: constLabel(branch) }
  if (branch.meta.description !== undefined) return { label: branch.meta.description }
  return { label: TYPE_WORDS[branch.type] ?? branch.type, type: branch.type === 'intersect' ? 'object' : branch.type }
}

/**
 * The variant the value has: by the discriminator when there is one (a value
 * with none of its constants, or no value, takes the form for every other
 * value), else the branch that finds the fewest problems with it.
 */
function chosenVariant(walk: Walk, branches: EnvelopeNode[], discriminator: Discriminator | undefined, value: unknown): number {
  if (discriminator !== undefined) {
    const given = isPlainObject(value) ? value : {}
    const fallback = given[discriminator.key] === undefined ? keyDefault(walk.envelope, branches, discriminator.key) : undefined
    return taggedBranch(discriminator, fallback === undefined ? given : { ...given, [discriminator.key]: fallback })
  }
  let best = -1
  let fewest = Infinity
  branches.forEach((branch, index) => {
    if (value === undefined && branch.type !== 'const') return
    const issues = checkNode(walk.envelope, branch.uid, value, []).length
    if (issues < fewest) [best, fewest] = [index, issues]
  })
  return best
}

function unionField(walk: Walk, node: EnvelopeNode, id: string, path: string[]): Field {
  const field = baseField(walk, node, id, path, 'union')
  const inner = { ...walk, stack: [...walk.stack, node.uid] }
  const branches = shownBranches(walk.envelope, node)
  const discriminator = discriminatorOf(walk.envelope, branches)
  field.variants = branches.map((branch, index) => {
    const tag = discriminator?.tags[index]
    const variant: FieldVariant = { ...variantLabel(walk.envelope, branch, discriminator), field: buildField(inner, branch.uid, path) }
    if (tag !== undefined && tag !== OTHERWISE) variant.tag = tag
    return variant
  })
  field.variant = chosenVariant(walk, branches, discriminator, field.value)
  if (discriminator !== undefined) {
    field.discriminator = discriminator.key
    const description = keyDescription(walk.envelope, branches, discriminator.key)
    if (description !== undefined) field.discriminatorDescription = description
    if (branches.length === 2 && discriminator.tags.every((tag) => tag === OTHERWISE || typeof tag === 'boolean')) field.toggle = true
  }
  // The chosen form's fields are the union's own, so paths below it resolve through it.
  const chosen = field.variants[field.variant]?.field
  if (chosen?.children) field.children = chosen.children
  return field
}

function layerInfo(walk: Walk, path: string[]): Pick<Field, 'value' | 'overridden' | 'inherited'> {
  const info: Pick<Field, 'value' | 'overridden' | 'inherited'> = {
    value: getAt(walk.view.value, path),
    overridden: hasAt(walk.view.user, path),
  }
  if (walk.view.scope !== undefined) info.inherited = getAt(walk.view.inherited, path)
  return info
}

function secretInfo(view: SettingsNamespaceView, path: string[]): NonNullable<Field['secret']> {
  const slot = view.secrets.find((s) => s.path.length === path.length && s.path.every((key, i) => key === path[i]))
  if (!slot?.set) return { set: false }
  const info: NonNullable<Field['secret']> = { set: true }
  if (slot.layer) info.layer = slot.layer
  if (slot.source) info.source = slot.source
  if (slot.reference !== undefined) info.reference = slot.reference
  return info
}

function baseField(walk: Walk, node: EnvelopeNode, uid: string, path: string[], kind: FieldKind): Field {
  const field: Field = { path, uid, kind, label: path.at(-1) ?? walk.view.ns, required: node.meta.required, hidden: node.meta.hidden, ...layerInfo(walk, path) }
  const { description, min, max, step, pattern } = node.meta
  Object.assign(field, Object.fromEntries(Object.entries({ description, min, max, step, pattern }).filter(([, v]) => v !== undefined)))
  // A redacted envelope has no secret defaults, but never show one even if a sender forgot to strip it. A `null`
  // default is none: schemastery still asks a required field for a value (OneBot's `endpoint`).
  if (node.meta.default != null && kind !== 'secret') field.default = node.meta.default
  if (node.meta.collapse) field.collapsed = true
  if (node.meta.role === 'table' && (node.type === 'array' || node.type === 'dict')) field.layout = 'table'
  return field
}

function childrenFor(walk: Walk, node: EnvelopeNode, path: string[], field: Field): void {
  const inner = { ...walk, stack: [...walk.stack, node.uid] }
  const properties = propertiesOf(walk.envelope, node)
  if (properties) {
    field.kind = 'object'
    field.children = properties.map(([key, id]) => buildField(inner, id, [...path, key]))
  } else if (node.type === 'dict') {
    const keys = isPlainObject(field.value) ? Object.keys(field.value) : []
    field.children = keys.map((key) => buildField(inner, node.inner, [...path, key]))
    field.item = buildField(inner, node.inner, [...path, ''])
  } else if (node.type === 'array') {
    const length = Array.isArray(field.value) ? field.value.length : 0
    field.children = Array.from({ length }, (_, index) => buildField(inner, node.inner, [...path, String(index)]))
    field.item = buildField(inner, node.inner, [...path, String(length)])
    field.reorderable = !holdsSecret(walk.envelope, node.inner)
  } else if (node.type === 'tuple') {
    field.children = (node.list ?? []).map((id, index) => buildField(inner, id, [...path, String(index)]))
  }
}

function unsupported(walk: Walk, node: EnvelopeNode | undefined, uid: string, path: string[], reason: string): Field {
  const stub: EnvelopeNode = node ?? { uid, type: 'unknown', meta: { required: false, hidden: false } }
  return { ...baseField(walk, stub, uid, path, 'unsupported'), reason }
}

/** `field` with the default its schema implies where it states none (an intersection of objects). */
function withDefault(field: Field, implied: unknown): Field {
  if (field.default === undefined && implied !== undefined) field.default = implied
  return field
}

/** Schema types whose values are code or class instances: a form shows them but cannot write them. */
const CODE_TYPES: Record<string, string> = {
  function: 'this value is a function, which only the plugin\'s code can supply',
  is: 'this value is an object of a class, which only the plugin\'s code can supply',
  never: 'this field takes no value',
}

function buildField(walk: Walk, uid: string | undefined, path: string[]): Field {
  const id = uid ?? ''
  const found = resolveNode(walk.envelope, uid)
  if (!found) return unsupported(walk, undefined, id, path, 'the schema node is missing or cyclic')
  if (walk.stack.length >= MAX_DEPTH) return unsupported(walk, found, id, path, 'the schema nests too deeply')
  // A lazy schema may recurse forever; follow it only as far as the data goes.
  if (walk.stack.includes(found.uid) && getAt(walk.view.value, path) === undefined) {
    return unsupported(walk, found, id, path, 'a recursive schema with no value here')
  }
  const spread = spreadIntersect(walk.envelope, found)
  const implied = impliedDefault(walk.envelope, found)
  // The spread union keeps the intersection's own meta (description, default) and the uid it stands for.
  const node = spread ? { ...spread, meta: found.meta } : found
  const nodeId = spread ? spread.uid : id
  const leaf = leafKind(node, walk.envelope)
  if (leaf) {
    const field = baseField(walk, node, nodeId, path, leaf)
    if (leaf === 'secret') field.secret = secretInfo(walk.view, path)
    if (leaf === 'const') field.constant = node.value
    if (leaf === 'select') field.options = shownBranches(walk.envelope, node).map((b) => ({ value: b.value, label: constLabel(b) }))
    if (leaf === 'bitset') field.options = Object.entries(node.bits!).map(([label, value]) => ({ value, label }))
    return field
  }
  if (node.type === 'union') return withDefault(unionField(walk, node, nodeId, path), implied)
  if (['object', 'intersect', 'dict', 'array', 'tuple'].includes(node.type)) {
    const field = baseField(walk, node, nodeId, path, node.type === 'intersect' ? 'object' : (node.type as FieldKind))
    childrenFor(walk, node, path, field)
    if (field.children) return withDefault(field, implied)
  }
  const reason = CODE_TYPES[node.type]
  if (reason) return { ...baseField(walk, node, nodeId, path, 'readonly'), reason }
  return unsupported(walk, node, nodeId, path, `no editor for schema type '${node.type}'`)
}

/** How a form is built. */
export interface FormOptions {
  /** The reader's locale (`zh-CN`, `en-US`): descriptions given per locale are shown in it, see {@link describeText}. */
  locale?: string
}

/**
 * Build the form of one redacted namespace view. An envelope that cannot be
 * read yields a root field of kind `unsupported`, so a page can still list the namespace.
 */
export function buildForm(view: SettingsNamespaceView, options: FormOptions = {}): FormModel {
  const read = readEnvelope(view.schema, options.locale ?? '') ?? { root: '', nodes: new Map() }
  const envelope = { root: read.root, nodes: new Map(read.nodes) }
  const root = buildField({ envelope, view, stack: [] }, envelope.root, [])
  const model: FormModel = { ns: view.ns, revision: view.revision, applies: view.applies, registered: view.registered, envelope, root, view }
  if (view.scope !== undefined) model.scope = view.scope
  return model
}

/**
 * Whether a secret field's value comes from the host (an environment variable
 * or a file the document references): read-only here, since the store refuses
 * a write to it. A secret kept in a secret store is written as usual.
 */
export function isHostSecret(field: Field): boolean {
  return field.kind === 'secret' && field.secret?.set === true && (field.secret.source === 'env' || field.secret.source === 'file')
}

/** The field at `path`, or `undefined` when the form has none there (an array index past the end, say). */
export function fieldAt(model: FormModel, path: readonly string[]): Field | undefined {
  let current: Field | undefined = model.root
  for (let depth = 0; current && depth < path.length; depth++) {
    current = current.children?.find((child) => child.path[depth] === path[depth])
  }
  return current
}

/** Every field from `field` down, parents first (of a union, the chosen form's fields). */
export function flatten(field: Field): Field[] {
  return [field, ...(field.children ?? []).flatMap(flatten)]
}

/** Every field from `field` down, parents first, with every form of every union (the ones not chosen too) and every list's blank item. */
export function everyField(field: Field): Field[] {
  const below = field.variants ? field.variants.map((variant) => variant.field) : (field.children ?? [])
  return [field, ...below.flatMap(everyField), ...(field.item ? everyField(field.item) : [])]
}
