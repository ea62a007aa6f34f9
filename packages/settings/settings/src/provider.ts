import { Service, type Context } from 'cordis'
import { describeAll } from './describe.ts'
import { SettingsEngine } from './engine.ts'
import { SettingsProviderContractError, SettingsStoreError } from './errors.ts'
import { diffDocuments } from './history-diff.ts'
import { tryResolve } from './resolve-instances.ts'
import { planOf, stepsOf } from './migrations.ts'
import { scopeKey } from './registry.ts'
import type { SettingsSectionVersion, SettingsSnapshot } from './snapshot.ts'
import type { SettingsStoreResult, SettingsTransaction } from './transactions.ts'
import { documentWith } from './document.ts'
import type { SettingsChanges } from './snapshot.ts'
import type { SectionKey } from './document.ts'
import { installSection } from './install-section.ts'
import { setSecretPaths } from './redact.ts'
import type {
  SettingsDescribeOptions,
  SettingsDescriptor,
  JsonObject,
  SettingsDocument,
  SettingsNamespaceInput,
  SettingsPathOp,
  SettingsRegisterOptions,
  SettingsSchema,
  SettingsScope,
  SettingsScopeId,
  SettingsSecretOrigin,
  SettingsHistoryQuery,
  SettingsHistoryVersion,
  SettingsSectionDiff,
  SettingsSectionHooks,
  SettingsWriteOrigin,
} from './types.ts'

/** The error a provider gets when it stores in neither way. */
function notImplemented(): SettingsProviderContractError {
  return new SettingsProviderContractError(
    'a settings provider must store the document in one of two ways: implement persist(document) (with load(); the seam keeps the document and hands over each next one) or store(transaction) (with load(); store the changed sections inside the store\'s own critical section while it still holds what the writes read)',
  )
}

function noHistory(): SettingsStoreError {
  return new SettingsStoreError('SETTINGS_NO_HISTORY', 'this settings provider keeps no history of the document', 'settings', { refusal: 'rejected' })
}

/** Whether the provider's class overrides `persist` or `store`. */
function implementsStorage(provider: SettingsProvider): boolean {
  const base = SettingsProvider.prototype as unknown as Record<string, unknown>
  const own = provider as unknown as Record<string, unknown>
  return own.persist !== base.persist || own.store !== base.store
}

declare module 'cordis' {
  interface Context {
    settings: SettingsProvider
  }
}

/**
 * The settings service, `ctx.settings`. This abstract class owns everything but
 * storage; a provider subclass stores the raw document in one of two ways
 * (`docs/settings.md`, "Writing a provider"):
 * - `load()` + `persist(document)`: for a store no other process writes. The
 *   base keeps the committed document and hands `persist` each next one, one
 *   group of writes at a time;
 * - `load()` + `store(transaction)`: for a store others write too, with a
 *   critical section of its own (a file lock, a database transaction): store
 *   the changed sections there while the store still holds what the writes
 *   read (see {@link SettingsTransaction}).
 *
 * Either way `publish(changes)` hands over a change the provider observed on
 * its own; `writable`, `documentPath` and `prepareDocument()` describe the
 * storage; `open()` and `close()` are the provider's own start and stop. A
 * `load()` that answers a {@link SettingsSnapshot} makes the store's section
 * versions the revisions, shared by every host on the store.
 */
export abstract class SettingsProvider extends Service {
  /** The seam's state and logic; kept in an ordinary field because service calls go through a proxy. */
  protected readonly engine: SettingsEngine

  constructor(ctx: Context) {
    super(ctx, 'settings')
    // `this` is the raw instance here, so the engine's calls skip the service proxy.
    const provider = this
    this.engine = new SettingsEngine(ctx, {
      get writable() {
        return provider.writable
      },
      store: (transaction) => provider.store(transaction),
      cannotHold: (key, section) => provider.cannotHold(key, section),
      secretSource: (key, path) => provider.secretSource(key, path),
    }, () => provider.kindsChanged())
  }

