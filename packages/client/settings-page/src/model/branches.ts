/**
 * How a union's branches are told apart, read from the envelope alone: the
 * properties an object (or an intersection of objects) declares, intersections
 * spread over their union parts, and the key whose value says which branch a
 * value means (an adapter's `protocol`, Koishi's `enabled`).
 */
import { branchesOf, resolveNode, type Envelope, type EnvelopeNode } from './envelope.ts'
import { isPlainObject } from './paths.ts'

/** An envelope the field builder may add nodes to (the unions it makes by spreading intersections). */
export interface GrowingEnvelope {
  root: string
  nodes: Map<string, EnvelopeNode>
}

/**
 * Object properties, with an intersection of objects merged into one object.
 * A later part's constant wins over an earlier part's property of the same key:
 * it is the narrower statement (an adapter's branch fixing `protocol`).
 */
export function propertiesOf(envelope: Envelope, node: EnvelopeNode): [string, string][] | undefined {
  if (node.type === 'object') return Object.entries(node.dict ?? {})
  if (node.type !== 'intersect') return undefined
  const parts = branchesOf(envelope, node)
  if (parts.length !== (node.list ?? []).length) return undefined
  const merged = new Map<string, string>()
  for (const part of parts) {
    const properties = propertiesOf(envelope, part)
    if (!properties) return undefined
    for (const [key, id] of properties) if (!merged.has(key) || resolveNode(envelope, id)?.type === 'const') merged.set(key, id)
  }
  return [...merged]
}

/** Every declaration of `key` in the object parts of `branches`, in order. */
function declarationsOf(envelope: Envelope, branches: readonly EnvelopeNode[], key: string): EnvelopeNode[] {
  return branches.flatMap((branch) => {
    const parts = branch.type === 'intersect' ? flatParts(envelope, branch).map((id) => resolveNode(envelope, id)) : [branch]
    return parts.flatMap((part) => {
      const node = part?.type === 'object' ? resolveNode(envelope, part.dict?.[key]) : undefined
      return node ? [node] : []
    })
  })
}

/**
 * The first description any part gives `key`: an adapter's base usually
 * describes `protocol` where its branches only fix the constant.
 */
export function keyDescription(envelope: Envelope, branches: readonly EnvelopeNode[], key: string): string | undefined {
  return declarationsOf(envelope, branches, key).find((node) => node.meta.description)?.meta.description
}

/**
 * The value `key` takes when nothing gives one: the default a shared part
 * declares for it (the mail adapter's `tls: boolean().default(true)` picks its
 * TLS form before anybody chose).
 */
export function keyDefault(envelope: Envelope, branches: readonly EnvelopeNode[], key: string): unknown {
  return declarationsOf(envelope, branches, key).find((node) => node.type !== 'const' && node.meta.default != null)?.meta.default
}

/**
 * The default a node stands for when it gives none itself: an intersection
 * left out entirely is read part by part, so the defaults of its object parts
 * (schemastery gives objects `{}`) make it a group whose required values must
 * be given.
 */
export function impliedDefault(envelope: Envelope, node: EnvelopeNode): unknown {
  if (node.meta.default != null || node.type !== 'intersect') return node.meta.default ?? undefined
  const defaults = flatParts(envelope, node)
    .map((id) => resolveNode(envelope, id))
    .filter((part) => part?.type === 'object' && isPlainObject(part.meta.default))
    .map((part) => part!.meta.default as Record<string, unknown>)
  return defaults.length ? Object.assign({}, ...defaults) : undefined
}

/** The parts of an intersection, with nested intersections opened into their own parts. */
export function flatParts(envelope: Envelope, node: EnvelopeNode, seen = new Set<string>()): string[] {
  if (seen.has(node.uid)) return []
  seen.add(node.uid)
  return (node.list ?? []).flatMap((id) => {
    const part = resolveNode(envelope, id)
    return part?.type === 'intersect' ? flatParts(envelope, part, seen) : [id]
  })
}

/**
 * An intersection with union parts, spread into a union of intersections (one
 * per branch of its first union part; the rest spread as each is built), so
 * `intersect([base, union([http, ws])])` reads as "http with base" or "ws with
 * base". The made nodes join `envelope` under derived uids.
 */
