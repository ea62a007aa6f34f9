import { childrenOf, unlazy, type Redactor } from './redact.ts'
import type { SettingsSchema } from './types.ts'

/** The serialized form of a schemastery schema: its root uid and every node by uid. */
export interface SchemaEnvelope {
  uid: number
  refs: Record<string, Record<string, unknown>>
}

/** Serialize a schema (`schema.toJSON()`), as a plain JSON value. */
export function envelopeOf(schema: SettingsSchema<unknown>): SchemaEnvelope {
  const global = globalThis as { __schemastery_refs__?: unknown }
  try {
    return JSON.parse(JSON.stringify(schema.toJSON())) as SchemaEnvelope
  } catch (error) {
    // schemastery keeps its serialization state in a global while it works; a failure would leave it set
    // and break every later serialization in the process.
    global.__schemastery_refs__ = undefined
    throw new TypeError(`settings schema cannot be serialized (${(error as Error).name}): a lazy schema may refer back only to the root schema`, { cause: error })
  }
}

const REFERENCE_FIELDS = ['sKey', 'inner'] as const

function sortedStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedStringify).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${sortedStringify((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * A text that is equal for two envelopes exactly when they describe the same
 * schema: uids are renumbered in visit order from the root, keys are sorted.
 * schemastery numbers nodes from a global counter, so two separately built
 * copies of one schema differ only in their uids.
 */
export function canonicalEnvelope(envelope: SchemaEnvelope): string {
  const renumbered = new Map<number, number>()
  const nodes: unknown[] = []
  const visit = (uid: unknown): unknown => {
    if (typeof uid !== 'number') return uid
    const known = renumbered.get(uid)
    if (known !== undefined) return known
    const id = renumbered.size
    renumbered.set(uid, id)
    const node = { ...envelope.refs[uid] }
    nodes[id] = node
    for (const field of REFERENCE_FIELDS) if (field in node) node[field] = visit(node[field])
    if (Array.isArray(node.list)) node.list = node.list.map(visit)
    if (node.dict && typeof node.dict === 'object') {
      node.dict = Object.fromEntries(Object.entries(node.dict).map(([key, uid]) => [key, visit(uid)]))
    }
    return id
  }
  visit(envelope.uid)
  return sortedStringify(nodes)
}

/** Every node of a live schema by uid, lazy nodes resolved to the schema they build. */
function nodesByUid(schema: SettingsSchema<unknown>): Map<number, SettingsSchema<unknown>> {
  const found = new Map<number, SettingsSchema<unknown>>()
  const visit = (input: SettingsSchema<unknown>) => {
    const node = unlazy(input)
    if (found.has(node.uid)) return
    found.set(node.uid, node)
    childrenOf(node).forEach(visit)
  }
  visit(schema)
  return found
}

/**
 * An envelope safe to send anywhere: transform callbacks (source text that
 * `Schema(json)` would revive with `new Function`) and lazy builders are
 * dropped, a secret node loses its default and constant, and a default that
 * contains secrets is redacted like a value.
 */
export function sanitizeEnvelope(envelope: SchemaEnvelope, schema: SettingsSchema<unknown>, redactor: Redactor): SchemaEnvelope {
  const live = nodesByUid(schema)
  const refs: SchemaEnvelope['refs'] = {}
  for (const [uid, json] of Object.entries(envelope.refs)) {
    const node: Record<string, unknown> = { ...json }
    delete node.callback
    delete node.builder
    const meta = { ...(node.meta as Record<string, unknown> | undefined) }
    const liveNode = live.get(Number(uid))
    // A node we cannot match to the live schema cannot be proven safe: keep its shape, drop its data.
    const secret = !liveNode || meta.role === 'secret'
    if (secret) {
      delete meta.default
      delete node.value
    } else if (meta.default !== undefined && redactor.containsSecret(liveNode)) {
      const redacted = redactor.redactWith(meta.default, liveNode).value
      if (redacted === undefined) delete meta.default
      else meta.default = redacted
    }
    node.meta = meta
    refs[uid] = node
  }
  return { uid: envelope.uid, refs }
}
