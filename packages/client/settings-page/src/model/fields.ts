import type { RedactedSecret, SettingsNamespaceView } from 'dsh-settings'
import { branchesOf, holdsSecret, readEnvelope, resolveNode, type Envelope, type EnvelopeNode } from './envelope.ts'
import { getAt, hasAt, isPlainObject } from './paths.ts'

/** How the page should render a field. */
export type FieldKind =
  | 'string' | 'textarea' | 'link' | 'number' | 'slider' | 'boolean' | 'const' | 'select'
  | 'object' | 'dict' | 'array' | 'tuple' | 'secret' | 'unsupported'

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
  /** For `secret`: whether one is set and which layer supplied it. Never a value. */
  secret?: { set: boolean; layer?: RedactedSecret['layer'] }
  /** For `unsupported`: why the page cannot offer an editor. */
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
  envelope: Envelope
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
      return node.meta.role === 'textarea' ? 'textarea' : node.meta.role === 'link' ? 'link' : 'string'
    case 'number':
      return node.meta.role === 'slider' ? 'slider' : 'number'
    case 'boolean':
    case 'const':
      return node.type
    case 'union':
      return branchesOf(envelope, node).every((branch) => branch.type === 'const') && node.list?.length ? 'select' : undefined
    default:
      return undefined
  }
}

/** Object properties, with an intersection of objects flattened into one object. */
function propertiesOf(envelope: Envelope, node: EnvelopeNode): [string, string][] | undefined {
  if (node.type === 'object') return Object.entries(node.dict ?? {})
  if (node.type !== 'intersect') return undefined
  const parts = (node.list ?? []).map((id) => [id, resolveNode(envelope, id)] as const)
  if (!parts.every(([, part]) => part && (part.type === 'object' || part.type === 'intersect'))) return undefined
  const merged = new Map<string, string>()
  for (const [, part] of parts) for (const [key, id] of propertiesOf(envelope, part!) ?? []) if (!merged.has(key)) merged.set(key, id)
  return [...merged]
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
  return slot.layer ? { set: true, layer: slot.layer } : { set: true }
}

function baseField(walk: Walk, node: EnvelopeNode, uid: string, path: string[], kind: FieldKind): Field {
  const field: Field = { path, uid, kind, label: path.at(-1) ?? walk.view.ns, required: node.meta.required, hidden: node.meta.hidden, ...layerInfo(walk, path) }
  const { description, min, max, step, pattern } = node.meta
  Object.assign(field, Object.fromEntries(Object.entries({ description, min, max, step, pattern }).filter(([, v]) => v !== undefined)))
  // A redacted envelope has no secret defaults, but never show one even if a sender forgot to strip it.
  if (node.meta.default !== undefined && kind !== 'secret') field.default = node.meta.default
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

function buildField(walk: Walk, uid: string | undefined, path: string[]): Field {
  const id = uid ?? ''
  const node = resolveNode(walk.envelope, uid)
  if (!node) return unsupported(walk, undefined, id, path, 'the schema node is missing or cyclic')
  if (walk.stack.length >= MAX_DEPTH) return unsupported(walk, node, id, path, 'the schema nests too deeply')
  // A lazy schema may recurse forever; follow it only as far as the data goes.
  if (walk.stack.includes(node.uid) && getAt(walk.view.value, path) === undefined) {
    return unsupported(walk, node, id, path, 'a recursive schema with no value here')
  }
  const leaf = leafKind(node, walk.envelope)
  if (leaf) {
    const field = baseField(walk, node, id, path, leaf)
    if (leaf === 'secret') field.secret = secretInfo(walk.view, path)
    if (leaf === 'const') field.constant = node.value
    if (leaf === 'select') field.options = branchesOf(walk.envelope, node).map((b) => ({ value: b.value, label: constLabel(b) }))
    return field
  }
  if (['object', 'intersect', 'dict', 'array', 'tuple'].includes(node.type)) {
    const field = baseField(walk, node, id, path, node.type === 'intersect' ? 'object' : (node.type as FieldKind))
    childrenFor(walk, node, path, field)
    if (field.children) return field
  }
  return unsupported(walk, node, id, path, `no editor for schema type '${node.type}'`)
}

/**
 * Build the form of one redacted namespace view. An envelope that cannot be
 * read yields a root field of kind `unsupported`, so a page can still list the namespace.
 */
export function buildForm(view: SettingsNamespaceView): FormModel {
  const envelope = readEnvelope(view.schema) ?? { root: '', nodes: new Map() }
  const root = buildField({ envelope, view, stack: [] }, envelope.root, [])
  const model: FormModel = { ns: view.ns, revision: view.revision, applies: view.applies, registered: view.registered, envelope, root, view }
  if (view.scope !== undefined) model.scope = view.scope
  return model
}

/** The field at `path`, or `undefined` when the form has none there (an array index past the end, say). */
export function fieldAt(model: FormModel, path: readonly string[]): Field | undefined {
  let current: Field | undefined = model.root
  for (let depth = 0; current && depth < path.length; depth++) {
    current = current.children?.find((child) => child.path[depth] === path[depth])
  }
  return current
}

/** Every field from `field` down, parents first. */
export function flatten(field: Field): Field[] {
  return [field, ...(field.children ?? []).flatMap(flatten)]
}
