/**
 * The operating system's keychain as a {@link SecretStore}: the Secret
 * Service on Linux (gnome-keyring, KWallet), the macOS Keychain, the Windows
 * Credential Manager, through `@napi-rs/keyring` (prebuilt, no compiler).
 */
import type { AsyncEntry, EntryOptions } from '@napi-rs/keyring'
import { SecretStoreUnavailableError, type SecretStoreUnavailableReason } from './errors.ts'
import type { SecretStore } from './store.ts'

/** The keyring service of a deployment: `dsh-settings:<deployment id>`. */
export function keyringService(deployment: string): string {
  return `dsh-settings:${deployment}`
}

/**
 * The account of the entry written to check that the keyring takes writes.
 * No secret name starts with a dot, so it never meets a real one.
 */
const PROBE_ACCOUNT = '.dsh-settings-probe'

/** On Linux, the Secret Service only: the binding would otherwise fall back to the kernel keyring, which forgets at reboot. */
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } }

type Binding = typeof import('@napi-rs/keyring')
let binding: Promise<Binding> | undefined

/**
 * The native binding, loaded on first use: importing this package (for
 * references or boxes) must work where no prebuilt keychain binding does.
 */
async function loadBinding(service: string): Promise<Binding> {
  binding ??= import('@napi-rs/keyring').catch((error: unknown) => {
    binding = undefined
    throw error
  })
  try {
    return await binding
  } catch {
    throw new SecretStoreUnavailableError(service, 'unsupported')
  }
}

/** A closed reason for a binding failure, read from its message, which is not passed on. */
export function keyringFailureReason(error: unknown): SecretStoreUnavailableReason {
  const message = String((error as { message?: unknown } | null)?.message ?? '')
  if (/locked|unlock|prompt/i.test(message)) return 'locked'
  if (/no result found|no such collection|default collection|NoSuchObject/i.test(message)) return 'no-keyring'
  if (/ambiguous|more than one/i.test(message)) return 'ambiguous'
  if (/ServiceUnknown|not provided by|DBus|D-Bus|bus|autolaunch|AccessDenied|platform failure|NoStorageAccess|not available/i.test(message)) {
    return 'no-service'
  }
  return 'failed'
}

/**
 * A {@link SecretStore} in the operating system's keychain. Entries are
 * filed under the service `dsh-settings:<deployment>` (pass an id unique to
 * the deployment, such as its document's real path) with the secret name as
 * the account. Every failure to reach the keychain is a
 * `SecretStoreUnavailableError`: no Secret Service on the session bus, no
 * default keyring, a locked keyring. A lookup that finds nothing is checked
 * once per store (by writing and removing a probe entry) so a locked or
 * missing keyring is not taken for an empty one; once that check passed, a
 * keyring locked later answers `undefined` for names it does not hold and
 * throws for names it does.
 */
export class KeyringSecretStore implements SecretStore {
  readonly kind = 'keyring' as const
  /** The keyring service the entries are filed under. */
  readonly service: string
  private usable: Promise<void> | undefined

  constructor(deployment: string) {
    this.service = keyringService(deployment)
  }

  /** The value stored under `name`, or `undefined` when the (reachable, unlocked) keyring holds none. */
  async get(name: string): Promise<string | undefined> {
    const value = await this.call(async () => (await this.entry(name)).getPassword())
    if (value !== null) return value
    await this.checkUsable()
    return undefined
  }

  /** Store `value` under `name`. */
  async set(name: string, value: string): Promise<void> {
    await this.call(async () => (await this.entry(name)).setPassword(value))
  }

  /** Remove `name`; `true` when it was there. */
  async delete(name: string): Promise<boolean> {
    if (await this.call(async () => (await this.entry(name)).deleteCredential())) return true
    await this.checkUsable()
    return false
  }

  /** Every name filed under this deployment's service, sorted (the keychain keeps no order). */
  async names(): Promise<string[]> {
    const found = await this.call(async () => (await loadBinding(this.service)).findCredentialsAsync(this.service))
    if (!found.length) await this.checkUsable()
    return found
      .map((credential) => credential.account)
      .filter((account) => account !== PROBE_ACCOUNT)
      .sort()
  }

  private async entry(name: string): Promise<AsyncEntry> {
    const { AsyncEntry } = await loadBinding(this.service)
    // The constructor itself throws when the Secret Service is not on the bus; `call` turns that into our error.
    return new AsyncEntry(this.service, name, ENTRY_OPTIONS)
  }

  /** Run one binding call, turning any failure into a `SecretStoreUnavailableError` that quotes nothing of it. */
  private async call<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action()
    } catch (error) {
      if (error instanceof SecretStoreUnavailableError) throw error
      throw new SecretStoreUnavailableError(this.service, keyringFailureReason(error))
    }
  }

  /** Write and remove a probe entry once; a failure is not remembered, so the next call checks again. */
  private checkUsable(): Promise<void> {
    this.usable ??= this.call(async () => {
      const probe = await this.entry(PROBE_ACCOUNT)
      await probe.setPassword('probe')
      await probe.deleteCredential()
    }).catch((error: unknown) => {
      this.usable = undefined
      throw error
    })
    return this.usable
  }
}
