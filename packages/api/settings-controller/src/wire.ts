import type { Context, Logger } from 'cordis'
import type { RemoteHandler, RemoteService } from 'dsh-remote'
import type { SettingsPathOpView, SettingsRestoreOptions } from './types.ts'
import { checkArity } from './boundary.ts'
import type { SettingsController } from './controller.ts'
import { SETTINGS_ERROR_STATUS } from './errors.ts'

/** The service name the controller is exposed under: clients call `remote.settings.<method>`. */
export const SETTINGS_REMOTE_SERVICE = 'settings'

/** The controller methods reachable on the wire, and nothing else. */
export const settingsRemoteMethods = [
  'describe',
  'update',
  'replace',
  'mutate',
  'openSettingsDocument',
  'canOpenAgentPresetDirectory',
  'openAgentPresetDirectory',
  'history',
  'compare',
  'restore',
] as const

/**
 * The client-side type of the `settings` service, derived from the controller's
 * own method signatures (the `AbortSignal` parameters are the server's to supply):
 * `createRemote<{ settings: SettingsRemote }>(…)`.
 */
export type SettingsRemote = RemoteService<SettingsController, (typeof settingsRemoteMethods)[number]>

declare module 'dsh-remote' {
  interface RemoteServices {
    /** The settings controller, as `ctx.remote.settings` in a client-side cordis app. */
    settings: SettingsRemote
  }
}

/**
 * The wire handlers: each takes the decoded argument array, refuses extra
 * arguments (the one check that is the wire's own), and calls the controller,
 * which hands what it got to the settings service to check. The two `open…`
 * methods get the request's signal, aborted when the client goes away.
 */
export function settingsHandlers(controller: SettingsController): Record<(typeof settingsRemoteMethods)[number], RemoteHandler> {
  return {
    describe: async (args) => (checkArity('describe', args, 2), controller.describe(args[0] as string, args[1] as string[])),
    update: async (args) => (checkArity('update', args, 4), controller.update(args[0] as string, args[1] as Record<string, unknown>, args[2] as number, args[3] as string)),
    replace: async (args) => (checkArity('replace', args, 4), controller.replace(args[0] as string, args[1] as Record<string, unknown>, args[2] as number, args[3] as string)),
    mutate: async (args) => (checkArity('mutate', args, 4), controller.mutate(args[0] as string, args[1] as SettingsPathOpView[], args[2] as number, args[3] as string)),
    openSettingsDocument: async (args, { signal }) => (checkArity('openSettingsDocument', args, 0), controller.openSettingsDocument(signal)),
    canOpenAgentPresetDirectory: async (args) => (checkArity('canOpenAgentPresetDirectory', args, 0), controller.canOpenAgentPresetDirectory()),
    openAgentPresetDirectory: async (args, { signal }) => (checkArity('openAgentPresetDirectory', args, 1), controller.openAgentPresetDirectory(args[0] as string, signal)),
    history: async (args) => (checkArity('history', args, 1), controller.history(args[0] as { limit?: number; before?: string })),
    compare: async (args) => (checkArity('compare', args, 1), controller.compare(args[0] as string)),
    restore: async (args) => (checkArity('restore', args, 2), controller.restore(args[0] as string, args[1] as SettingsRestoreOptions)),
  }
}

/**
 * Follow the `remoteServer` service's lifetime: whenever one is present, expose
 * the controller as `settings` with its error codes ({@link SETTINGS_ERROR_STATUS},
 * so each answers with its HTTP status) and forward settings events to its streams;
 * when it goes away, both go with it (they are effects of the inject fiber),
 * and a server that appears later gets them again.
 *
 * Events carry facts only, never values: `settings/document-updated`
 * `{ ns, revision, scope? }` and `settings/updated` `{ ns, scope?, source }`.
 * A page that hears one re-reads the namespace it names with `describe`
 * (redacted, filtered to that namespace), unless it holds that revision already.
 */
export function serveOnWire(ctx: Context, controller: SettingsController, logger: Logger): void {
  ctx.inject(['remoteServer'], (ctx) => {
    const server = ctx.remoteServer
    try {
      server.expose(SETTINGS_REMOTE_SERVICE, settingsHandlers(controller), { errors: SETTINGS_ERROR_STATUS })
    } catch (error) {
      // A failed inject fiber stays silent until awaited: say why the page cannot reach settings.
      logger.error(`settings-controller: exposing ${SETTINGS_REMOTE_SERVICE} on the remote server failed:`, error)
      throw error
    }
    // Resolved once for this server's lifetime, not per event: reaching a method through the service proxy costs more than the broadcast.
    const broadcast = server.broadcast.bind(server)
    const forward = (event: string, payload: Record<string, unknown>) => {
      // A failing stream must never reach the settings commit that emitted the event.
      try {
        broadcast(event, payload)
      } catch (error) {
        logger.warn(`settings-controller: broadcasting ${event} failed:`, error)
      }
    }
    ctx.on('settings/document-updated', (ns, revision, scope) => {
      forward('settings/document-updated', { ns, revision, ...(scope === undefined ? {} : { scope }) })
    })
    ctx.on('settings/updated', (ns, _next, _prev, source, scope) => {
      forward('settings/updated', { ns, ...(scope === undefined ? {} : { scope }), source })
    })
  })
}
