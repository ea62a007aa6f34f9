import { isAlias, isMap, isPair, isScalar, isSeq, type Alias, type Document, type Node, type Pair, type ParsedNode, type Scalar, type YAMLMap } from 'yaml'
import type { DocumentPath } from './diff.ts'

type AnyNode = Node | ParsedNode | null | undefined

/** One place an anchor is used: an alias standing for a value, or a `<<` merge into the map at `path`. */
export interface AliasUse {
  anchor: string
  path: DocumentPath
  merge: boolean
}

/** Whether a pair is a `<<` merge (a plain `<<` key; yaml reads it as its merge symbol when merges are on). */
export function isMergePair(pair: Pair): boolean {
  if (!isScalar(pair.key)) return false
  const { value, type } = pair.key as Scalar
  // With merge keys on, yaml parses a plain `<<` key as its merge symbol.
  return (typeof value === 'symbol' && value.description === '<<') || (value === '<<' && (type ?? 'PLAIN') === 'PLAIN')
}

/** The anchors defined in a subtree; `inside` leaves out the root's own anchor. */
export function findAnchors(root: AnyNode, inside = false): string[] {
  const found: string[] = []
  const walk = (node: AnyNode, isRoot: boolean) => {
    if (!node || isAlias(node)) return
    const anchor = (node as { anchor?: string }).anchor
    if (anchor && !(isRoot && inside)) found.push(anchor)
    if (isMap(node)) for (const pair of node.items) walk((pair as Pair).value as AnyNode, false)
    else if (isSeq(node)) for (const item of node.items) walk(item as AnyNode, false)
  }
  walk(root, true)
  return found
}

/** Every alias of a document, with the path of the value it stands for (or of the map it merges into). */
export function findAliasUses(doc: Document.Parsed): AliasUse[] {
  const uses: AliasUse[] = []
  const walk = (node: AnyNode, path: DocumentPath) => {
    if (!node) return
    if (isAlias(node)) {
      uses.push({ anchor: (node as Alias).source, path, merge: false })
    } else if (isMap(node)) {
      for (const item of node.items) {
        const pair = item as Pair
        if (isMergePair(pair)) {
          const sources = isSeq(pair.value) ? (pair.value.items as AnyNode[]) : [pair.value as AnyNode]
          for (const source of sources) if (isAlias(source)) uses.push({ anchor: (source as Alias).source, path, merge: true })
        } else if (isScalar(pair.key)) {
          walk(pair.value as AnyNode, [...path, String((pair.key as Scalar).value)])
        } else {
          // An alias in a key (`*a : x`, `? [*a]`) or under one has no path of its own: it counts as a use of the map.
          for (const anchor of aliasesIn(pair)) uses.push({ anchor, path, merge: false })
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item as AnyNode, [...path, index]))
    }
  }
  walk(doc.contents as AnyNode, [])
  return uses
}

/** The anchors every alias under `root` (a node or a pair) points at. */
function aliasesIn(root: unknown): string[] {
  const found: string[] = []
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (isAlias(node)) found.push((node as Alias).source)
    else if (isPair(node)) stack.push(node.key, node.value)
    else if (isMap(node) || isSeq(node)) stack.push(...(node.items as unknown[]))
  }
  return found
}

/** The keys a map receives through its `<<` merges (one level: the merged maps' own keys). */
export function mergedKeys(map: YAMLMap, doc: Document.Parsed): Set<string> {
  const keys = new Set<string>()
  for (const item of map.items) {
    const pair = item as Pair
    if (!isMergePair(pair)) continue
    const sources = isSeq(pair.value) ? (pair.value.items as AnyNode[]) : [pair.value as AnyNode]
    for (const source of sources) {
      const target = isAlias(source) ? (source as Alias).resolve(doc) : source
      if (!isMap(target)) continue
      for (const entry of target.items) if (isScalar((entry as Pair).key)) keys.add(String(((entry as Pair).key as Scalar).value))
    }
  }
  return keys
}
