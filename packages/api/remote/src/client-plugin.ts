import type { Context } from 'cordis'
import Schema from 'schemastery'
import { createRemote } from './client.ts'
import type { Remote, RemoteServices } from './types.ts'

declare module 'cordis' {
  interface Context {
    /** The remote services of the server `RemoteClient` points at, typed by {@link RemoteServices}. */
    remote: Remote<RemoteServices>
  }
}

/**
 * A cordis plugin for client-side apps (a browser page, another process):
 * provides `ctx.remote`, a client of the server at `url` built with
 * `createRemote`. Browser-safe (no Node imports). Calls made through it are
 * not tied to any fiber; pass a signal to `ctx.remote.events` and abort it on
 * dispose (`ctx.effect(() => () => controller.abort())`).
 */
export class RemoteClient {
  /** The plugin's config schema: both fields are required. */
  static readonly Config: Schema<RemoteClient.Config> = Schema.object({
    url: Schema.string().required().description('Base URL of the remote server, e.g. http://127.0.0.1:5140.'),
    token: Schema.string().role('secret').required().description('Bearer token of that server.'),
  })

  constructor(ctx: Context, config: RemoteClient.Config) {
    ctx.provide('remote', createRemote<RemoteServices>({ url: config.url, token: config.token }))
  }
}

export namespace RemoteClient {
  /** Where the client connects. */
  export interface Config {
    url: string
    token: string
  }
}
