import { chmod } from 'node:fs/promises'
import { SettingsStoreError } from 'dsh-settings'
import type { SecretStore, SecretStoreListener } from 'dsh-settings-secrets'
import { DocumentStore } from '../store/document-store.ts'
import { ABSENT, sameSignature, statVersion, type FileVersion } from '../store/version.ts'
import { DocumentWatcher } from '../store/watch.ts'
import { parseSettings, renderChanges, type ParsedDocument } from './settings-codec.ts'

/** What `secrets.yaml` holds under a name: a string, or a number or boolean kept typed. */
export type SecretScalar = string | number | boolean

/** Whether `value` is a {@link SecretScalar} (a finite number: YAML has no other kind a JSON value can be). */
export function isSecretScalar(value: unknown): value is SecretScalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
}

/** The file name of the secret store, beside the document. */
export const SECRETS_FILE = 'secrets.yaml'

/** A secret store is small: names and short values. Larger is refused like an oversized document. */
const MAX_SECRETS_BYTES = 1024 * 1024
/** A write gives up after this many rounds of finding the file changed under it. */
const MAX_ATTEMPTS = 8

/** What {@link FileSecretStore} needs: the document's lock timings, and where to warn (never a value). */
export interface FileSecretStoreOptions {
  lockTimeoutMs: number
  settleMs: number
  stopping(): boolean
  warn(message: string): void
}

/**
 * `secrets.yaml` beside the document: a flat YAML map of secret names to
 * values (strings, and numbers or booleans kept typed), mode 0600, written under its own lock by exchange replace
 * (byte-stable: a hand-written comment stays), never kept in history and
 * never served. Reads are cached by the file's signature; {@link watch}
 * turns a hand edit into the store's change listeners.
 */
export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const
  private readonly disk: DocumentStore<Record<string, unknown>>
  private last: { version: FileVersion; parsed: ParsedDocument } | undefined
  private readonly listeners = new Set<SecretStoreListener>()

  constructor(
    readonly path: string,
    private readonly options: FileSecretStoreOptions,
  ) {
    this.disk = new DocumentStore({
      file: path,
      lockTimeoutMs: options.lockTimeoutMs,
      settleMs: options.settleMs,
      maxDocumentBytes: MAX_SECRETS_BYTES,
      history: undefined,
      step: async () => {},
      retargeted: () => {},
      lateDue: () => {},
      stopping: options.stopping,
    })
  }

  /** The map as the file holds it now (nothing when there is no file). @throws the codec's refusal of a broken file (names a position, never a value). */
  private async read(): Promise<ParsedDocument> {
    const now = statVersion(this.path)
    if (this.last && now !== ABSENT && sameSignature(now, this.last.version)) return this.last.parsed
    const version = await this.disk.readPresent(this.path)
    const parsed = version.text === undefined ? { data: {} } : parseSettings(version.text, 'yaml', this.path, MAX_SECRETS_BYTES)
    this.last = { version, parsed }
    return parsed
  }

  async get(name: string): Promise<string | undefined> {
    const value = await this.getValue(name)
    return value === undefined ? undefined : String(value)
  }

  /**
   * The value stored under `name` as the file holds it: a string, or a number or boolean (a secret the schema
   * types so, kept typed, so it resolves to what was written); anything else is not a secret value.
   */
  async getValue(name: string): Promise<SecretScalar | undefined> {
    const { data } = await this.read()
    const value = Object.hasOwn(data, name) ? data[name] : undefined
    return isSecretScalar(value) ? value : undefined
  }

  async names(): Promise<string[]> {
    return Object.keys((await this.read()).data)
  }

  async set(name: string, value: SecretScalar): Promise<void> {
    await this.change(name, value)
  }

  async delete(name: string): Promise<boolean> {
    return this.change(name, undefined)
  }

  onChange(listener: SecretStoreListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Watch the file: a hand edit (or another process's write) that changes the
   * map calls every listener once. Returns the stop.
   */
  async watch(timing: { debounceMs: number; recheckMs: number }): Promise<() => Promise<void>> {
    let known = JSON.stringify((await this.read().catch(() => ({ data: {} }))).data)
    const look = async () => {
      try {
        const now = JSON.stringify((await this.read()).data)
        if (now === known) return
        known = now
        for (const listener of this.listeners) listener()
      } catch (error) {
        this.options.warn(`settings: ${this.path} cannot be read: ${(error as Error).message}`)
      }
    }
    const watcher = new DocumentWatcher(this.disk.names, {
      ...timing,
      onChange: () => void look(),
      onRecheck: () => void look(),
      onError: (error) => this.options.warn(`settings: watching ${this.path} failed: ${(error as Error).message}`),
    })
    await watcher.start()
    return () => watcher.close()
  }

  /** Set (`value`) or remove (`undefined`) one name under the lock; `true` when the file changed. */
  private change(name: string, value: SecretScalar | undefined): Promise<boolean> {
    return this.disk.locked(async (lock, target) => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const { version, readOnly } = await this.disk.readForWrite(target, attempt)
        if (readOnly) throw new SettingsStoreError('SETTINGS_READ_ONLY', `secret store ${this.path} is read-only: ${readOnly}; nothing was written`, this.path)
        const text = version.text ?? ''
        const parsed = text ? parseSettings(text, 'yaml', this.path, MAX_SECRETS_BYTES) : { data: {} }
        const had = Object.hasOwn(parsed.data, name)
        if (value === undefined ? !had : parsed.data[name] === value) return false
        const rendered = renderChanges('yaml', text, parsed, [{ path: [name], value }], this.path)
        const outcome = await this.disk.replace(lock, target, version, rendered.text, parsed.data)
        if (outcome === 'lock-lost') throw new SettingsStoreError('SETTINGS_STORE_BUSY', `secret store ${this.path}: the lock was taken over during the write; nothing was written`, this.path)
        if (outcome === 'changed') continue
        // A hand-made file may have been readable by others: the store never is once it holds what we wrote.
        if (version !== ABSENT && (version.mode & 0o077) !== 0) await chmod(target, 0o600)
        this.last = undefined
        return true
      }
      throw new SettingsStoreError('SETTINGS_STORE_BUSY', `secret store ${this.path} kept changing while it was being written; nothing was written`, this.path)
    })
  }

  /** Stop the store's own lock record. */
  dispose(): void {
    this.disk.dispose()
  }
}
