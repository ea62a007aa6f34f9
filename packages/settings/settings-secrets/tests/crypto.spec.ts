import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decryptSecret, encryptSecret, SECRET_KEY_VARIABLE, SecretBoxError, SecretKeyError, secretKeyFromEnv } from '../src/index.ts'

const VALUE = 'sk-live-7f3a9c'

function thrown(action: () => unknown): Error {
  try {
    action()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a throw')
}

describe('encryptSecret / decryptSecret', () => {
  it('round-trips any text, with a fresh IV each time and no plain text in the box', () => {
    const key = randomBytes(32)
    const box = encryptSecret(VALUE, key)
    expect(box).toMatch(/^v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{22}==:[A-Za-z0-9+/=]+$/)
    expect(box).not.toContain(VALUE)
    expect(Buffer.from(box.split(':')[3]!, 'base64').toString('latin1')).not.toContain(VALUE)
    expect(encryptSecret(VALUE, key)).not.toBe(box)
    expect(decryptSecret(box, key)).toBe(VALUE)
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), (plain) => {
        expect(decryptSecret(encryptSecret(plain, key), key)).toBe(plain)
      }),
    )
  })

  it('refuses a box altered in any field, and a wrong key, as rejected', () => {
    const key = randomBytes(32)
    const box = encryptSecret(VALUE, key)
    const [version, iv, tag, body] = box.split(':') as [string, string, string, string]
    const flip = (text: string) => {
      const bytes = Buffer.from(text, 'base64')
      bytes[0]! ^= 1
      return bytes.toString('base64')
    }
    for (const altered of [
      [version, flip(iv), tag, body],
      [version, iv, flip(tag), body],
      [version, iv, tag, flip(body)],
    ]) {
      expect(thrown(() => decryptSecret(altered.join(':'), key))).toMatchObject({ name: 'SecretBoxError', code: 'SECRET_BOX_INVALID', reason: 'rejected' })
    }
    const wrong = thrown(() => decryptSecret(box, randomBytes(32)))
    expect(wrong).toBeInstanceOf(SecretBoxError)
    expect(wrong).toMatchObject({ reason: 'rejected' })
    expect(wrong.message).not.toContain(body)
  })

  it('refuses text that is not a v1 box as malformed', () => {
    const key = randomBytes(32)
    const [, iv, tag, body] = encryptSecret(VALUE, key).split(':') as [string, string, string, string]
    for (const box of ['', VALUE, `v2:${iv}:${tag}:${body}`, `v1:${iv}:${tag}`, `v1:${iv}:${tag}:${body}:x`, `v1:${iv.slice(4)}:${tag}:${body}`, `v1:${iv}:${tag}:!!`]) {
      const error = thrown(() => decryptSecret(box, key))
      expect(error).toMatchObject({ name: 'SecretBoxError', reason: 'malformed' })
      expect(error.message).not.toContain(VALUE)
    }
  })

  it('refuses a key that is not 32 bytes', () => {
    expect(() => encryptSecret(VALUE, randomBytes(16))).toThrow(SecretKeyError)
    expect(() => decryptSecret('v1:a:b:c', new Uint8Array(31))).toThrow(SecretKeyError)
  })
})

describe('secretKeyFromEnv', () => {
  const key = randomBytes(32)

  it('reads 64 hex digits, standard and URL-safe base64 (padded or not), ignoring surrounding white space', () => {
    const spellings = [
      key.toString('hex'),
      key.toString('hex').toUpperCase(),
      key.toString('base64'),
      key.toString('base64').replace(/=+$/, ''),
      key.toString('base64url'),
      ` ${key.toString('base64')}\n`,
    ]
    for (const text of spellings) expect(Buffer.from(secretKeyFromEnv({ [SECRET_KEY_VARIABLE]: text })!)).toEqual(key)
  })

  it('answers undefined when the variable is unset or blank', () => {
    expect(secretKeyFromEnv({})).toBeUndefined()
    expect(secretKeyFromEnv({ [SECRET_KEY_VARIABLE]: '' })).toBeUndefined()
    expect(secretKeyFromEnv({ [SECRET_KEY_VARIABLE]: '  ' })).toBeUndefined()
    expect(secretKeyFromEnv(Object.create({ [SECRET_KEY_VARIABLE]: key.toString('hex') }))).toBeUndefined()
  })

  it('refuses a malformed key with an error naming the variable, never its value', () => {
    const hex = key.toString('hex')
    const b64 = key.toString('base64')
    for (const text of [hex.slice(2), `${hex}00`, hex.replace(/^./, 'g'), randomBytes(16).toString('base64'), b64.slice(0, 42) + '!', 'correct horse battery staple']) {
      const error = thrown(() => secretKeyFromEnv({ [SECRET_KEY_VARIABLE]: text }))
      expect(error).toBeInstanceOf(SecretKeyError)
      expect(error).toMatchObject({ name: 'SecretKeyError', code: 'SECRET_KEY_INVALID', variable: SECRET_KEY_VARIABLE })
      expect(error.message).toContain(SECRET_KEY_VARIABLE)
      expect(error.message).not.toContain(text)
      expect(error.message).not.toContain(text.slice(0, 8))
    }
  })

  it('takes only the canonical base64 spelling of a key (one key, one text)', () => {
    const b64 = key.toString('base64').replace(/=+$/, '')
    const last = b64.at(-1)!
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
    // The 43rd character carries two spare bits; a sibling that differs only there decodes to the same bytes.
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!
    expect(() => secretKeyFromEnv({ [SECRET_KEY_VARIABLE]: b64.slice(0, -1) + sibling })).toThrow(SecretKeyError)
  })
})
