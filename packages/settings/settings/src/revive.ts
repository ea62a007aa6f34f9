/**
 * A schema rebuilt from a sanitized envelope as data alone, for a tool that
 * judges values without running the plugin that declared them (the `dsh`
 * command with no host running). schemastery's own `Schema(json)` would turn a
 * transform's callback source into a function and run it: here every node
 * keeps only the fields that describe data, a transform or lazy node stands
 * for what it wraps, and a value only code can give (`is`, `function`) takes
 * any value, to be judged by the plugin when it runs.
 */
import Schema from 'schemastery'
import type { SchemaEnvelope } from './envelope.ts'
import type { SettingsSchema } from './types.ts'

/** The node fields that describe data; a callback, a builder or anything else is dropped. */
const DATA_FIELDS = ['type', 'meta', 'dict', 'list', 'inner', 'sKey', 'value', 'bits'] as const

/** The node types a revived schema keeps as they are. */
const DATA_TYPES = new Set(['any', 'never', 'const', 'string', 'number', 'boolean', 'bitset', 'percent', 'date', 'array', 'dict', 'tuple', 'object', 'union', 'intersect'])

/** Node types that only wrap another: a revived schema reads what they wrap. */
const WRAPPERS = new Set(['transform', 'lazy'])

/** An envelope that cannot be revived: not an envelope, a dangling reference, or a wrapper cycle. */
export class EnvelopeReviveError extends TypeError {
  override readonly name = 'EnvelopeReviveError'
  readonly code = 'SETTINGS_BAD_ENVELOPE'
}

type Node = Record<string, unknown>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The uid `uid` stands for once wrappers are looked through. */
function target(refs: Record<string, Node>, uid: unknown, seen = new Set<string>()): string {
  const key = String(uid)
  const node = refs[key]
  if (!node) throw new EnvelopeReviveError(`the envelope refers to a node it does not hold (${key})`)
  if (!WRAPPERS.has(String(node.type))) return key
  if (seen.has(key)) throw new EnvelopeReviveError('the envelope wraps a node in itself')
  seen.add(key)
  return target(refs, node.inner, seen)
}

/** One node with only its data fields, its references pointed past wrappers, and code-only types opened to any value. */
function dataNode(refs: Record<string, Node>, raw: Node): Node {
  const node: Node = {}
  for (const field of DATA_FIELDS) if (raw[field] !== undefined) node[field] = structuredClone(raw[field])
  const type = String(raw.type)
  if (!DATA_TYPES.has(type)) return { type: 'any', meta: isRecord(raw.meta) ? structuredClone(raw.meta) : {} }
  if (!isRecord(node.meta)) node.meta = {}
  if (node.inner !== undefined) node.inner = Number(target(refs, node.inner))
  if (node.sKey !== undefined) node.sKey = Number(target(refs, node.sKey))
  if (Array.isArray(node.list)) node.list = node.list.map((uid) => Number(target(refs, uid)))
  if (isRecord(node.dict)) node.dict = Object.fromEntries(Object.entries(node.dict).map(([key, uid]) => [key, Number(target(refs, uid))]))
  return node
}

/**
 * Rebuild a schema from a sanitized envelope (a descriptor's `schema`, the
 * catalog a host writes) without running anything it names: see the module's
 * comment for what changes. Values it accepts are those the plugin's schema
 * accepts, except where a transform or a code-only type would have judged them.
 * @throws {EnvelopeReviveError} for input that is not a well-formed envelope.
 */
export function reviveEnvelope(envelope: unknown): SettingsSchema<unknown> {
  if (!isRecord(envelope) || !isRecord(envelope.refs) || !Number.isInteger(envelope.uid)) throw new EnvelopeReviveError('not a schema envelope ({ uid, refs })')
  const refs: Record<string, Node> = {}
  for (const [uid, node] of Object.entries(envelope.refs)) {
    if (!/^\d+$/.test(uid) || !isRecord(node) || typeof node.type !== 'string') throw new EnvelopeReviveError(`the envelope's node ${JSON.stringify(uid)} is malformed`)
    refs[uid] = node
  }
  const root = target(refs, envelope.uid)
  const kept: Record<string, Node> = {}
  for (const [uid, node] of Object.entries(refs)) if (!WRAPPERS.has(String(node.type))) kept[uid] = dataNode(refs, node)
  return Schema({ uid: Number(root), refs: kept } as unknown as SchemaEnvelope as never) as unknown as SettingsSchema<unknown>
}
