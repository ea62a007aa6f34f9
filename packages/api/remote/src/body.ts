import type { IncomingMessage } from 'node:http'
import { RemoteError } from './error.ts'

/** The largest request body a call may carry: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024

/** Keys that could reach an object's prototype if a handler ever merged the decoded data. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Thrown from the reviver to stop parsing at the first prototype key. */
class PrototypeKeyFound extends Error {}

/**
 * Read a request body of at most `limit` bytes.
 * @throws {RemoteError} `remote/too-large` as soon as the declared or received length passes the limit.
 */
export function readBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        // Stop reading: the answer says 413 and the connection closes after it.
        request.pause()
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(Buffer.concat(chunks, size))
    }
    // A body cut short (the client went away, the connection broke) is no server fault: answer, do not log.
    const onGone = () => {
      cleanup()
      reject(new RemoteError('remote/unavailable', 'the client went away'))
    }
    const cleanup = () => {
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('error', onGone)
      request.off('close', onGone)
    }
    request.on('data', onData)
    request.on('end', onEnd)
    request.on('error', onGone)
    request.on('close', onGone)
  })
}

function tooLarge(limit: number): RemoteError {
  return new RemoteError('remote/too-large', `the request body is over ${limit} bytes`)
}

/**
 * Decode a call body, `{ "args": [...] }`, into its argument array. The
 * messages never quote the body: it may hold a secret, and `JSON.parse`'s own
 * messages repeat a slice of their input.
 * @throws {RemoteError} `remote/bad-request` for bytes that are not UTF-8 JSON, a body that is not an
 *   object with an array `args`, or a `__proto__`, `constructor` or `prototype` key at any depth.
 */
export function decodeArgs(body: Buffer): unknown[] {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body)
  } catch {
    throw new RemoteError('remote/bad-request', 'the request body is not UTF-8')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text, (key, value: unknown) => {
      if (PROTOTYPE_KEYS.has(key)) throw new PrototypeKeyFound()
      return value
    })
  } catch (error) {
    if (error instanceof PrototypeKeyFound) {
      throw new RemoteError('remote/bad-request', 'the request body holds a reserved key (__proto__, constructor or prototype)')
    }
    throw new RemoteError('remote/bad-request', 'the request body is not valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RemoteError('remote/bad-request', 'the request body must be an object { "args": [...] }')
  }
  const args = (parsed as { args?: unknown }).args
  if (!Array.isArray(args)) throw new RemoteError('remote/bad-request', 'the request body needs an "args" array')
  return args
}
