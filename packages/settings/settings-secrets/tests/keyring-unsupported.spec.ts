// A platform with no prebuilt keychain binding: the package still imports and resolves references, and the
// keychain store refuses with SecretStoreUnavailableError (unsupported) instead of failing at import.
import { describe, expect, it, vi } from 'vitest'
import { KeyringSecretStore, resolveReference } from '../src/index.ts'

vi.mock('@napi-rs/keyring', () => {
  throw new Error('Cannot find native binding')
})

describe('KeyringSecretStore without a binding for the platform', () => {
  it('imports, resolves other references, and refuses keychain calls as unsupported', async () => {
    await expect(resolveReference({ kind: 'env', name: 'A' }, { env: { A: 'a' } })).resolves.toBe('a')
    const store = new KeyringSecretStore('/deployment')
    for (const call of [() => store.get('web.key'), () => store.set('web.key', 'v'), () => store.delete('web.key'), () => store.names()]) {
      await expect(call()).rejects.toMatchObject({ name: 'SecretStoreUnavailableError', code: 'SECRET_STORE_UNAVAILABLE', reason: 'unsupported' })
    }
    await expect(resolveReference({ kind: 'secret', name: 'web.key' }, { store, env: {} })).rejects.toMatchObject({ reason: 'store-unavailable' })
  })
})
