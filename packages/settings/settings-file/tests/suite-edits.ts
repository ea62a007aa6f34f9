/**
 * The edits the YAML test suite spec makes on each document, with the places
 * of the old text each may change (checked by `kept-bytes.ts`). Written apart
 * from the editor (its own walk of the node tree), so the check does not reuse
 * what it checks.
 */
import { readFileSync } from 'node:fs'
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair, type YAMLMap } from 'yaml'

/** One case of the fixture (see `fixtures/yaml-test-suite/SOURCE.md`). */
export interface SuiteCase {
  id: string
  name: string
  yaml: string
  error?: true
}

/** The fixture's cases, in folder order. */
export function suiteCases(): SuiteCase[] {
  const fixture = JSON.parse(readFileSync(new URL('./fixtures/yaml-test-suite/suite.json', import.meta.url), 'utf8')) as { cases: SuiteCase[] }
  return fixture.cases
}

/** The operations run on every document whose root is a map of string keys. */
export const OPERATIONS = ['update-field', 'add-field', 'add-section', 'replace-empty', 'unset', 'update-field-nested', 'add-field-nested', 'replace-empty-nested', 'unset-nested'] as const
export type Operation = (typeof OPERATIONS)[number]

/** A planned edit: the next data, and the byte ranges of the old text it may change (everything else must stay, in order). */
export interface PlannedEdit {
  next: Record<string, unknown>
  /** Half-open `[start, end)` ranges of the old text that may be replaced; insertions may land in them too. */
  windows: [number, number][]
  /** Whether the edit only adds text (no byte of the old text may go). */
  insertion: boolean
  /** The old text the edit works on (its windows, or the section a field is added to): an anchor there ties its aliases to the edit. */
  region: [number, number][]
}

type Range = [number, number, number]
const rangeOf = (node: unknown): Range | undefined => (node as { range?: Range } | null | undefined)?.range ?? undefined

const ADDED_FIELD = 'dsh-added-field'
const ADDED_SECTION = 'dsh-added-section'

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

function lineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset
  const newline = text.indexOf('\n', offset)
  return newline === -1 ? text.length : newline + 1
}

/** Where a node's own content ends: trailing comment lines after it are not part of it. */
function contentEnd(node: unknown): number {
  const range = rangeOf(node)
  if (!range) return 0
  if ((isMap(node) || isSeq(node)) && !node.flow && node.items.length) {
    const last = node.items[node.items.length - 1]
    if (isMap(node)) {
      const pair = last as Pair
      return Math.max(rangeOf(pair.key)?.[1] ?? 0, contentEnd(pair.value))
    }
    return Math.max(range[0], contentEnd(last))
  }
  return range[1]
}

/** Where a block pair's line begins with its key's properties (`&a`, `!!str`, `? `) included. */
function pairLineStart(text: string, pair: Pair): number {
  return lineStart(text, rangeOf(pair.key)![0])
}

/**
 * The windows of a pair's value when it is replaced: from the key's end to the
 * end of the value's content, except the comment that ends the key's line and
 * whole comment lines between the key and a value that starts below it.
 */
