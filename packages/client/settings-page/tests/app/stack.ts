/**
 * What the session specs share: the real settings service (memory provider)
 * and controller behind the fake wire, a session on it, and `until`, which
 * waits for a store's state by listening rather than polling. Everything a
 * spec boots is disposed after its test by the hook {@link useStack} installs.
 */
import { Context } from 'cordis'
import type { SettingsDocument } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { SettingsController } from 'dsh-settings-controller'
import { afterEach, vi } from 'vitest'
import { SettingsSession } from '../../src/app/session.ts'
import { FakeRemote } from './fake-remote.ts'

/** A booted memory provider and controller, with the session not made yet. */
export interface Stack {
  root: Context
  provider: MemorySettingsProvider
  controller: SettingsController
  /** A session on a fake wire to the controller, constructed (not started); closed after the test. */
  session(): { remote: FakeRemote; session: SettingsSession }
}

/** What {@link useStack}'s `boot` takes. */
export interface StackOptions {
  document?: SettingsDocument
  writable?: boolean
  /** The provider class to boot: a memory provider, or one that extends it (a store with rules of its own). */
  provider?: typeof MemorySettingsProvider
}

/** Install the disposal hook and answer `boot`; call once at the top of a spec file. */
export function useStack(): { boot(options?: StackOptions): Promise<Stack> } {
  const disposers: (() => unknown)[] = []
  afterEach(async () => {
    vi.useRealTimers()
    for (const dispose of disposers.splice(0).reverse()) await dispose()
  })
  return {
    async boot({ document = {}, writable = true, provider: Provider = MemorySettingsProvider } = {}) {
      const root = new Context()
      root.logger.exporter({ export: () => {} })
      const providerFiber = root.plugin(Provider, { document, writable })
      await providerFiber
      disposers.push(() => providerFiber.dispose())
      let provider!: MemorySettingsProvider
      await root.inject(['settings'], (ctx) => void (provider = ctx.settings as MemorySettingsProvider))
      const controllerFiber = root.plugin(SettingsController, { opener: false, page: false })
      await controllerFiber
      disposers.push(() => controllerFiber.dispose())
      let controller!: SettingsController
      await root.inject(['settingsController'], (ctx) => void (controller = ctx.settingsController))
      return {
        root,
        provider,
        controller,
        session() {
          const remote = new FakeRemote(controller)
          const session = new SettingsSession(remote.asRemote())
          disposers.push(() => session.close())
          return { remote, session }
        },
      }
    },
  }
}

/** Resolve with the store's state once `check` holds for it, listening rather than polling. */
export function until<T>(store: { state: T; subscribe(listener: () => void): () => void }, check: (state: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    if (check(store.state)) return resolve(store.state)
    const off = store.subscribe(() => {
      if (!check(store.state)) return
      off()
      resolve(store.state)
    })
  })
}