export function spreadIntersect(envelope: GrowingEnvelope, node: EnvelopeNode): EnvelopeNode | undefined {
  if (node.type !== 'intersect') return undefined
  const list = flatParts(envelope, node)
  const at = list.findIndex((id) => resolveNode(envelope, id)?.type === 'union')
  if (at < 0) return undefined
  const union = resolveNode(envelope, list[at])!
  const uid = `${node.uid}~${at}`
  const existing = envelope.nodes.get(uid)
  if (existing) return existing
  const branches = (union.list ?? []).map((branch, index) => {
    const part: EnvelopeNode = { uid: `${uid}~${index}`, type: 'intersect', meta: { required: false, hidden: false }, list: list.map((id, i) => (i === at ? branch : id)) }
    envelope.nodes.set(part.uid, part)
    return part.uid
  })
  const spread: EnvelopeNode = { uid, type: 'union', meta: { ...node.meta, description: node.meta.description ?? union.meta.description }, list: branches }
  envelope.nodes.set(uid, spread)
  return spread
}

/** No constant: the branch a value takes when its key matches none of the others' constants. */
export const OTHERWISE: unique symbol = Symbol('otherwise')

/**
 * How a union's object branches are told apart: by the value at `key`, which
 * is a constant in each branch (`tags[i]`), except in at most one branch that
 * declares something else there or nothing at all (`OTHERWISE`): Koishi's
 * "enable to reveal" (`enabled: const(true)` beside an empty object).
 */
export interface Discriminator {
  key: string
  tags: readonly unknown[]
}

function tagsAt(envelope: Envelope, tables: [string, string][][], key: string): unknown[] | undefined {
  const tags = tables.map((table) => {
    const node = resolveNode(envelope, table.find(([k]) => k === key)?.[1])
    return node?.type === 'const' ? node.value : OTHERWISE
  })
  const constants = tags.filter((tag) => tag !== OTHERWISE)
  if (tags.length - constants.length > 1 || constants.length === 0) return undefined
  return new Set(constants.map((tag) => JSON.stringify(tag))).size === constants.length ? tags : undefined
}

/**
 * The key whose value tells a union's object branches apart, if there is one.
 * A key that is a constant in every branch is preferred over one that leaves a
 * branch to take every other value.
 */
export function discriminatorOf(envelope: Envelope, branches: readonly EnvelopeNode[]): Discriminator | undefined {
  if (branches.length < 2) return undefined
  const tables = branches.map((branch) => propertiesOf(envelope, branch))
  if (!tables.every((table): table is [string, string][] => table !== undefined)) return undefined
  const keys = [...new Set(tables.flatMap((table) => table.map(([key]) => key)))]
  let otherwise: Discriminator | undefined
  for (const key of keys) {
    const tags = tagsAt(envelope, tables, key)
    if (!tags) continue
    if (!tags.includes(OTHERWISE)) return { key, tags }
    otherwise ??= { key, tags }
  }
  return otherwise
}

/**
 * The branch `value` means by its discriminator: the one whose constant it
 * holds, else the branch that takes every other value; -1 when it holds a
 * value no branch takes.
 */
export function taggedBranch(discriminator: Discriminator, value: unknown): number {
  const tag = isPlainObject(value) ? value[discriminator.key] : undefined
  const index = tag === undefined ? -1 : discriminator.tags.findIndex((constant) => constant !== OTHERWISE && constant === tag)
  return index >= 0 ? index : discriminator.tags.indexOf(OTHERWISE)
}

/** Whether `value` holds, somewhere `node` fixes a constant, a different value: then `node` is not the branch meant. */
export function contradicts(envelope: Envelope, node: EnvelopeNode, value: unknown): boolean {
  if (!isPlainObject(value)) return false
  const properties = propertiesOf(envelope, node)
  return (properties ?? []).some(([key, id]) => {
    const child = resolveNode(envelope, id)
    return child?.type === 'const' && value[key] !== undefined && value[key] !== child.value
  })
}

/**
 * The one branch of a union that `value` means, or -1 when that cannot be
 * told: by the discriminator when there is one, else the only branch whose
 * constants the value does not contradict.
 */
export function meantBranch(envelope: Envelope, branches: readonly EnvelopeNode[], value: unknown): number {
  const discriminator = discriminatorOf(envelope, branches)
  if (discriminator) return isPlainObject(value) ? taggedBranch(discriminator, value) : -1
  const fitting = branches.flatMap((branch, index) => (contradicts(envelope, branch, value) ? [] : [index]))
  return fitting.length === 1 ? fitting[0]! : -1
}