function valueWindows(text: string, pair: Pair): [number, number][] {
  const keyEnd = rangeOf(pair.key)![1]
  const value = pair.value
  const range = rangeOf(value)
  if (!range || range[0] === range[1]) {
    // An empty value: from the key to where the value would start (its comment stays).
    const at = range ? range[0] : keyEnd
    return [[keyEnd, Math.max(keyEnd, at)]]
  }
  const end = (isMap(value) || isSeq(value)) && !value.flow ? lineEnd(text, contentEnd(value)) : range[1]
  const keyLineEnd = lineEnd(text, keyEnd)
  if (range[0] < keyLineEnd) return [[keyEnd, end]]
  // The value starts below its key: the comment ending the key's line, and whole comment or blank lines, stay.
  const rest = text.slice(keyEnd, keyLineEnd)
  const comment = /(^|[ \t])#/.exec(rest)
  const windows: [number, number][] = [[keyEnd, comment ? keyEnd + comment.index + comment[1]!.length : keyLineEnd]]
  for (let at = keyLineEnd, next = at; at < range[0]; at = next) {
    next = text.indexOf('\n', at) + 1 || text.length
    const line = text.slice(at, next)
    // A line of the value's own properties (`!!map`, `&a`) is the value's.
    if (!/^[ \t]*(#.*)?\r?\n?$/.test(line)) windows.push([at, at + line.length])
  }
  windows.push([lineStart(text, range[0]), end])
  return windows
}

/** The window of a pair removed from its map: its lines (block), or it and one comma beside it (flow). */
function removalWindow(text: string, map: YAMLMap, pair: Pair): [number, number] {
  const index = map.items.indexOf(pair)
  const end = Math.max(rangeOf(pair.key)?.[1] ?? 0, contentEnd(pair.value))
  if (!map.flow) return [pairLineStart(text, pair), lineEnd(text, end)]
  const start = rangeOf(pair.key)![0]
  const next = map.items[index + 1]
  if (next) return [start, rangeOf(next.key)![0]]
  const previous = map.items[index - 1]
  return [previous ? Math.max(rangeOf(previous.key)?.[1] ?? 0, contentEnd(previous.value)) : start, end]
}

/** A place a field edit can work on: a map (or an empty value, which reads as an empty map), where it stands, and what holds it. */
interface Target {
  path: (string | number)[]
  map?: YAMLMap
  /** The pair whose value it is, or the sequence item it is. */
  holder: Pair | Node
}

/** Every map and empty pair value under the root, in document order, reached through string keys and list items. */
function targetsOf(doc: Document.Parsed, data: Record<string, unknown>): Target[] {
  const found: Target[] = []
  const visit = (node: unknown, path: (string | number)[], holder: Pair | Node, value: unknown): void => {
    if (isMap(node) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      found.push({ path, map: node, holder })
      for (const pair of node.items) {
        if (isScalar(pair.key) && typeof pair.key.value === 'string' && Object.hasOwn(value, pair.key.value)) {
          visit(pair.value, [...path, pair.key.value], pair as Pair, (value as Record<string, unknown>)[pair.key.value])
        }
      }
    } else if (isSeq(node) && Array.isArray(value)) {
      node.items.forEach((item, index) => visit(item, [...path, index], item as Node, value[index]))
    } else if (value === null && isScalar(node) && holder !== node) {
      found.push({ path, holder })
    }
  }
  for (const pair of (doc.contents as YAMLMap).items) visit(pair.value, [(pair.key as { value: string }).value], pair as Pair, data[(pair.key as { value: string }).value])
  return found
}

/** The windows of a target replaced whole. */
function holderWindows(text: string, target: Target): [number, number][] {
  if (isPair(target.holder)) return valueWindows(text, target.holder)
  const range = rangeOf(target.holder)!
  return [[range[0], target.map && !target.map.flow ? lineEnd(text, contentEnd(target.holder)) : range[1]]]
}

/** The first own field of a target's map (a string key the data has). */
function firstField(target: Target, value: Record<string, unknown>): Pair | undefined {
  return target.map?.items.find((entry) => isScalar(entry.key) && typeof entry.key.value === 'string' && Object.hasOwn(value, entry.key.value)) as Pair | undefined
}

const fieldKey = (pair: Pair): string => (pair.key as { value: string }).value

/** An edit that replaces or removes old text, in `windows` only. */
const replacing = (next: Record<string, unknown>, windows: [number, number][]): PlannedEdit => ({ next, windows, insertion: false, region: windows })

/** `data` with the value at `path` given by `change` (a copy; `data` is left as it is). */
function changed(data: Record<string, unknown>, path: (string | number)[], change: (value: unknown) => unknown): Record<string, unknown> {
  const copy = structuredClone(data)
  let parent: Record<string | number, unknown> = copy
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  parent[last] = change(parent[last])
  return copy
}

/**
 * The edit `operation` makes on a document (parsed as `doc`, read as `data`),
 * or `undefined` when the document has no place for it. Section operations
 * work on the first top-level entry holding a map (an empty one, for a field
 * added); nested ones on the first map (or empty value) deeper down, through
 * maps and lists.
 */
export function planEdit(operation: Operation, text: string, doc: Document.Parsed, data: Record<string, unknown>): PlannedEdit | undefined {
  if (operation === 'add-section') {
    if (Object.hasOwn(data, ADDED_SECTION)) return undefined
    // An empty root written as a token (`~`, `null`) gives way to the sections: that token may go.
    const root = rangeOf(doc.contents)
    const windows: [number, number][] = !isMap(doc.contents) && root && root[1] > root[0] ? [[root[0], root[1]]] : []
    return { next: { ...structuredClone(data), [ADDED_SECTION]: { engine: 'bing', limit: 10 } }, windows, insertion: true, region: [] }
  }
  if (!isMap(doc.contents)) return undefined
  const nested = operation.endsWith('-nested')
  const kind = operation.replace(/-nested$/, '')
  const value = (target: Target) => target.path.reduce<unknown>((at, segment) => (at as Record<string | number, unknown>)[segment], data) as Record<string, unknown> | null
  const candidates = targetsOf(doc, data).filter((target) => (nested ? target.path.length > 1 : target.path.length === 1))
  if (kind === 'add-field') {
    const target = candidates.find((candidate) => !candidate.map || !Object.hasOwn(value(candidate)!, ADDED_FIELD))
    if (!target) return undefined
    const next = changed(data, target.path, (old) => ({ ...(old as object | null), [ADDED_FIELD]: 'added' }))
    if (!target.map) return replacing(next, holderWindows(text, target))
    const range = rangeOf(target.map)!
    return { next, windows: [], insertion: true, region: [[range[0], range[1]]] }
  }
  const target = candidates.find((candidate) => candidate.map && firstField(candidate, value(candidate)!))
  if (!target) return undefined
  const field = firstField(target, value(target)!)!
  const key = fieldKey(field)
  if (kind === 'update-field') {
    return replacing(changed(data, [...target.path, key], (old) => (old === 'edited' ? 'edited again' : 'edited')), valueWindows(text, field))
  }
  if (kind === 'replace-empty') return replacing(changed(data, target.path, () => ({})), holderWindows(text, target))
  const next = changed(data, target.path, (old) => Object.fromEntries(Object.entries(old as object).filter(([name]) => name !== key)))
  // A map left with no field is written `{}` (an object, not a removed key): its window then.
  const left = Object.keys(value(target)!).length > 1
  return replacing(next, left ? [removalWindow(text, target.map!, field)] : holderWindows(text, target))
}

/**
 * The places an edit may also rewrite because the document ties them to the
 * edited text: every alias of an anchor defined on a node that overlaps
 * `region`, as the value window of the nearest pair holding it (an alias in a
 * key: the pair holding that key's map).
 */
export function aliasWindows(text: string, doc: Document.Parsed, region: readonly [number, number][]): [number, number][] {
  const anchors = new Set<string>()
  const overlaps = (node: unknown) => {
    const range = rangeOf(node)
    return !!range && region.some(([start, end]) => range[0] <= end && range[1] >= start)
  }
  const collect = (node: unknown): void => {
    if (!node || isAlias(node)) return
    const anchor = (node as { anchor?: string }).anchor
    if (anchor && overlaps(node)) anchors.add(anchor)
    if (isMap(node)) for (const pair of node.items) (collect(pair.key), collect(pair.value))
    else if (isSeq(node)) for (const item of node.items) collect(item)
  }
  collect(doc.contents)
  const windows: [number, number][] = []
  const walk = (node: unknown, holder: Pair | undefined): void => {
    if (!node) return
    if (isAlias(node)) {
      if (anchors.has(node.source) && holder) windows.push(...valueWindows(text, holder))
    } else if (isMap(node)) {
      for (const pair of node.items) {
        walk(pair.key, holder)
        walk(pair.value, pair as Pair)
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, holder)
    }
  }
  walk(doc.contents, undefined)
  return windows
}

/**
 * What a loaded document's root is, as a settings document: `sections` (a map
 * whose keys are all strings), `empty` (nothing, or a plain null), or
 * `other-keys` (a map with a key that is not a string: a number, a null, a collection).
 */
export function rootShape(doc: Document.Parsed): 'sections' | 'empty' | 'other-keys' {
  const root = doc.contents as Node | null
  if (!isMap(root)) return 'empty'
  return root.items.every((pair) => isScalar(pair.key) && typeof pair.key.value === 'string') ? 'sections' : 'other-keys'
}
