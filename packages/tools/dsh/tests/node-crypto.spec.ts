/**
 * The command's `node:crypto` primitives for the hello judge every proof as
 * Web Crypto's do: the same HMAC accepted, any other (one bit off, cut short,
 * under another key) refused; and the nonces they make are what a host takes.
 */
import fc from 'fast-check'
import { isNonce, newNonce, WEB_CRYPTO } from 'dsh-remote/client'
import { describe, expect, it } from 'vitest'
import { NODE_CRYPTO } from '../src/values/node-crypto.ts'

const bytes = (min = 0) => fc.uint8Array({ minLength: min, maxLength: 64 }).map((array) => new Uint8Array(array))

describe('the hello over node:crypto', () => {
  it('accepts and refuses exactly what Web Crypto does', async () => {
    await fc.assert(
      fc.asyncProperty(bytes(1), bytes(), fc.nat(255), async (key, data, flip) => {
        const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']), data))
        const bent = mac.slice()
        bent[flip % bent.length]! ^= 1
        const cases = [mac, bent, mac.slice(0, 16), new Uint8Array(0)]
        for (const candidate of cases) {
          expect(await NODE_CRYPTO.verifyHmac(key, data, candidate)).toBe(await WEB_CRYPTO.verifyHmac(key, data, candidate))
        }
        expect(await NODE_CRYPTO.verifyHmac(key, data, mac)).toBe(true)
        expect(await NODE_CRYPTO.verifyHmac(key, data, bent)).toBe(false)
      }),
      { numRuns: 100 },
    )
  })

  it('makes nonces a host takes, never the same twice', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const nonce = newNonce(NODE_CRYPTO)
      expect(isNonce(nonce)).toBe(true)
      seen.add(nonce)
    }
    expect(seen.size).toBe(200)
  })
})
