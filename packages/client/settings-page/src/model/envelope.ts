/**
 * Reads a schemastery `toJSON()` envelope as plain data. The envelope is never
 * revived with `Schema(json)`: that would evaluate transform source with
 * `new Function`, and the page must treat everything it receives as untrusted.
 */
import { localizedText } from 'dsh-settings/locale'

/** The `meta` fields the form model understands, each checked for its type. */
export interface NodeMeta {
  default?: unknown
  required: boolean
  hidden: boolean
  role?: string
  description?: string
  min?: number
  max?: number
  step?: number
  pattern?: { source: string; flags: string }
  /** The field starts folded (schemastery's `collapse()`). */
  collapse?: boolean
}

/** One node of the envelope, with child references kept as uid strings. */
export interface EnvelopeNode {
  uid: string
  type: string
  meta: NodeMeta
  dict?: Readonly<Record<string, string>>
  inner?: string
  sKey?: string
  list?: readonly string[]
  value?: unknown
  /** For a bitset: each flag's name and bit. */
  bits?: Readonly<Record<string, number>>
}

/** An envelope read as data: the root uid and every well-formed node by uid. */
export interface Envelope {
  root: string
  nodes: ReadonlyMap<string, EnvelopeNode>
}

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function uidOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value)
  if (typeof value === 'string' && /^\d+$/.test(value)) return value
  return undefined
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/**
 * A description is a string or a dict of texts by locale (`{ 'zh-CN': …, 'en-US': … }`);
 * this picks the text for a reader of `locale` (see `localizedText` in `dsh-settings/locale`).
 */
export function describeText(value: unknown, locale = ''): string | undefined {
  return localizedText(value, locale)
}

function readPattern(value: unknown): NodeMeta['pattern'] {
  if (!isRecord(value) || typeof value.source !== 'string') return undefined
  return { source: value.source, flags: typeof value.flags === 'string' ? value.flags : '' }
}

function readMeta(value: unknown, locale: string): NodeMeta {
  const meta = isRecord(value) ? value : {}
  const read: NodeMeta = { required: meta.required === true, hidden: meta.hidden === true }
  if ('default' in meta) read.default = meta.default
  if (typeof meta.role === 'string') read.role = meta.role
  const description = describeText(meta.description, locale)
  if (description !== undefined) read.description = description
  for (const key of ['min', 'max', 'step'] as const) {
    const number = finite(meta[key])
    if (number !== undefined) read[key] = number
  }
  const pattern = readPattern(meta.pattern)
  if (pattern) read.pattern = pattern
  if (meta.collapse === true) read.collapse = true
  return read
}

function readNode(uid: string, raw: Json, locale: string): EnvelopeNode {
  const node: EnvelopeNode = { uid, type: typeof raw.type === 'string' ? raw.type : 'unknown', meta: readMeta(raw.meta, locale) }
  const inner = uidOf(raw.inner)
  if (inner !== undefined) node.inner = inner
  const sKey = uidOf(raw.sKey)
  if (sKey !== undefined) node.sKey = sKey
  if (Array.isArray(raw.list)) node.list = raw.list.map(uidOf).filter((id): id is string => id !== undefined)
  if (isRecord(raw.dict)) {
    // Drop entries that do not reference a node, and keys no settings section could hold.
    const entries = Object.entries(raw.dict).flatMap(([key, ref]) => {
      const id = uidOf(ref)
      return id === undefined || key === '__proto__' ? [] : [[key, id] as const]
    })
    node.dict = Object.fromEntries(entries)
  }
  if ('value' in raw) node.value = raw.value
  if (isRecord(raw.bits)) {
    const bits = Object.entries(raw.bits).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isInteger(entry[1]) && entry[1] > 0)
    node.bits = Object.fromEntries(bits)
  }
  return node
}

/**
 * Read `{ uid, refs }` into an {@link Envelope}, or `undefined` when the
 * input is not an envelope at all. Malformed nodes are skipped, not fatal.
 * Descriptions are read for a reader of `locale` (see {@link describeText}).
 */
export function readEnvelope(json: unknown, locale = ''): Envelope | undefined {
  if (!isRecord(json) || !isRecord(json.refs)) return undefined
  const root = uidOf(json.uid)
  if (root === undefined) return undefined
  const nodes = new Map<string, EnvelopeNode>()
  for (const [uid, raw] of Object.entries(json.refs)) {
    if (uidOf(uid) !== undefined && isRecord(raw)) nodes.set(uid, readNode(uid, raw, locale))
  }
  return { root, nodes }
}

/** Node types that only wrap another node: the form shows what they wrap. */
const WRAPPERS = new Set(['lazy', 'transform'])

/**
 * The node behind `uid`, looking through lazy and transform wrappers. A
 * wrapper's own meta (description, default, required) wins over the inner
 * node's, since that is where schemastery users usually put it. Answers
 * `undefined` for a missing node or a wrapper cycle.
 */
export function resolveNode(envelope: Envelope, uid: string | undefined): EnvelopeNode | undefined {
  const seen = new Set<string>()
  let meta: Partial<NodeMeta> = {}
  let current = uid === undefined ? undefined : envelope.nodes.get(uid)
  while (current && WRAPPERS.has(current.type)) {
    if (seen.has(current.uid)) return undefined
    seen.add(current.uid)
    meta = { ...definedMeta(current.meta), ...meta }
    current = current.inner === undefined ? undefined : envelope.nodes.get(current.inner)
  }
  if (!current) return undefined
  return { ...current, meta: { ...current.meta, ...meta, required: current.meta.required || meta.required === true, hidden: current.meta.hidden || meta.hidden === true } }
}

function definedMeta(meta: NodeMeta): Partial<NodeMeta> {
  const { required, hidden, ...rest } = meta
  const kept: Partial<NodeMeta> = { ...rest }
  if (required) kept.required = true
  if (hidden) kept.hidden = true
  return kept
}

/** The resolved branches of a union or intersection, skipping dangling references. */
export function branchesOf(envelope: Envelope, node: EnvelopeNode): EnvelopeNode[] {
  return (node.list ?? []).map((id) => resolveNode(envelope, id)).filter((n): n is EnvelopeNode => n !== undefined)
}

/**
 * Whether the node at `uid` is or holds a `role('secret')` position. Cycles
 * (lazy recursion) are walked once.
 */
export function holdsSecret(envelope: Envelope, uid: string | undefined, seen: Set<string> = new Set()): boolean {
  if (uid === undefined || seen.has(uid)) return false
  seen.add(uid)
  const node = envelope.nodes.get(uid)
  if (!node) return false
  if (node.meta.role === 'secret') return true
  const children = [node.inner, ...(node.list ?? []), ...Object.values(node.dict ?? {})]
  return children.some((child) => holdsSecret(envelope, child, seen))
}
