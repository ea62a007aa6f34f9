import { Service, type Context } from 'cordis'
import { describeAll } from './describe.ts'
import { SettingsEngine } from './engine.ts'
import type { SettingsTransaction } from './transactions.ts'
import { installSection } from './install-section.ts'
import type {
  SettingsDescribeOptions,
  SettingsDescriptor,
  SettingsDocument,
  SettingsNamespaceInput,
  SettingsPathOp,
  SettingsRegisterOptions,
  SettingsSchema,
  SettingsScope,
  SettingsScopeId,
  SettingsSectionHooks,
} from './types.ts'

declare module 'cordis' {
  interface Context {
    settings: SettingsProvider
  }
}

/**
 * The settings service, `ctx.settings`. This abstract class owns everything but
 * storage; a provider subclass stores the raw document:
 * - `load()` returns the stored document once, at start;
 * - `transact(transaction)` runs one write transaction (see {@link SettingsTransaction});
 * - `publish(document)` hands over a document the provider observed changing on its own;
 * - `writable`, `documentPath` and `prepareDocument()` describe the storage;
 * - `open()` and `close()` are the provider's own start and stop, around the seam's.
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
      transact: (transaction) => provider.transact(transaction),
    })
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

  /** Read the stored document. Called once at start, before the service is available. */
  protected abstract load(): SettingsDocument | Promise<SettingsDocument>

  /**
   * Run one write transaction in the provider's critical section: read the
   * freshest document, `transaction.apply(current)`, store the result unless it
   * is `current` itself, then `transaction.commit()`. Several queued writes
   * arrive as one transaction (group commit).
   */
  protected abstract transact(transaction: SettingsTransaction): Promise<void>

  /** Provider start-up before the document is loaded (open a connection, say). */
  protected async open(): Promise<void> {}

  /** Provider teardown, after the seam refused new writes and drained running ones. */
  protected async close(): Promise<void> {}

  /**
   * Hand over a document the provider observed changing on its own. Sections
   * that changed are announced and re-resolved with source `provider`; an
   * invalid one keeps its instance's last good value and warns.
   * @throws the first `INVARIANT`-coded listener failure, after the whole fan-out ran.
   */
  protected publish(document: SettingsDocument): void {
    this.engine.publish(document)
  }

  async [Service.init](): Promise<() => Promise<void>> {
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
   */
  async update<const Namespace extends string>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    patch: object,
    expectedRevision?: number,
    scope?: string,
  ): Promise<void> {
    return this.engine.write({ ns, scope, mode: 'update', payload: patch, expectedRevision })
  }

  /**
   * Replace a user section wholesale (`{}` resets it), validate, persist, then commit and emit.
   * @param expectedRevision - as for {@link update}.
   * @param scope - as for {@link update}.
   */
  async replace<const Namespace extends string>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    section: object,
    expectedRevision?: number,
    scope?: string,
  ): Promise<void> {
    return this.engine.write({ ns, scope, mode: 'replace', payload: section, expectedRevision })
  }

  /**
   * Apply path ops, in order, to a user section as it is stored when the write
   * runs, so fields the caller never saw (redacted secrets) survive; validate, persist, commit and emit.
   * @param expectedRevision - as for {@link update}.
   * @param scope - as for {@link update}.
   */
  async mutate<const Namespace extends string>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    ops: readonly SettingsPathOp[],
    expectedRevision?: number,
    scope?: string,
  ): Promise<void> {
    return this.engine.write({ ns, scope, mode: 'mutate', payload: ops, expectedRevision })
  }
}
