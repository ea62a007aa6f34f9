import type { Context } from 'cordis'
import { RemoteError } from '../src/error.ts'

/** The README's demo service: `echo.say(text)` answers `text` and broadcasts `echo/said`. */
export function exposeEcho(ctx: Context): void {
  ctx.remoteServer.expose('echo', {
    say([text]) {
      if (typeof text !== 'string') throw new RemoteError('remote/bad-request', 'say takes one string')
      ctx.remoteServer.broadcast('echo/said', { text })
      return text
    },
  })
}
