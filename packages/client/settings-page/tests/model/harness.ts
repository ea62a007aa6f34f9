import { Context } from 'cordis'
import { createScope } from 'dsh-scope'
import type { SettingsDocument, SettingsNamespaceView, SettingsProvider, SettingsRegisterOptions } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type Schema from 'schemastery'
import { buildForm, type FormModel } from '../../src/model/index.ts'

/** A booted memory provider with one namespace registered, as the page's server would hold it. */
export interface Deployment {
  settings: SettingsProvider
  provider: MemorySettingsProvider
  /** The redacted view of `ns` under `scope`, exactly as the controller describes it. */
  view(scope?: string): SettingsNamespaceView
  /** The form built from that view. */
  form(scope?: string): FormModel
  /** Each value the plugin's `register` returned, one per start: empty while it waits for setup. */
  started: unknown[]
  dispose(): Promise<void>
}

export const NS = 'demo'

/** Boot the real settings service and register `schema` under `NS` (inside `scope` when given). */
export async function deploy(schema: Schema, options: { document?: SettingsDocument; register?: SettingsRegisterOptions<any>; scope?: string; waits?: boolean } = {}): Promise<Deployment> {
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const fiber = root.plugin(MemorySettingsProvider, { document: options.document ?? {} })
  await fiber
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  const parent = options.scope ? createScope(root, { name: options.scope }).ctx : root
  const started: unknown[] = []
  const plugin = parent.plugin({ inject: ['settings'], apply: (ctx: Context) => void started.push(ctx.settings.register(NS, schema, options.register).get()) })
  // A plugin waiting for setup fails its first start; the seam starts it again once a write gives what it lacks.
  await (options.waits ? plugin.await().catch(() => undefined) : plugin.await())
  const view = (scope?: string) => {
    const found = settings.describe({ redactSecrets: true, ...(scope ? { scope } : {}) }).find((d) => d.ns === NS)
    if (!found) throw new Error('namespace not described')
    return found as SettingsNamespaceView
  }
  return { settings, provider: settings as MemorySettingsProvider, view, form: (scope) => buildForm(view(scope)), started, dispose: () => fiber.dispose().then(() => {}) }
}
