/**
 * The corpus of published plugins' `Config` schemas (Koishi's official and
 * community packages), kept as a fixture by `scripts/fixtures/koishi-corpus.ts`.
 * Every stage of the seam (registration, describe, JSON Schema, the file
 * provider, the page's form model, the page itself) is tested over every entry.
 */
import { readFileSync } from 'node:fs'
import Schema from 'schemastery'

/** One published `Config`. */
export interface CorpusEntry {
  /** The npm package it came from. */
  package: string
  version: string
  license: string
  /** Where the package exports it: `Config`, `default.Config`, `HttpServer.Config`. */
  export: string
  /** Its schemastery `toJSON()` envelope. */
  schema: unknown
  /** A settings namespace made of the package and export names, unique across the corpus. */
  ns: string
}

interface Fixture {
  source: string
  refreshed: string
  entries: Omit<CorpusEntry, 'ns'>[]
}

function namespaceOf(entry: Omit<CorpusEntry, 'ns'>): string {
  const pkg = entry.package.replace(/^@koishijs\/plugin-/, '').replace(/^koishi-plugin-/, '').replace(/^@satorijs\//, '')
  const where = entry.export.replace(/\.?Config$/, '').replace(/^default$/, '')
  const words = `${pkg} ${where.replace(/([a-z])([A-Z])/g, '$1 $2')}`.toLowerCase().match(/[a-z0-9]+/g) ?? []
  const ns = words.join('-')
  return /^[a-z]/.test(ns) ? ns : `p-${ns}`
}

let cached: CorpusEntry[] | undefined
let cachedHeldOut: CorpusEntry[] | undefined

/**
 * The entries of one fixture file, each with its namespace; one another set
 * already uses (`taken`) is prefixed with the package's npm scope, so both sets
 * can be registered side by side.
 */
function readFixture(name: string, taken: ReadonlySet<string> = new Set()): CorpusEntry[] {
  const fixture = JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as Fixture
  return fixture.entries.map((entry) => {
    const ns = namespaceOf(entry)
    const scope = /^@([a-z0-9-]+)\//.exec(entry.package)?.[1] ?? 'held'
    return { ...entry, ns: taken.has(ns) ? `${scope}-${ns}` : ns }
  })
}

/** Every entry of the corpus, in the fixture's order (read once). */
export function corpusEntries(): readonly CorpusEntry[] {
  cached ??= readFixture('koishi-corpus.json')
  return cached
}

/**
 * The held-out set (`fixtures/koishi-held-out.json`, written by
 * `scripts/fixtures/koishi-corpus.ts --held-out`): published Configs of
 * packages the corpus does not hold, chosen for the shapes a first setup meets
 * (more adapters, databases, enable-to-reveal switches). Not looked at while
 * building the form model: tests run it to check the model on schemas nobody
 * here tuned it for. Same entry shape as {@link corpusEntries}; namespaces are
 * unique across both sets (read once).
 */
export function heldOutEntries(): readonly CorpusEntry[] {
  cachedHeldOut ??= readFixture('koishi-held-out.json', new Set(corpusEntries().map((entry) => entry.ns)))
  return cachedHeldOut
}

/** The entry's schema rebuilt with this workspace's schemastery, as a host would hold it after loading the plugin. */
export function corpusSchema(entry: CorpusEntry): Schema {
  return Schema(entry.schema as Schema)
}

/** What {@link sampleSection} fills. */
export interface SampleOptions {
  /** Also fill optional fields (with values other than their defaults where the type allows). */
  optional?: boolean
  /** The text every secret gets, numbered (`<prefix>-1`, …), so a test can look for it anywhere. */
  secretPrefix?: string
}

interface SampleRun {
  options: SampleOptions
  secrets: string[]
  depth: number
}

function accepts(schema: Schema, value: unknown): boolean {
  try {
    schema(value)
    return true
  } catch {
    return false
  }
}

function sample(schema: Schema, run: SampleRun): unknown {
  const { meta } = schema
  if (run.depth > 12) return undefined
  const inner = { ...run, depth: run.depth + 1 }
  if (meta.role === 'secret' && schema.type === 'string') {
    const secret = `${run.options.secretPrefix ?? 'planted-secret'}-${run.secrets.length + 1}`
    run.secrets.push(secret)
    return secret
  }
  const wanted = meta.required || run.options.optional
  switch (schema.type) {
    case 'string':
      if (!wanted) return undefined
      return meta.role === 'link' || meta.role === 'url' ? 'https://example.com/corpus' : 'corpus'
    case 'number':
      if (!wanted) return undefined
      return Math.min(meta.max ?? Infinity, Math.max(meta.min ?? 1, 1))
    case 'boolean':
      return wanted ? meta.default !== true : undefined
    case 'const':
      return schema.value
    case 'object': {
      const section: Record<string, unknown> = {}
      for (const [key, child] of Object.entries(schema.dict ?? {})) {
        const value = sample(child, inner)
        if (value !== undefined) section[key] = value
      }
      return section
    }
    case 'intersect':
      return Object.assign({}, ...(schema.list ?? []).map((part) => sample(part, inner)).filter((part) => part && typeof part === 'object'))
    case 'union': {
      for (const branch of (schema.list ?? []).filter((b) => !b.meta.hidden)) {
        const value = sample(branch, inner)
        if (accepts(branch, value)) return value
      }
      return undefined
    }
    case 'tuple':
      return (schema.list ?? []).map((item) => sample(item, inner) ?? null)
    case 'transform':
    case 'lazy':
      return schema.inner ? sample(schema.inner, inner) : undefined
    default:
      return undefined
  }
}

/**
 * A stored section for `schema` as a person would write one: a value for every
 * required field without a default (and, with `optional`, for the rest), a
 * planted secret in every secret field reached, the first form of every union
 * that accepts it. Returns the section and the secrets planted.
 */
export function sampleSection(schema: Schema, options: SampleOptions = {}): { section: Record<string, unknown>; secrets: string[] } {
  const run: SampleRun = { options, secrets: [], depth: 0 }
  const value = sample(schema, run)
  const section = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  return { section, secrets: run.secrets }
}
