/**
 * Turning a reference into its value: `!env` from the host's environment,
 * `!file` from a file, `!secret` from the deployment's secret store.
 */
import { isAbsolute, resolve } from 'node:path'
import { SecretNameError, SecretReferenceError, SecretStoreUnavailableError } from './errors.ts'
import { readSecretFile } from './secret-file.ts'
import { isSecretReference, type SecretReference } from './reference.ts'
import type { SecretStore } from './store.ts'

/** What {@link resolveReference} reads from. */
export interface ResolveOptions {
  /** The secret store `!secret` names are looked up in; without one, a `!secret` does not resolve (`store-unavailable`). */
  store?: SecretStore | undefined
  /** The host's environment (`process.env`). */
  env: Readonly<Record<string, string | undefined>>
  /** The folder a relative `!file` path is taken from (the document's folder); default: the working directory. */
  baseDir?: string
  /**
   * Reads a `!file` (given the absolute path); default `readSecretFile`. A
   * `SecretReferenceError` it throws passes through; any other failure is
   * `unreadable-file`.
   */
  readFile?: (path: string) => Promise<string>
}

/**
 * The value a reference stands for.
 * - `env`: the variable's value; unset or empty is `unset-variable` (an
 *   empty variable is how shells and service managers leave one out).
 * - `file`: the file's content with one trailing newline dropped; a relative
 *   path is taken from `baseDir`; see `readSecretFile` for what is refused.
 * - `secret`: the store's value; a name it does not hold is `missing-name`,
 *   a store that cannot answer is `store-unavailable`.
 * @throws {SecretReferenceError} naming the reference and the reason, never a value.
 * @throws {SecretNameError} for something that is not a reference.
 */
export async function resolveReference(reference: SecretReference, options: ResolveOptions): Promise<string> {
  if (!isSecretReference(reference)) throw new SecretNameError('a reference needs a kind of secret, env or file and a non-empty name')
  if (reference.kind === 'env') return fromEnv(reference, options.env)
  if (reference.kind === 'file') return fromFile(reference, options)
  return fromStore(reference, options.store)
}

function fromEnv(reference: SecretReference, env: ResolveOptions['env']): string {
  // Own properties only: a name like `toString` or `__proto__` must not reach Object.prototype.
  const value = env === process.env || Object.hasOwn(env, reference.name) ? env[reference.name] : undefined
  if (typeof value !== 'string') throw new SecretReferenceError(reference, 'unset-variable', 'the environment variable is not set')
  if (value === '') throw new SecretReferenceError(reference, 'unset-variable', 'the environment variable is empty')
  return value
}

async function fromFile(reference: SecretReference, options: ResolveOptions): Promise<string> {
  const path = isAbsolute(reference.name) ? reference.name : resolve(options.baseDir ?? process.cwd(), reference.name)
  try {
    return await (options.readFile ?? readSecretFile)(path)
  } catch (error) {
    if (error instanceof SecretReferenceError) {
      // Name the reference as written, not as made absolute.
      throw new SecretReferenceError(reference, error.reason, error.detail)
    }
    throw new SecretReferenceError(reference, 'unreadable-file', 'the file cannot be read')
  }
}

async function fromStore(reference: SecretReference, store: SecretStore | undefined): Promise<string> {
  if (!store) throw new SecretReferenceError(reference, 'store-unavailable', 'this deployment has no secret store (`secrets: inline`)')
  let value: string | undefined
  try {
    value = await store.get(reference.name)
  } catch (error) {
    // Only our own errors are kept as the cause: another's message might quote the store's content.
    const detail = error instanceof SecretStoreUnavailableError ? error.message : `the ${store.kind} secret store failed to answer`
    throw new SecretReferenceError(reference, 'store-unavailable', detail, error instanceof SecretStoreUnavailableError ? error : undefined)
  }
  if (value === undefined) throw new SecretReferenceError(reference, 'missing-name', `the ${store.kind} secret store holds no such name`)
  return value
}