  /**
   * Called after a namespace kind arrives with its first registration or
   * leaves with its last, synchronously inside `register` or the disposal; a
   * provider that describes the document's shape (an editor schema) overrides
   * it and reads {@link registeredKinds}. Must not throw.
   */
  protected kindsChanged(): void {}

  /** Every registered namespace kind with its schema, in registration order. */
  protected registeredKinds(): { ns: string; schema: SettingsSchema<unknown> }[] {
    return [...this.engine.registry.kinds.values()].map((kind) => ({ ns: kind.ns, schema: kind.schema }))
  }

  /**
   * The refusal of a section this store cannot hold as it is (a string its
   * format cannot represent, say), or `undefined` to take it. Asked inside the
   * write transaction for each write that changes its section, after the
   * schema passed it: a refusal (a {@link SettingsStoreError} naming the place,
   * never the value) fails that write alone, and the rest of its group is
   * stored. The default takes every section.
   * @param section - the raw section the write would store; never change it.
   */
  protected cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    void key
    void section
    return undefined
  }

  /**
   * Where the secret at `path` of the stored section `key` gets its value,
   * when the store holds a reference there instead of the value: a secret
   * store (`store`, with the name it is kept under), an environment variable
   * (`env`, its name) or a file (`file`, its path); never the value itself.
   * `describe` asks it for every set secret a user section supplies (a scoped
   * section's own under its scope, else the global section), to fill the
   * slot's `source` and `reference`. The default, `undefined`, says the
   * document holds the value (`source: 'document'`). Must be cheap and must
   * not throw (a throw leaves the slot without a source).
   * @param key - the section: the global one (`scope` undefined) or one scope's.
   * @param path - the secret's path inside that section, as the descriptor's slot names it.
   */
  protected secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    void key
    void path
    return undefined
  }

  /**
   * The paths inside `section` (a raw section of namespace `ns`) that the
   * registered kind's schema marks secret (`role('secret')`) and that hold a
   * value, as the redactor finds them: what a provider moves out of the
   * document. A value the schema cannot vouch for around a secret is one path
   * as a whole (the redactor fails closed). `[]` for a namespace no plugin has
   * registered now, or a kind without secrets.
   */
  protected secretPaths(ns: string, section: unknown): string[][] {
    return setSecretPaths(this.engine.registry.kinds.get(ns)?.redactor, section)
  }

  /**
   * Why the provider has not started yet, while its start waits on the store
   * (a database it cannot reach yet, retried): the last attempt's failure,
   * naming the store and never its content. `undefined` once it serves, and
   * for a provider whose start does not wait. The service is unavailable
   * meanwhile; a configuration surface reports this instead of "no provider".
   */
  get startFailure(): SettingsStoreError | undefined {
    return undefined
  }

  /** Whether writes can persist. A read-only provider refuses them before anything is queued. */
  get writable(): boolean {
    return true
  }

  /** The absolute path of the local document, for providers that store one. */
  get documentPath(): string | undefined {
    return undefined
  }

  /**
   * Make the document ready for a native editor and return its path; a file
   * provider may create an empty document first. Non-file providers answer `undefined`.
   */
  async prepareDocument(): Promise<string | undefined> {
    return this.documentPath
  }

  /** Whether this provider keeps replaced versions of the document, for {@link history}. */
  get keepsHistory(): boolean {
    return false
  }

  /**
   * The kept versions of the document, newest first: when each was written
   * and replaced, who made it, and which sections it changed. Providers that
   * keep versions override this with {@link keepsHistory}.
   * @throws {SettingsStoreError} `SETTINGS_NO_HISTORY` from a provider that keeps none.
   */
  async history(query?: SettingsHistoryQuery): Promise<SettingsHistoryVersion[]> {
    void query
    throw noHistory()
  }

  /**
   * The raw document of one kept version (secrets included: never hand it to a wire).
   * @throws {SettingsStoreError} `SETTINGS_NO_HISTORY` from a provider that keeps none, `SETTINGS_NO_VERSION` for an unknown id.
   */
  async historyDocument(id: string): Promise<SettingsDocument> {
    void id
    throw noHistory()
  }

  /**
   * What differs between two raw documents (`after` defaults to the committed
   * one), section by section, redacted: plain fields with their values, secret
   * fields only as `set`/`changed`/`unset`, and a section that does not resolve
   * (or whose kind is not registered) without any value.
   */
  diff(before: SettingsDocument, after: SettingsDocument = this.engine.document): SettingsSectionDiff[] {
    const { kinds } = this.engine.registry
    return diffDocuments(before, after, (ns) => {
      const kind = kinds.get(ns)
      if (!kind) return undefined
      return {
        redactor: kind.redactor,
        accepts: (document, scope) => tryResolve(kind, kind.instances.get(scopeKey(scope)), scope, document).ok,
        steps: (from, to) => stepsOf(planOf(kind), from, to),
      }
    })
  }

  /**
   * Read the stored document, or a {@link SettingsSnapshot} of it with the
   * store's section versions. Called once at start, before the service is available.
   */
  protected abstract load(): SettingsDocument | SettingsSnapshot | Promise<SettingsDocument | SettingsSnapshot>

  /**
   * Store `document`, the whole next raw document (never a patch), for the
   * `load`/`persist` way of storing. Called one group of writes at a time,
   * only when something changed; a throw fails every write of the group and
   * leaves the committed document as it was. With store-owned revisions,
   * answer the new version of each section that changed.
   */
  protected persist(document: SettingsDocument): void | Iterable<SettingsSectionVersion> | Promise<void | Iterable<SettingsSectionVersion>> {
    void document
    throw notImplemented()
  }

  /**
   * Store one group of writes (the `store` way): in the store's critical
   * section, check that the store still holds every section in
   * `transaction.reads` (`readsHold`, or `readsHoldVersions` with store
   * versions), then store `transaction.changes` and answer; when a read moved,
   * `publish` what changed and answer `{ moved: true }` without storing. With
   * store-owned revisions answer `{ versions }`: the new version of every
   * section stored. The default runs the `load`/`persist` way: it builds the
   * whole next document from the committed one and hands it to {@link persist}.
   */
  protected async store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    if (!transaction.changes.length) return undefined
    // The committed document is changed in place by later commits: `persist` gets a root and `scopes` maps of its own.
    const versions = await this.persist(documentWith(this.engine.document, transaction.changes))
    return versions ? { versions } : undefined
  }

  /** Provider start-up before the document is loaded (open a connection, say). */
  protected async open(): Promise<void> {}

  /** Provider teardown, after the seam refused new writes and drained running ones. */
  protected async close(): Promise<void> {}

  /**
   * Hand over what the provider observed changing on its own: the changed
   * sections ({@link SettingsChanges}, which costs what changed), or a whole
   * document or snapshot (compared with the committed one section by section).
   * Sections that changed are announced and re-resolved with source
   * `provider`; an invalid one keeps its instance's last good value and warns.
   * Sections handed over belong to the seam from then on: never change them.
   * @throws the first `INVARIANT`-coded listener failure, after the whole fan-out ran.
   */
  protected publish(document: SettingsChanges | SettingsDocument | SettingsSnapshot): void {
    this.engine.publish(document)
  }

  async [Service.init](): Promise<() => Promise<void>> {
    if (!implementsStorage(this)) throw notImplemented()
    await this.open()
    this.engine.start(await this.load())
    return async () => {
      await this.engine.stop()
      await this.close()
    }
  }

  /**
   * Register a namespace on the calling plugin's fiber and get its owner handle.
   * The instance lives under the caller's nearest named scope (`dsh-scope`),
   * or globally; disposing the caller's fiber removes it and drains its watchers.
   * A stored section that does not resolve refuses the registration.
   * @param ns - a lowercase kebab-case namespace, not reserved.
   * @param schema - the schemastery schema; every registrant of a kind must pass the same one.
   * @param options - composition `base`, effect timing and the kind's extra check.
   * @throws {TypeError} for a malformed or reserved namespace, or a stored section that does not resolve.
   * @throws {SettingsRegistrationError} for a second registration under one scope, or a different schema.
   */
  register<const Namespace extends string, T>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    schema: SettingsSchema<T>,
    options?: SettingsRegisterOptions<NoInfer<T>>,
  ): SettingsScope<T> {
    return this.engine.register(this.ctx, ns, schema, options).handle
  }

  /**
   * Wire an optional-settings consumer: register `entry` as the base layer and
   * point the consumer at the live value, then back at `entry` if this provider
   * goes away while the consumer stays. Usually called through `installSettingsSection`.
   * @param owner - the consumer's context; once it unloads, no fallback runs.
   * @throws {TypeError} for a malformed namespace.
   */
  installSection<const Namespace extends string, T>(
    owner: Context,
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    schema: SettingsSchema<T>,
    entry: NoInfer<T>,
    hooks: SettingsSectionHooks<NoInfer<T>>,
  ): void {
    installSection(this.engine, this.ctx, owner, ns, schema, entry, hooks)
  }

  /**
   * Describe every live kind for configuration surfaces, in registration order,
   * under the global scope or `options.scope`; only `options.ns` when given
   * (one descriptor, or none for a namespace with no live kind). Never fails on
   * stored data. Every wire surface must pass `redactSecrets: true`.
   * @throws {TypeError} for a malformed scope id or namespace.
   */
  describe(options?: SettingsDescribeOptions): SettingsDescriptor[] {
    return describeAll(this.engine, options)
  }

  /** Every named scope with a live registration, in first-seen order. */
  scopes(): SettingsScopeId[] {
    return this.engine.registry.scopes()
  }

  /**
   * The resolved value of `ns` under `scope` (the global instance when omitted),
   * or `undefined` while no instance is registered there.
   * @throws {TypeError} for a malformed namespace or scope id.
   */
  get<const Namespace extends string>(ns: Namespace & SettingsNamespaceInput<Namespace>, scope?: string): unknown {
    return this.engine.get(ns, scope)
  }

  /**
   * Deep-merge `patch` into a user section, validate every value it feeds, persist, then commit and emit.
   * @param expectedRevision - the revision the caller read; a section that moved on rejects with `SettingsConflictError`.
   * @param scope - the named scope whose section to write; the global section when omitted.
   * @param origin - who writes, for a provider's history (`wire` for a configuration surface); `host` when omitted.
   */
  async update<const Namespace extends string>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    patch: object,
    expectedRevision?: number,
    scope?: string,
    origin?: SettingsWriteOrigin,
  ): Promise<void> {
    return this.engine.write({ ns, scope, mode: 'update', payload: patch, expectedRevision, origin })
  }

  /**
   * Replace a user section wholesale (`{}` resets it), validate, persist, then commit and emit.
   * @param expectedRevision - as for {@link update}.
   * @param scope - as for {@link update}.
   * @param origin - as for {@link update}.
   */
  async replace<const Namespace extends string>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    section: object,
    expectedRevision?: number,
    scope?: string,
    origin?: SettingsWriteOrigin,
  ): Promise<void> {
    return this.engine.write({ ns, scope, mode: 'replace', payload: section, expectedRevision, origin })
  }

  /**
   * Apply path ops, in order, to a user section as it is stored when the write
   * runs, so fields the caller never saw (redacted secrets) survive; validate, persist, commit and emit.
   * @param expectedRevision - as for {@link update}.
   * @param scope - as for {@link update}.
   * @param origin - as for {@link update}.
   */
  async mutate<const Namespace extends string>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    ops: readonly SettingsPathOp[],
    expectedRevision?: number,
    scope?: string,
    origin?: SettingsWriteOrigin,
  ): Promise<void> {
    return this.engine.write({ ns, scope, mode: 'mutate', payload: ops, expectedRevision, origin })
  }
}
