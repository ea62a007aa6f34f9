import type { Context } from 'cordis'
import type { SettingsEngine } from './engine.ts'
import { settingsNamespace } from './ids.ts'
import type { SettingsNamespaceInput, SettingsPartial, SettingsSchema, SettingsScope, SettingsSectionHooks } from './types.ts'

/** Whether a consumer's fiber is live (not unloading or disposed). */
function isLive(owner: Context): boolean {
  return owner.fiber.uid !== null && owner.fiber.state === 2 // FiberState.ACTIVE
}

function checkHooks(hooks: unknown): asserts hooks is SettingsSectionHooks<unknown> {
  const candidate = hooks as Partial<SettingsSectionHooks<unknown>> | undefined
  if (typeof candidate?.setSource !== 'function' || typeof candidate.onChange !== 'function') {
    throw new TypeError('settings section hooks need setSource and onChange functions')
  }
}

/**
 * The provider side of `installSettingsSection`. The registration belongs to
 * `owner`: it lives under the owner's nearest named scope and is an effect of
 * the owner's fiber; it also ends when `caller` (the provider side) goes,
 * which points a live owner back at `entry`. Whoever calls, the registration
 * never outlives either side.
 */
export function installSection<T>(
  engine: SettingsEngine,
  caller: Context,
  owner: Context,
  nsInput: string,
  schema: SettingsSchema<T>,
  entry: T,
  hooks: SettingsSectionHooks<T>,
): void {
  const ns = settingsNamespace(nsInput)
  checkHooks(hooks)
  let registration: { handle: SettingsScope<T>; dispose: () => unknown }
  try {
    registration = engine.register<T>(owner, ns, schema, { base: entry as SettingsPartial<T>, validate: hooks.validate?.bind(hooks) })
  } catch (error) {
    // The consumer keeps its composition entry; a settings problem must not break it.
    engine.logger.warn(`settings: ${JSON.stringify(ns)} keeps its composition entry: ${(error as Error).message}`)
    return
  }
  const { handle, dispose } = registration
  hooks.setSource(() => handle.get())
  hooks.onChange()
  handle.watch(() => {
    if (isLive(owner)) hooks.onChange()
  })
  // The provider side going ends the registration too, and points a live owner back at its entry.
  caller.effect(() => () => {
    const done = dispose()
    if (isLive(owner)) {
      hooks.setSource(() => entry)
      hooks.onChange()
    }
    return done
  }, `settings.installSection(${JSON.stringify(ns)})`)
}

/**
 * Give an optional-settings consumer a live value whether or not a settings
 * provider is mounted. Without one, the consumer keeps `entry`. With one,
 * `entry` becomes the namespace's base layer, `hooks.setSource` receives a
 * function yielding the live value and `hooks.onChange` fires on every
 * change; if the provider goes away while the consumer stays, the source
 * falls back to `entry`.
 * @throws {TypeError} synchronously for a malformed namespace, with or without a provider.
 */
export function installSettingsSection<const Namespace extends string, T>(
  ctx: Context,
  ns: Namespace & SettingsNamespaceInput<Namespace>,
  schema: SettingsSchema<T>,
  entry: T,
  hooks: SettingsSectionHooks<T>,
): void {
  settingsNamespace(ns)
  checkHooks(hooks)
  ctx.inject(['settings'], (inner) => {
    inner.settings.installSection(ctx, ns as string, schema, entry, hooks)
  })
}
