/**
 * The settings service a check runs the deployment's plugins over: the parsed
 * document, read-only, recording every registration. It gives the parse to the
 * seam as it is (`transferToSeam`: a fresh parse is the seam's alone, so nothing
 * is copied or walked twice), and starts nothing (no file, watcher or timer).
 */
import type { Context } from 'cordis'
import { namedScopeOf } from 'dsh-scope'
import {
  SettingsProvider,
  transferToSeam,
  type SettingsDocument,
  type SettingsNamespaceInput,
  type SettingsRegisterOptions,
  type SettingsSchema,
  type SettingsScope,
  type SettingsSectionHooks,
  type SettingsStoreResult,
} from 'dsh-settings'

/** One `register` (or `installSection`) call a plugin made. */
export interface Registration {
  ns: string
  scope: string | undefined
  schema: SettingsSchema<unknown>
  options: SettingsRegisterOptions<unknown>
  /** What the call threw, if it did. */
  error?: unknown
}

/** What a {@link CheckProvider} is plugged with. */
export interface CheckProviderConfig {
  /** The parsed document; given to the seam, so the caller never changes it afterwards. */
  document: SettingsDocument
  /** Where each registration is recorded, in call order. */
  registrations: Registration[]
}

/** A read-only settings service over a parsed document that records what plugins register. */
export class CheckProvider extends SettingsProvider {
  private readonly config: CheckProviderConfig

  constructor(ctx: Context, config: CheckProviderConfig) {
    super(ctx)
    this.config = config
  }

  override get writable(): boolean {
    return false
  }

  protected load(): SettingsDocument {
    return transferToSeam(this.config.document)
  }

  /** Never reached: the seam refuses writes to a read-only provider before they are queued. */
  protected override async store(): Promise<SettingsStoreResult> {
    throw new Error('settings check: the document is read-only')
  }

  override register<const Namespace extends string, T>(
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    schema: SettingsSchema<T>,
    options?: SettingsRegisterOptions<NoInfer<T>>,
  ): SettingsScope<T> {
    // `this.ctx` is the caller's context here (cordis hands services the context they are called through).
    const record: Registration = {
      ns: String(ns),
      scope: namedScopeOf(this.ctx),
      schema: schema as SettingsSchema<unknown>,
      options: (options ?? {}) as SettingsRegisterOptions<unknown>,
    }
    try {
      const handle = super.register<string, T>(ns, schema, options)
      this.config.registrations.push(record)
      return handle
    } catch (error) {
      this.config.registrations.push({ ...record, error })
      throw error
    }
  }

  override installSection<const Namespace extends string, T>(
    owner: Context,
    ns: Namespace & SettingsNamespaceInput<Namespace>,
    schema: SettingsSchema<T>,
    entry: NoInfer<T>,
    hooks: SettingsSectionHooks<NoInfer<T>>,
  ): void {
    // The seam registers `entry` as the base and keeps the consumer on it when that fails (it never throws for data).
    this.config.registrations.push({
      ns: String(ns),
      scope: namedScopeOf(owner),
      schema: schema as SettingsSchema<unknown>,
      options: { base: entry as SettingsRegisterOptions<unknown>['base'], validate: hooks?.validate?.bind(hooks) as ((value: unknown) => void) | undefined },
    })
    super.installSection<string, T>(owner, ns, schema, entry, hooks)
  }
}
