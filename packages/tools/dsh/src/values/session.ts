/**
 * The deployment's settings in this process with no host running: its
 * provider alone (infrastructure, not a plugin that registers settings),
 * each recorded kind registered from its revived schema with its recorded
 * base, and a controller whose writes are recorded as the command's. No
 * plugin of the deployment is imported. The seam judges a write as a host
 * would by the schema (types, required values, ranges); a plugin's own
 * `validate` and its transforms are code, which does not run here.
 *
 * A session that only reads opens the provider read-only: writes, migration
 * write-backs included, are refused by the seam before they reach the store,
 * and the provider writes nothing beside the document (no editor schema).
 */
import { Context, type Fiber, type Plugin } from 'cordis'
import { importPlugin } from 'dsh-loader'
import { createScope } from 'dsh-scope'
import { SettingsStoreError, type SettingsDocument, type SettingsProvider } from 'dsh-settings'
import { stepsAsStored } from 'dsh-settings/offline'
import SettingsController from 'dsh-settings-controller'
import type { CatalogKind } from 'dsh-settings-controller/catalog'
import type { ValuePlan } from './deployment-plan.ts'
import { baseOf, RAW_SCHEMA, schemaOfKind } from './revived.ts'
import { UnavailableError } from './unavailable.ts'

/** What a session serves. */
export interface Session {
  /** The controller over the session's provider (its writes recorded with origin `command`). */
  controller: SettingsController
  /** The deployment's provider as this session started it (for what only a provider does, such as moving secrets). */
  provider: SettingsProvider
  /** The document as the provider loaded it (and as committed since). Never change it. */
  document(): SettingsDocument
  /** Register `kind` (or a raw kind for `ns`) with every recorded instance; resolves once each registered or failed. */
  register(kind: CatalogKind | { ns: string; raw: true }): Promise<void>
  close(): Promise<void>
}

type ProviderClass = abstract new (...args: any[]) => SettingsProvider

/**
 * The deployment's provider class as the command runs it: the editor schema
 * and whatever else a provider writes when kinds come and go is left to a
 * host; with `readOnly`, no write reaches the store.
 */
function commandProvider(Provider: ProviderClass, readOnly: boolean): ProviderClass {
  abstract class CommandProvider extends Provider {
    override get writable(): boolean {
      return readOnly ? false : super.writable
    }

    protected override kindsChanged(): void {}

    protected override async store(...args: Parameters<SettingsProvider['store']>): ReturnType<SettingsProvider['store']> {
      if (readOnly) throw new SettingsStoreError('SETTINGS_READ_ONLY', 'the settings were opened to read: nothing is written', 'settings')
      return super.store(...args)
    }

    /** The document the seam holds now. */
    get committed(): SettingsDocument {
      return this.engine.document
    }
  }
  return CommandProvider
}

/** The registrations of one kind under the scopes it was recorded in, each on a fiber of its own (added to `owned`, to dispose). */
function registerKind(root: Context, kind: CatalogKind | { ns: string; raw: true }, owned: { dispose(): unknown }[]): Promise<void> {
  const instances = 'raw' in kind ? [{ scope: undefined as string | undefined }] : kind.instances.length ? kind.instances : [{ scope: undefined }]
  const schema = 'raw' in kind ? RAW_SCHEMA : schemaOfKind(kind)
  const options = 'raw' in kind ? {} : { applies: kind.applies, version: kind.version, migrations: stepsAsStored(kind.steps) }
  const fibers: Fiber[] = instances.map((instance) => {
    let parent = root
    if (instance.scope !== undefined) {
      const scope = createScope(root, { name: instance.scope })
      owned.push(scope)
      parent = scope.ctx
    }
    const base = 'raw' in kind ? undefined : baseOf(instance as CatalogKind['instances'][number])
    const fiber = parent.plugin({
      name: `dsh settings: ${kind.ns}`,
      inject: ['settings'],
      apply: (ctx: Context) => void ctx.settings.register(kind.ns, schema, { ...options, ...(base === undefined ? {} : { base }) }),
    })
    owned.push(fiber)
    return fiber
  })
  // One that needs setup, or whose stored section the schema refuses, fails its own fiber, as its plugin would.
  return Promise.allSettled(fibers.map((fiber) => fiber.await())).then(() => {})
}

/**
 * Start the deployment's provider (`readOnly` to read) and a controller in a
 * root of this process.
 * @throws {UnavailableError} when the deployment mounts no provider, or it does not start.
 */
export async function startSession(plan: ValuePlan, conditions: readonly string[], { readOnly }: { readOnly: boolean }): Promise<Session> {
  const entry = plan.provider
  if (!entry) throw new UnavailableError(`${plan.file} mounts no settings provider (a plugin whose package declares cordis.service.implements: [settings])`)
  const root = new Context()
  // Disposed last first: registrations, then the controller, then the provider.
  const fibers: { dispose(): unknown }[] = []
  const close = async () => {
    for (const fiber of fibers.splice(0).reverse()) await Promise.resolve(fiber.dispose()).catch(() => {})
  }
  let provider: SettingsProvider & { committed: SettingsDocument }
  try {
    const Provider = (await importPlugin(entry.specifier, plan.baseDir, { conditions })) as Plugin
    if (typeof Provider !== 'function' || !(Provider.prototype instanceof Object)) throw new TypeError(`${entry.specifier} is not a settings provider class`)
    const fiber = root.plugin(commandProvider(Provider as unknown as ProviderClass, readOnly) as never, structuredClone(entry.config) as never)
    fibers.push(fiber)
    await fiber.await()
    provider = root.get('settings') as typeof provider
    if (!provider) throw new TypeError(`${entry.specifier} did not provide settings`)
  } catch (error) {
    await close()
    // The provider's own message names the store and never its content.
    throw new UnavailableError(`the settings provider ${entry.specifier} did not start: ${(error as Error)?.message ?? String(error)}`)
  }
  const controllerFiber = root.plugin(SettingsController, { opener: false, page: false, catalog: false, origin: 'command' })
  fibers.push(controllerFiber)
  await controllerFiber.await()
  return {
    controller: root.get('settingsController') as SettingsController,
    provider,
    document: () => provider.committed,
    register: (kind) => registerKind(root, kind, fibers),
    close,
  }
}
