/**
 * The command's way to POST to a host: `node:http`, which is ready at once,
 * where the first `fetch` of a process starts undici (measured here: 30-40 ms
 * of a `dsh settings get` that must answer in 150). Redirects are answers,
 * never followed; failures look as `dsh-remote`'s client expects them.
 */
import { request } from 'node:http'
import type { PostLike } from 'dsh-remote/client'

/** A timeout, named as `AbortSignal.timeout` names one. */
function timedOut(ms: number): Error {
  const error = new Error(`no answer within ${ms} ms`)
  error.name = 'TimeoutError'
  return error
}

/** {@link PostLike} over `node:http` (plain `http:` only: a host listens on loopback). */
export const httpPost: PostLike = (url, { headers, body, timeoutMs, maxBytes }) =>
  new Promise((resolve, reject) => {
    const bytes = Buffer.from(body, 'utf8')
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(bytes.length) } }, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      let over = false
      res.on('data', (chunk: Buffer) => {
        if (over) return
        size += chunk.length
        if (maxBytes !== undefined && size > maxBytes) {
          over = true
          res.destroy()
          resolve({ status: res.statusCode ?? 0, text: undefined })
          return
        }
        chunks.push(chunk)
      })
      res.on('end', () => {
        if (!over) resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })
      })
      res.on('error', (error) => {
        if (!over) reject(new Error('the answer was cut off', { cause: error }))
      })
    })
    if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(timedOut(timeoutMs)))
    req.on('error', (error) => reject(error.name === 'TimeoutError' ? error : new Error(error.message, { cause: error })))
    req.end(bytes)
  })
