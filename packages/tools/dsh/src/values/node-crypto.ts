/**
 * The hello's two primitives over `node:crypto`, for the command: ready at
 * once, where the first use of Web Crypto in a process costs it a few
 * milliseconds of a `get` that must answer in 150.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { HelloCrypto } from 'dsh-remote/client'

/** {@link HelloCrypto} over `node:crypto`; the MAC is compared in constant time. */
export const NODE_CRYPTO: HelloCrypto = {
  random: (count) => new Uint8Array(randomBytes(count)),
  verifyHmac: async (key, data, mac) => {
    const expected = createHmac('sha256', key).update(data).digest()
    return mac.length === expected.length && timingSafeEqual(expected, mac)
  },
}
