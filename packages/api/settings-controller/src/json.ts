import type { JsonValue } from 'dsh-settings'
import { invalid, rejected, sectionDetails, type SectionFacts } from './errors.ts'

/** Deepest nesting of objects and arrays one payload may have (the seam's own limit). */
export const MAX_DEPTH = 64
/** Largest UTF-8 JSON encoding one write may carry (the seam's own limit, and the wire's body limit). */
export const MAX_BYTES = 1024 * 1024

/** Keys that would reach an object's prototype machinery; the seam refuses them in writes. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/** Where a payload is being checked: the call's label, its section, and the path the payload sits at. */
export interface DataSite {
  label: string
  facts: SectionFacts
  /** Path of the payload's root inside the section (an op's `path` for its value). */
  at?: readonly string[]
}

/** Whether `value` is an object whose prototype is `Object.prototype` or `null`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Render segments as `$`-rooted path text for messages, in the seam's style. */
export function pathText(path: readonly string[]): string {
  let text = '$'
  for (const segment of path) text += /^[A-Za-z_$][\w$-]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`
  return text
}

function kindOf(value: unknown): string {
  if (typeof value === 'number') return 'non-finite number'
  if (typeof value !== 'object' || value === null) return typeof value
  const ctor = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor
  return ctor?.name ? `${ctor.name} instance` : 'non-plain object'
}

/**
 * Check that `value` is JSON data and return a detached deep copy, so nothing
 * the caller keeps (or a getter) can change what reaches the service. Object
 * entries holding `undefined` are dropped, as the seam drops them.
 *
 * Data the settings service would refuse anyway (a function, a class instance,
 * a non-finite number, a cycle, an array hole, a prototype key) is refused here
 * with the same code the service's refusal maps to, `settings/rejected`, and the
 * field's `path`; only the limits on the request's size are `settings/invalid`.
 * No message quotes a received value.
 */
export function copyJsonData(value: unknown, site: DataSite): JsonValue {
  const root = site.at ?? []
  const ancestors = new Set<object>()
  const refuse = (what: string, path: string[]): never => {
    throw rejected(`${site.label}: ${what} at ${pathText(path)}`, sectionDetails(site.facts, { path, reason: 'SETTINGS_BAD_INPUT' }))
  }
  const walk = (input: unknown, path: string[], depth: number): JsonValue => {
    if (input === null || typeof input === 'boolean' || typeof input === 'string') return input
    if (typeof input === 'number') return Number.isFinite(input) ? input : refuse('data must be JSON-compatible: non-finite number', path)
    if (typeof input !== 'object') return refuse(`data must be JSON-compatible: ${kindOf(input)}`, path)
    if (depth >= MAX_DEPTH) {
      throw invalid(`${site.label}: data nests deeper than ${MAX_DEPTH} levels at ${pathText(path)}`, sectionDetails(site.facts, { path }))
    }
    if (ancestors.has(input)) refuse('data must be JSON-compatible: circular reference', path)
    const isArray = Array.isArray(input)
    if (!isArray && !isPlainObject(input)) refuse(`data must be JSON-compatible: ${kindOf(input)}`, path)
    ancestors.add(input)
    let result: JsonValue
    if (isArray) {
      const items: JsonValue[] = []
      for (let index = 0; index < input.length; index++) {
        const itemPath = [...path, String(index)]
        const descriptor = Object.getOwnPropertyDescriptor(input, index)
        if (!descriptor) refuse('data must be JSON-compatible: array hole', itemPath)
        if (!('value' in descriptor!)) refuse('data must be JSON-compatible: accessor property', itemPath)
        if (descriptor!.value === undefined) refuse('data must be JSON-compatible: undefined array entry', itemPath)
        items.push(walk(descriptor!.value, itemPath, depth + 1))
      }
      result = items
    } else {
      const entries: Record<string, JsonValue> = {}
      for (const key of Object.keys(input)) {
        const itemPath = [...path, key]
        if (PROTOTYPE_KEYS.has(key)) refuse(`prototype key ${JSON.stringify(key)} is not allowed`, itemPath)
        // Read descriptors rather than properties: a getter is caller code, and none runs here.
        const descriptor = Object.getOwnPropertyDescriptor(input, key)!
        if (!('value' in descriptor)) refuse('data must be JSON-compatible: accessor property', itemPath)
        if (descriptor.value === undefined) continue
        entries[key] = walk(descriptor.value, itemPath, depth + 1)
      }
      result = entries
    }
    ancestors.delete(input)
    return result
  }
  return walk(value, [...root], 0)
}

/**
 * Refuse a request whose JSON encoding is larger than {@link MAX_BYTES}.
 * @param value - already-copied JSON data, so encoding it cannot fail.
 */
export function checkSize(value: unknown, label: string, facts: SectionFacts): void {
  if (Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > MAX_BYTES) {
    throw invalid(`${label}: the request exceeds ${MAX_BYTES} bytes of JSON`, sectionDetails(facts))
  }
}
