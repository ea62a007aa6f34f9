import type { IncomingMessage } from 'node:http'
import { RemoteError } from './error.ts'

/** The largest request body a call may carry: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The deepest nesting of arrays and objects a call body may have, counting the
 * body's own `{ "args": [...] }` as two levels. This package does not know the
 * services' own limits (the settings seam takes values 64 deep); it only keeps
 * `JSON.parse` and the walks after it (a handler's copy, say) from
 * recursing arbitrarily deep.
 */
export const MAX_BODY_DEPTH = 256

/** Keys that could reach an object's prototype if a handler ever merged the decoded data. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * One strict UTF-8 decoder for every body: without `stream` a decode call
 * keeps no state between calls, so sharing it is safe and spares a decoder per request.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Whether parsed JSON holds a prototype key at any depth. `JSON.parse` stores
 * such a key as an ordinary own property (it never reaches a prototype), so
 * looking after parsing finds the same keys a reviver would see, without the
 * reviver's cost per value. The walk keeps its own stack: the depth is bounded
 * before parsing, but nothing here recurses anyway.
 */
function holdsPrototypeKey(parsed: unknown): boolean {
  const pending: unknown[] = [parsed]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value !== 'object' || value === null) continue
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) pending.push(item)
      continue
    }
    for (const key of Object.keys(value)) {
      if (PROTOTYPE_KEYS.has(key)) return true
      const item = (value as Record<string, unknown>)[key]
      if (typeof item === 'object' && item !== null) pending.push(item)
    }
  }
  return false
}

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
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over
 * the text, brackets inside strings skipped, no recursion. Text that is not
 * JSON may be counted oddly; `JSON.parse` refuses it afterwards anyway.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === 0x5c) index++ // a backslash escapes the next character
      else if (code === 0x22) inString = false
    } else if (code === 0x22) {
      inString = true
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true
    } else if (code === 0x5d || code === 0x7d) {
      depth--
    }
  }
  return false
}

/**
 * Decode a call body, `{ "args": [...] }`, into its argument array. The
 * messages never quote the body: it may hold a secret, and `JSON.parse`'s own
 * messages repeat a slice of their input.
 * @throws {RemoteError} `remote/bad-request` for bytes that are not UTF-8 JSON, a body nested deeper than
 *   {@link MAX_BODY_DEPTH}, a body that is not an object with an array `args`, or a `__proto__`,
 *   `constructor` or `prototype` key at any depth.
 */
export function decodeArgs(body: Buffer): unknown[] {
  let text: string
  try {
    text = UTF8.decode(body)
  } catch {
    throw new RemoteError('remote/bad-request', 'the request body is not UTF-8')
  }
  // Checked before parsing: a handler's walks over the arguments would recurse once per level.
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
    throw new RemoteError('remote/bad-request', `the request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new RemoteError('remote/bad-request', 'the request body is not valid JSON')
  }
  if (holdsPrototypeKey(parsed)) {
    throw new RemoteError('remote/bad-request', 'the request body holds a reserved key (__proto__, constructor or prototype)')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RemoteError('remote/bad-request', 'the request body must be an object { "args": [...] }')
  }
  const args = (parsed as { args?: unknown }).args
  if (!Array.isArray(args)) throw new RemoteError('remote/bad-request', 'the request body needs an "args" array')
  return args
}
