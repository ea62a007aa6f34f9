/**
 * The server's side of the hello (`POST /remote/hello`, see `hello.ts`): the
 * one route under `/remote/` that takes no token, since it is how a client
 * learns, before sending the token anywhere, that this server holds it. It
 * reads only a nonce and answers only what the server is and the proof.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from './body.ts'
import { RemoteError } from './error.ts'
import { helloProof, isNonce, type HelloAnswer, type HelloHost } from './hello.ts'
import { sendJson } from './respond.ts'

/** The largest hello body read: `{ "nonce": … }` is about 60 bytes. */
export const HELLO_MAX_BYTES = 4096

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The nonce of a hello body, which must be exactly `{ "nonce": <nonce> }`.
 * @throws {RemoteError} `remote/bad-request` for anything else (the message never quotes the body).
 */
export function nonceOf(body: Uint8Array): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(UTF8.decode(body))
  } catch {
    parsed = undefined
  }
  const keys = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.keys(parsed) : []
  const nonce = keys.length === 1 && keys[0] === 'nonce' ? (parsed as { nonce: unknown }).nonce : undefined
  if (!isNonce(nonce)) throw new RemoteError('remote/bad-request', 'the hello takes { "nonce": <32 random bytes, base64url> }')
  return nonce
}

/**
 * Answer a hello: `200 { "value": { host, proof } }`.
 * @param host - what this server is, as it says in the answer (and proves).
 * @throws {RemoteError} `remote/method-not-allowed` for a method other than POST, `remote/bad-request`
 *   for a body that is not one nonce, `remote/too-large` past {@link HELLO_MAX_BYTES}.
 */
export async function answerHello(request: IncomingMessage, response: ServerResponse, key: CryptoKey, host: HelloHost): Promise<void> {
  if (request.method !== 'POST') {
    response.setHeader('Allow', 'POST')
    throw new RemoteError('remote/method-not-allowed', 'this route takes POST')
  }
  const nonce = nonceOf(await readBody(request, HELLO_MAX_BYTES))
  const answer: HelloAnswer = { host, proof: await helloProof(key, nonce, host) }
  sendJson(response, 200, JSON.stringify({ value: answer }))
}
