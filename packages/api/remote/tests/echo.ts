import type { Context } from 'cordis'
import { RemoteError } from '../src/error.ts'

/**
 * The README's demo service: `echo.say(text)` answers `text` and broadcasts
 * `echo/said`; it refuses an empty text with its own code `echo/empty`,
 * registered as 422.
 */
export function exposeEcho(ctx: Context): void {
  ctx.remoteServer.expose(
    'echo',
    {
      say([text]) {
        if (typeof text !== 'string') throw new RemoteError('remote/bad-request', 'say takes one string')
        if (!text) throw new RemoteError('echo/empty', 'there is nothing to say')
        ctx.remoteServer.broadcast('echo/said', { text })
        return text
      },
    },
    { errors: { 'echo/empty': 422 } },
  )
}
