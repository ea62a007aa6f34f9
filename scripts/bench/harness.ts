/**
 * What every measurement shares: the result row, temp directories that are
 * always removed, booting a provider on a fresh root context, mounting a
 * plugin that needs `settings`, and the synthetic settings documents.
 */
import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import type { SettingsProvider } from 'dsh-settings'
import { plugWithSettings } from 'dsh-testing'
import { TempDirs } from '../lib/temp-dirs.ts'

/** One line of the results table (and one entry of bench-results.json). */
export interface Row {
  /** Stable id, for tooling that reads bench-results.json. */
  id: string
  measurement: string
  /** Our figure, in `unit`. */
  ours: number
  /** The comparison measured in the same run, in `unit`, if the row has one. */
  comparison?: number
  /** What the comparison is. */
  comparisonLabel?: string
  unit: string
  /** The figure the target is judged on: `ours / comparison`, or a speed-up `comparison / ours`. */
  ratio?: number
  ratioKind?: 'ours/comparison' | 'speed-up'
  target: string
  /** `undefined` for report-only rows. */
  met?: boolean
  /** `ours` is only a lower bound: the measurement ran out of its time budget before it finished. */
  lowerBound?: boolean
  /** Samples and context for the results file. */
  detail?: Record<string, unknown>
}

// ---- temp directories --------------------------------------------------------

const temps = new TempDirs('dsh-bench')

/** A fresh temp directory (realpath'd, so paths compare equal to what the provider canonicalizes). */
export async function tempDir(prefix: string): Promise<string> {
  return temps.create(prefix)
}

/** Remove one temp directory now. */
export async function removeTemp(dir: string): Promise<void> {
  temps.remove(dir)
}

/** Remove every temp directory still around (the entry point's `finally`). */
export async function removeAllTemps(): Promise<void> {
  temps.removeAll()
}

// ---- cordis --------------------------------------------------------------------

/** A root context running one settings provider. */
export interface Booted {
  root: Context
  fiber: Fiber
  /** The service as a plugin sees it (through cordis's service proxy). */
  settings: SettingsProvider
  /** Warnings and errors the settings logger printed (the bench has no console exporter). */
  warnings: string[]
  dispose(): Promise<void>
}

/** Boot `plugin` with `config` on a fresh root context and wait until `settings` is available. */
export async function bootProvider(plugin: any, config: unknown): Promise<Booted> {
  const root = new Context()
  const warnings: string[] = []
  root.logger.exporter({
    export: (message) => {
      if (message.type === 'warn' || message.type === 'error') warnings.push(message.args.map(String).join(' '))
    },
  })
  const fiber = root.plugin(plugin, config)
  await fiber.await()
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  return { root, fiber, settings, warnings, dispose: async () => void (await fiber.dispose()) }
}

/** Plug a plugin that needs `settings` under `parent`; resolves with what `apply` returned once it is active. */
export const mount = <T>(parent: Context, apply: (ctx: Context) => T): Promise<{ value: T; fiber: Fiber }> => plugWithSettings(parent, apply)

// ---- the synthetic deployment ---------------------------------------------------

/** `count` namespace ids: ns-000, ns-001, … */
export function namespaces(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `ns-${String(index).padStart(3, '0')}`)
}

/**
 * Build the write benchmarks' plugin schema (nested object, list, secret) as a
 * new object on every call. A real deployment holds one schema object per
 * plugin, each built by that plugin's own module, so benchmarks that register
 * many namespaces call this once per namespace instead of sharing one object.
 */
export function buildPluginSchema() {
  return Schema.object({
    engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo'),
    limit: Schema.natural().max(1000).default(10),
    counter: Schema.natural().default(0),
    nested: Schema.object({
      enabled: Schema.boolean().default(false),
      label: Schema.string().default(''),
    }),
    tags: Schema.array(String).default([]),
    apiKey: Schema.string().role('secret'),
  })
}

/** One shared instance of {@link buildPluginSchema}, for benchmarks where sharing does not matter. */
export const PluginSchema = buildPluginSchema()

export type PluginSettings = ReturnType<typeof PluginSchema>

/**
 * A hand-written-looking YAML document with one commented section per
 * namespace (~120 bytes each). `counters` sets a namespace's `counter`.
 * `limit` cycles through 1–1,000 (the schema's maximum), so any count of
 * namespaces is valid.
 */
export function yamlDocument(names: readonly string[], counters: Readonly<Record<string, number>> = {}): string {
  const lines = ['# dsh settings, edited by hand', '']
  names.forEach((ns, index) => {
    lines.push(
      `# settings of ${ns}`,
      `${ns}:`,
      `  engine: ${index % 2 ? 'bing' : 'google'}`,
      `  limit: ${(index % 1000) + 1}`,
      `  counter: ${counters[ns] ?? 0}`,
      `  nested:`,
      `    enabled: true`,
      `    label: "plugin ${index}"`,
      `  tags: [a, b]`,
      '',
    )
  })
  return lines.join('\n')
}

/** The same data as {@link yamlDocument}, as a plain object (for conf's JSON store). */
export function plainDocument(names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    names.map((ns, index) => [
      ns,
      { engine: index % 2 ? 'bing' : 'google', limit: (index % 1000) + 1, counter: 0, nested: { enabled: true, label: `plugin ${index}` }, tags: ['a', 'b'] },
    ]),
  )
}
