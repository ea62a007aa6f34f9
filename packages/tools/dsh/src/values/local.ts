/**
 * The way to a deployment's settings with no host running (see `access.ts`):
 * no plugin of the deployment is imported or applied. Reads of values are
 * answered from the catalog and the stored document alone (`offline-views.ts`:
 * no provider started for the file provider, nothing written); writes, kept
 * versions and restores start the deployment's provider in this process
 * (`provider-way.ts`), read-only unless the command writes. Notes (plugins
 * changed since the host ran, unchecked namespaces, sections waiting to be
 * migrated) go to standard error, each once.
 */
import { settingsScopeId } from 'dsh-settings/offline'
import type {
  SettingsCompareValue,
  SettingsDescribeValue,
  SettingsHistoryValue,
  SettingsNamespaceView,
  SettingsPathOpView,
  SettingsRestoreOptions,
  SettingsRestoreValue,
} from 'dsh-settings-controller'
import type { CliIo } from '../io.ts'
import type { SettingsAccess } from './access.ts'
import { catalogState, staleLine, uncheckedLine, type CatalogState } from './catalog-state.ts'
import type { ValuePlan } from './deployment-plan.ts'
import { offlineViews, recordedScopes, revealedValue, type ReadState } from './offline-views.ts'
import type { Session } from './session.ts'
import { fileDocumentPath, readStoredDocument } from './stored-document.ts'
import { UnavailableError } from './unavailable.ts'

export { UnavailableError } from './unavailable.ts'

/** A scope id as a host's controller checks it: a malformed one is `settings/invalid`, as over the wire. */
async function checkScope(scope: string | undefined): Promise<void> {
  if (scope === undefined) return
  try {
    settingsScopeId(scope)
  } catch (error) {
    // Loaded only to refuse: a read that goes well never needs the wire's error class.
    const { RemoteError } = await import('dsh-remote/client')
    throw new RemoteError('settings/invalid', (error as Error).message, { scope, reason: 'bad-scope' })
  }
}

/** The settings of one deployment through its provider, in this process. */
class LocalAccess implements SettingsAccess {
  readonly via = 'provider'
  readonly where: string
  private readonly env: NodeJS.ProcessEnv
  private readonly conditions: readonly string[]
  private readonly told = new Set<string>()
  private catalog: Promise<CatalogState> | undefined
  private read: Promise<ReadState> | undefined
  private state: ReadState | undefined
  private readonly sessions: Session[] = []
  private readonly documentPath: string | undefined

  constructor(
    private readonly plan: ValuePlan & { provider: NonNullable<ValuePlan['provider']> },
    private readonly io: CliIo,
  ) {
    this.env = io.env ?? process.env
    this.conditions = io.conditions ?? []
    this.documentPath = fileDocumentPath(plan, this.env)
    this.where = this.documentPath ?? plan.provider.specifier
  }

  /** Say `line` on standard error, once per command. */
  private note = (line: string): void => {
    if (this.told.has(line)) return
    this.told.add(line)
    this.io.err(line)
  }

  /** The catalog, read once; the plugins changed since the host ran are named then. */
  private catalogOnce(): Promise<CatalogState> {
    this.catalog ??= catalogState(this.plan, this.env, this.conditions).then((state) => {
      const stale = staleLine(state)
      if (stale) this.note(stale)
      return state
    })
    return this.catalog
  }

  /** The catalog and the stored document, read once. */
  private readOnce(): Promise<ReadState> {
    this.read ??= Promise.all([this.catalogOnce(), this.storedOnce()]).then(([catalog, read]) => (this.state = { catalog, ...read }))
    return this.read
  }

  /**
   * The stored document; the file provider's with its references resolved as
   * the provider resolves them (another provider hands over resolved values).
   */
  private async storedOnce(): Promise<Omit<ReadState, 'catalog'>> {
    const document = await readStoredDocument(this.plan, this.env, this.conditions)
    if (this.documentPath === undefined) return { document }
    const { resolveStored } = await import('../secrets/offline.ts')
    return resolveStored(document, this.documentPath, this.plan.provider.config, this.env, this.note)
  }

  /** A session of the provider way, closed with this access. */
  private async opened(open: (way: typeof import('./provider-way.ts')) => Promise<Session>): Promise<Session> {
    const session = await open(await import('./provider-way.ts'))
    this.sessions.push(session)
    return session
  }

  /** A write session for `ns`, saying first when no schema is recorded for it. */
  private async writing(ns: string): Promise<Session> {
    const known = await this.catalogOnce()
    if (!known.catalog || !known.kinds.has(ns)) this.note(uncheckedLine([ns], known.catalog ? `the host of ${known.catalog.deployment.file} registered no such namespace when it last ran` : known.why))
    return this.opened((way) => way.writeSession(this.plan, this.conditions, known, ns))
  }

  /** A session with every recorded kind registered. */
  private async whole(readOnly: boolean): Promise<Session> {
    const known = await this.catalogOnce()
    return this.opened((way) => way.wholeSession(this.plan, this.conditions, known, readOnly, this.note))
  }

  async describe(scope?: string, namespaces?: readonly string[]): Promise<SettingsDescribeValue> {
    await checkScope(scope)
    const loaded = await this.readOnce()
    return {
      writable: true,
      document: this.documentPath !== undefined,
      history: this.documentPath === undefined || (this.plan.provider.config as { history?: unknown } | undefined)?.history !== false,
      namespaces: offlineViews(loaded, scope, namespaces, this.note),
      scopes: recordedScopes(loaded) as SettingsDescribeValue['scopes'],
    }
  }

  async mutate(ns: string, ops: SettingsPathOpView[], expectedRevision?: number, scope?: string): Promise<SettingsNamespaceView> {
    return (await this.writing(ns)).controller.mutate(ns, ops, expectedRevision, scope)
  }

  async replace(ns: string, section: Record<string, unknown>, expectedRevision?: number, scope?: string): Promise<SettingsNamespaceView> {
    return (await this.writing(ns)).controller.replace(ns, section, expectedRevision, scope)
  }

  async history(query?: { limit?: number; before?: string }): Promise<SettingsHistoryValue> {
    return (await this.opened((way) => way.readSession(this.plan, this.conditions))).controller.history(query ?? {})
  }

  async compare(version: string): Promise<SettingsCompareValue> {
    return (await this.whole(true)).controller.compare(version)
  }

  async restore(version: string, options?: SettingsRestoreOptions): Promise<SettingsRestoreValue> {
    const session = options?.ns == null ? await this.whole(false) : await this.writing(options.ns)
    return session.controller.restore(version, options ?? {})
  }

  reveal(ns: string, scope?: string): unknown {
    if (!this.state) throw new Error('reveal is answered after describe has read the settings')
    return revealedValue(this.state, ns, scope)
  }

  async close(): Promise<void> {
    for (const session of this.sessions.splice(0).reverse()) await session.close()
  }
}

/**
 * Reach the settings of the deployment `plan` describes through its provider, in this process.
 * @throws {UnavailableError} when the deployment mounts no settings provider.
 */
export function openLocally(plan: ValuePlan, io: CliIo): SettingsAccess {
  if (!plan.provider) throw new UnavailableError(`${plan.file} mounts no settings provider`)
  return new LocalAccess(plan as ValuePlan & { provider: NonNullable<ValuePlan['provider']> }, io)
}
