import { isPlainObject, setOwn } from 'dsh-settings/data'
import { REFERENCE_TAGS, referenceOfJson, referenceToJson, type SecretReference, type SecretReferenceKind } from 'dsh-settings-secrets'
import { TaggedScalar } from '../codec/index.ts'
import type { DocumentFormat } from './settings-codec.ts'

/**
 * Where a raw section holds references (`!secret name`, `{ "$env": "X" }`),
 * and copy-on-write edits of a section at a path: the pieces the secrets
 * adapter builds on. Paths are strings (array items by their index's text), as
 * the seam's secret paths are.
 */

/** The tags the codec keeps for references: `!secret`, `!env`, `!file`. */
export const REFERENCE_TAG_LIST: readonly string[] = Object.values(REFERENCE_TAGS)

const KIND_OF_TAG = new Map<string, SecretReferenceKind>(Object.entries(REFERENCE_TAGS).map(([kind, tag]) => [tag, kind as SecretReferenceKind]))

/** A reference found in a section, at `path`. */
export interface HeldReference {
  path: string[]
  reference: SecretReference
}

/** The reference a raw value is (a kept tagged scalar, or a JSON reference object), or `undefined`. */
export function referenceOf(value: unknown): SecretReference | undefined {
  if (value instanceof TaggedScalar) {
    const kind = KIND_OF_TAG.get(value.tag)
    return kind === undefined ? undefined : { kind, name: value.text }
  }
  return referenceOfJson(value)
}

/** The raw value that writes `reference` in a document of `format`: `!secret name` in YAML, `{ "$secret": "name" }` in JSON. */
export function referenceValue(reference: SecretReference, format: DocumentFormat): unknown {
  return format === 'yaml' ? new TaggedScalar(REFERENCE_TAGS[reference.kind], reference.name) : referenceToJson(reference)
}

/** Every reference under `root`, depth first in key order (an explicit stack: a deep section must not overflow it). */
export function referencesIn(root: unknown): HeldReference[] {
  const found: HeldReference[] = []
  const stack: { node: unknown; path: string[] }[] = [{ node: root, path: [] }]
  while (stack.length) {
    const { node, path } = stack.pop()!
    const reference = referenceOf(node)
    if (reference) {
      found.push({ path, reference })
      continue
    }
    const entries: [string, unknown][] = Array.isArray(node) ? node.map((item, index) => [String(index), item]) : isPlainObject(node) ? Object.entries(node) : []
    for (let at = entries.length - 1; at >= 0; at--) stack.push({ node: entries[at]![1], path: [...path, entries[at]![0]] })
  }
  return found
}

/**
 * Whether any reference is under `root`, stopping at the first. It allocates
 * nothing per node (no paths, no key lists), so a section without references
 * (nearly every one, a 1 MB list included) costs one quick walk; only a
 * `$`-led key asks {@link referenceOf} about its map. Objects in `free` are
 * known to hold none and are not walked (a reread keeps the objects of the
 * text it did not change, so a reload walks what changed).
 */
export function holdsReference(root: unknown, free?: WeakSet<object>): boolean {
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null || free?.has(node)) continue
    if (node instanceof TaggedScalar) {
      if (referenceOf(node)) return true
      continue
    }
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push(item)
      continue
    }
    if (!isPlainObject(node)) continue
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue
      if (key.charCodeAt(0) === 0x24 && referenceOf(node)) return true
      const child = node[key]
      if (typeof child === 'object' && child !== null) stack.push(child)
    }
  }
  return false
}

/**
 * Note `root`, found to hold no reference, and the maps and lists directly
 * under it in `free`: a later section that keeps one of them (the same
 * object) skips it in {@link holdsReference}. Only the top two levels, so
 * noting costs a few entries however large the section is.
 */
export function noteReferenceFree(root: unknown, free: WeakSet<object>): void {
  if (typeof root !== 'object' || root === null) return
  free.add(root)
  for (const child of Array.isArray(root) ? root : isPlainObject(root) ? Object.values(root) : []) {
    if (typeof child === 'object' && child !== null) free.add(child)
  }
}

/** The value at `path` (array items by index text), or `undefined`. */
export function valueAtPath(root: unknown, path: readonly string[]): unknown {
  let node = root
  for (const key of path) {
    if (Array.isArray(node)) node = /^(0|[1-9][0-9]*)$/.test(key) ? node[Number(key)] : undefined
    else if (isPlainObject(node) && Object.hasOwn(node, key)) node = node[key]
    else return undefined
  }
  return node
}

/** `root` with `value` at `path`, copying each container on the way (the rest shared); a path that leads nowhere leaves `root`. */
export function withValueAt(root: unknown, path: readonly string[], value: unknown): unknown {
  if (!path.length) return value
  const [key, ...rest] = path as [string, ...string[]]
  if (Array.isArray(root)) {
    if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= root.length) return root
    const copy = [...root]
    copy[Number(key)] = withValueAt(root[Number(key)], rest, value)
    return copy
  }
  if (!isPlainObject(root) || !Object.hasOwn(root, key)) return root
  const copy: Record<string, unknown> = { ...root }
  setOwn(copy, key, withValueAt(root[key], rest, value))
  return copy
}

/** Raw data with each reference written as its JSON object (`{ "$secret": "name" }`): plain data for a kept version's answer. */
export function referencesAsJson(root: unknown): unknown {
  const reference = root instanceof TaggedScalar ? referenceOf(root) : undefined
  if (reference) return referenceToJson(reference)
  if (root instanceof TaggedScalar) return root.text
  if (Array.isArray(root)) return root.some(holdsTagged) ? root.map(referencesAsJson) : root
  if (!isPlainObject(root) || !holdsTagged(root)) return root
  const copy: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(root)) setOwn(copy, key, referencesAsJson(child))
  return copy
}

function holdsTagged(root: unknown): boolean {
  if (root instanceof TaggedScalar) return true
  if (Array.isArray(root)) return root.some(holdsTagged)
  return isPlainObject(root) && Object.values(root).some(holdsTagged)
}
