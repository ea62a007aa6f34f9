import { isMap, isPair, type Pair, type YAMLMap, type YAMLSeq } from 'yaml'
import { valueAt, type DocumentPath } from './data.ts'
import { renderFlow } from './render.ts'
import { itemStart, lineEnd, pairEnd, range, type AnyNode } from './yaml-source.ts'

/**
 * The changes the YAML editor gathers per collection while it plans the
 * edits, turned into splices once every edit is known: items removed from and
 * added to flow collections, and pairs removed from block maps.
 */

/** What one flow collection loses (item indexes) and gains (rendered items). */
export interface FlowChange {
  path: DocumentPath
  removed: Set<number>
  added: string[]
}

/** Where a planned replacement of `[start, end)` goes. */
export type SpliceSink = (start: number, end: number, text: string) => void

/** Whether a flow collection is written with inner padding, `{ a: 1 }`. */
export function isPadded(text: string, node: AnyNode): boolean {
  const nodeRange = range(node)
  return !!nodeRange && text[nodeRange[0] + 1] === ' '
}

/**
 * Apply flow removals and additions. Each run of adjacent removed items goes
 * with the commas around it: up to the next kept item, or from the previous
 * kept item when the run ends the collection. Additions go right after the
 * last item (inside the brackets of an empty one). A collection losing every
 * item is written afresh.
 */
export function planFlowChanges(text: string, changes: ReadonlyMap<YAMLMap | YAMLSeq, FlowChange>, next: unknown, splice: SpliceSink): void {
  const bounds = (item: unknown): [number, number] => {
    if (isPair(item)) return [range(item.key as AnyNode)![0], (range(item.value as AnyNode) ?? range(item.key as AnyNode))![1]]
    const itemRange = range(item as AnyNode)!
    return [itemRange[0], itemRange[1]]
  }
  for (const [collection, { path, removed, added }] of changes) {
    const { items } = collection
    const collectionRange = range(collection)!
    if (removed.size === items.length && removed.size) {
      splice(collectionRange[0], collectionRange[1], renderFlow(valueAt(next, path), isPadded(text, collection)))
      continue
    }
    for (let first = 0; first < items.length; first++) {
      if (!removed.has(first)) continue
      let last = first
      while (removed.has(last + 1)) last++
      if (last + 1 < items.length) splice(bounds(items[first])[0], bounds(items[last + 1])[0], '')
      else splice(bounds(items[first - 1])[1], bounds(items[last])[1], '')
      first = last
    }
    if (!added.length) continue
    if (isMap(collection) && text[collectionRange[0]] !== '{') {
      // A single pair in a flow sequence (`[ key: value ]`) is a map without braces: they come with a second key.
      const [, lastEnd] = bounds(items[items.length - 1])
      splice(collectionRange[0], collectionRange[0], '{ ')
      splice(lastEnd, lastEnd, `, ${added.join(', ')} }`)
      continue
    }
    if (items.length) {
      const [lastStart, lastEnd] = bounds(items[items.length - 1])
      const lineStart = text.lastIndexOf('\n', lastStart - 1) + 1
      const indent = text.slice(lineStart, lastStart)
      const after = lineEnd(text, lastEnd + 1)
      const rest = /^[ \t]*(,?)[ \t]*(?:#.*)?\r?\n$/.exec(text.slice(lastEnd, after))
      if (!indent.trim() && rest) {
        // A collection written one item per line: the new items get lines of their own after the last
        // one's (its comment stays on it), with a trailing comma where the user wrote one.
        const trailing = rest[1] === ','
        if (!trailing) splice(lastEnd, lastEnd, ',')
        splice(after, after, added.map((item, index) => `${indent}${item}${trailing || index < added.length - 1 ? ',' : ''}\n`).join(''))
        continue
      }
      // Inline: right after the last item, so a trailing comma (`{ a: 1, }`) stays last.
      splice(lastEnd, lastEnd, ', ' + added.join(', '))
      continue
    }
    const close = text.lastIndexOf(isMap(collection) ? '}' : ']', collectionRange[1])
    const at = isPadded(text, collection) && text[close - 1] === ' ' ? close - 1 : close
    splice(at, at, added.join(', '))
  }
}

/**
 * Remove block pairs line by line. The first key of a list item shares its
 * line with the item's `- `, so a run of removed pairs at the start of such
 * a map is cut up to the first kept key, which moves up onto the dash line.
 */
export function planBlockRemovals(text: string, removals: ReadonlyMap<YAMLMap, ReadonlySet<number>>, splice: SpliceSink): void {
  for (const [map, removed] of removals) {
    const pairs = map.items as Pair[]
    const firstStart = itemStart(text, pairs[0]!)
    let from = 0
    if (removed.has(0) && text.slice(text.lastIndexOf('\n', firstStart - 1) + 1, firstStart).trim()) {
      while (removed.has(from)) from++
      if (pairs[from]) splice(firstStart, itemStart(text, pairs[from]!), '')
      else from = 0
    }
    for (let index = from; index < pairs.length; index++) {
      if (!removed.has(index)) continue
      const start = itemStart(text, pairs[index]!)
      splice(text.lastIndexOf('\n', start - 1) + 1, lineEnd(text, pairEnd(pairs[index]!)), '')
    }
  }
}
