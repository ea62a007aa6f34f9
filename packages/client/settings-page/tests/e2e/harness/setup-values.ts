/**
 * What a person gives a form during a first setup, and what the plugin must
 * then start with: the value typed for each kind of field, the constants a
 * chosen form holds, and the section all of that makes. Shared by the model's
 * setup spec and the page's setup journey.
 */
import type { Field } from '../../../src/model/index.ts'

/** One value a person gave, at its path in the section. */
export interface Typed {
  path: string[]
  value: unknown
  /** Typed into a secret field: it must show up nowhere but the plugin and the document. */
  secret: boolean
  /** A constant of a chosen form: the page may leave it out of the document where the schema defaults to it. */
  tag?: boolean
}

/** Texts tried, in order, for a text field whose schema gives a pattern. */
const PATTERNED = ['setup', 'setup-1', '1', 'a', 'https://setup.example/', 'setup@example.com']

/** A text for a field: the first of a few plain ones its pattern (if any) accepts. */
export function textFor(path: readonly string[], pattern?: { source: string; flags: string }): string {
  const plain = `setup-${path.join('-') || 'root'}`
  if (!pattern) return plain
  const test = new RegExp(pattern.source, pattern.flags)
  return [plain, ...PATTERNED].find((text) => test.test(text)) ?? plain
}

/** A number for a field: its minimum (or 1), kept under its maximum. */
export function numberFor(min?: number, max?: number): number {
  const low = min ?? 1
  return max !== undefined && low > max ? max : low
}

/**
 * The value a person gives `field` when the form says it is missing: `secret`
 * for a secret, a link for a link, the lowest allowed number, `true` for a
 * switch, the first choice of a select, a plain text otherwise.
 * @throws {Error} for a kind nobody can type a value into (a list, a table, JSON): the setup spec reports it.
 */
export function personValue(field: Field, secret: string): unknown {
  switch (field.kind) {
    case 'secret':
      return secret
    case 'link':
      return `https://setup.example/${field.path.join('/')}`
    case 'string':
    case 'textarea':
      return textFor(field.path, field.pattern)
    case 'number':
    case 'slider':
      return numberFor(field.min, field.max)
    case 'boolean':
      return true
    case 'select':
      return field.options?.[0]?.value
    case 'const':
      return field.constant
    default:
      throw new Error(`no value a person can type for a required ${field.kind} at ${field.path.join('.')}`)
  }
}

/** The constants form `index` of `union` holds (its discriminator's tag among them): choosing the form gives them. */
export function tagsOf(union: Field, index: number): Typed[] {
  const form = union.variants?.[index]?.field
  if (!form || form.kind !== 'object') return []
  return (form.children ?? [])
    .filter((child) => child.kind === 'const' && child.constant !== undefined && child.path.length === union.path.length + 1)
    .map((child) => ({ path: child.path, value: child.constant, secret: false, tag: true }))
}

/** The required constants of an object root, which a save gives without asking (`protocol: const('http').required()`). */
export function fixedOf(root: Field): Typed[] {
  if (root.kind !== 'object') return []
  return (root.children ?? [])
    .filter((child) => child.kind === 'const' && child.required && child.constant !== undefined)
    .map((child) => ({ path: child.path, value: child.constant, secret: false, tag: true }))
}

/** The section made of exactly the values given. */
export function sectionOf(typed: readonly Typed[]): Record<string, unknown> {
  const section: Record<string, unknown> = {}
  for (const { path, value } of typed) {
    let target = section
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>
    target[path.at(-1)!] = value
  }
  return section
}

/** The paths of a section's values: its leaves (an array is one value), each once. */
export function leafPaths(value: unknown, path: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return path.length ? [path] : []
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...path, key]))
}
