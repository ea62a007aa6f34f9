import { isAbsolute } from 'node:path'
import { Service, type Context, type Logger } from 'cordis'
import { offerSettingsPage } from './page.ts'
import { RemoteError } from 'dsh-remote'
import {
  getSection,
  SECTION_VERSION_KEY,
  settingsNamespace,
  settingsRevision,
  settingsScopeId,
  type SettingsDescriptor,
  type SettingsNamespaceView,
  type SettingsPathOp,
  type SettingsProvider,
  type SettingsScopeId,
} from 'dsh-settings'
import { absent, checkNamespaceFilter, checkPresetId, checkSignal } from './boundary.ts'
import { resolveConfig, SettingsControllerConfig, type ResolvedConfig } from './config.ts'
import { cancelled, internal, invalid, noProvider, providerStarting, rejected, toRemoteError, unavailable, type SectionFacts } from './errors.ts'
import { runOpener } from './opener.ts'
import { findPreset } from './presets.ts'
import type {
  AgentPresetDirectoryOpenValue,
  SettingsCompareValue,
  SettingsDescribeValue,
  SettingsDocumentOpenValue,
  SettingsHistoryValue,
  SettingsPathOpView,
  SettingsRestoreOptions,
  SettingsRestoreValue,
} from './types.ts'
import { serveOnWire } from './wire.ts'
import { keepCatalog } from './keep-catalog.ts'

declare module 'cordis' {
  interface Context {
    settingsController: SettingsController
  }
}

type WriteMode = 'update' | 'replace' | 'mutate'

/** An optional scope argument, `null` or absent for the global scope, read with the seam's own parser. */
function optionalScope(scope: unknown): SettingsScopeId | undefined {
  const given = absent(scope)
  return given === undefined ? undefined : settingsScopeId(given)
}

/**
 * A kept section as a restore writes it back: naming the version of the
 * settings it was written for (0 when it names none), so it is stored as it
 * was kept, and the next registration of its plugin migrates it again. An
 * absent section restores as an empty one.
 */
function keptSection(section: unknown): unknown {
  if (section === undefined || section === null) return {}
  if (typeof section !== 'object' || Array.isArray(section) || Object.hasOwn(section, SECTION_VERSION_KEY)) return section
  return { ...section, [SECTION_VERSION_KEY]: 0 }
}

/** A descriptor as the wire sees it: redacted (`undeclared` keys as paths only), with `secrets` always present. */
function toView(descriptor: SettingsDescriptor): SettingsNamespaceView {
  return { ...descriptor, secrets: descriptor.secrets ?? [] }
}

/**
 * The settings API that configuration pages call, `ctx.settingsController`.
 *
 * Every read is redacted (`redactSecrets: true`), so no `role('secret')` field
 * can ride an answer; writes are the settings service's merge, replacement and
 * path-addressed edits, handed to the service as the caller sent them (the
 * service checks them, once) and answered with the namespace's new redacted
 * view. Failures are `RemoteError`s with the codes `settings/invalid`,
 * `settings/rejected`, `settings/conflict`, `settings/unavailable` and `internal`.
 *
 * The settings provider is optional: without one every settings call fails
 * with `settings/unavailable`, while the agent preset methods, which are about
 * directories and the native opener, work all the same. When a `remoteServer`
 * is present the controller exposes itself on the wire as service `settings`
 * (registering its codes' HTTP statuses) and forwards settings events to its
 * streams, for as long as that server lives.
 */
export class SettingsController extends Service {
  /** Configuration schema: `home`, `opener`, `presets`, `page`, `catalog` and `origin`. */
  static readonly Config = SettingsControllerConfig

  /**
   * The controller's own context's service registry (inside a service method
   * `this.ctx` is the caller's context). Kept so each call looks the provider up
   * with one `get`, rather than first resolving `ctx.get` through the context's
   * property machinery, which builds an Error and a bound function per call.
   */
  private readonly registry: Context['reflect']
  private readonly options: ResolvedConfig
  private readonly logger: Logger

  constructor(ctx: Context, config: SettingsControllerConfig = {}) {
    super(ctx, 'settingsController')
    this.registry = ctx.reflect
    this.options = resolveConfig(config)
    this.logger = ctx.logger('settings-controller')
    serveOnWire(ctx, this, this.logger)
    if (this.options.page) offerSettingsPage(ctx, this.logger)
    if (this.options.catalog) keepCatalog(ctx, this.options.home, this.logger)
  }

  /** The mounted settings service, looked up per call because it may come and go. */
  private provider(): SettingsProvider {
    const settings: SettingsProvider | undefined = this.registry.get('settings')
    if (settings) return settings
    // Mounted but not started (a database it cannot reach yet) is not "no provider": say what holds it up.
    const starting: SettingsProvider | undefined = this.registry.get('settings', false)
    throw starting ? providerStarting(starting.startFailure) : noProvider()
  }

  /**
   * Describe every namespace kind for a configuration page, under the global
   * scope or one named scope (an agent preset's `preset/<id>`), or only the
   * kinds `namespaces` names. Values, the `base`, `user` and `inherited` layers
   * and the schema envelope all arrive with their secrets removed; each view
   * lists its secret slots in `secrets` so a page can offer write-only inputs.
   * Keys the schema does not declare arrive as paths in `undeclared` (per
   * layer, each a `mutate` unset path), never with their values.
   * @param scope - the named scope to describe; the global scope when omitted or `null`.
   * @param namespaces - only these kinds (at most `MAX_DESCRIBE_NAMESPACES`), in the
   *   order given, each once, and none for a name no plugin registers (a page that
   *   asked drops it); every kind when omitted or `null`. A page refreshing the
   *   namespaces a `settings/document-updated` event names pays only for those.
   * @returns whether the provider is writable, whether it keeps a local document,
   *   one redacted view per namespace kind (registration order without `namespaces`),
   *   and every scope some namespace is registered under.
   * @throws {RemoteError} `settings/unavailable` when no settings provider is mounted;
   *   `settings/invalid` for a malformed scope id or namespace filter.
   */
  describe(scope?: string | null, namespaces?: readonly string[] | null): SettingsDescribeValue {
    const settings = this.provider()
    let checked: SettingsScopeId | undefined
    let only: string[] | undefined
    try {
      checked = optionalScope(scope)
      only = checkNamespaceFilter(namespaces)
    } catch (error) {
      throw toRemoteError(error, undefined, this.logger, 'settings describe')
    }
    try {
      return {
        writable: settings.writable,
        document: settings.documentPath !== undefined,
        history: settings.keepsHistory,
        namespaces: only ? only.flatMap((ns) => this.views(settings, checked, ns)) : this.views(settings, checked),
        scopes: settings.scopes(),
      }
    } catch (error) {
      // The seam's describe is total; whatever escapes it is a bug, not a refusal.
      throw error instanceof RemoteError ? error : internal(error, this.logger, 'settings describe')
    }
  }

  /**
   * Deep-merge a patch into one namespace's stored user section. Arrays in the
   * patch replace stored arrays whole; `null` is stored as data.
   * @param ns - the namespace to write.
   * @param patch - a plain object of JSON data, merged over the stored section.
   * @param expectedRevision - the `revision` the caller read; a section that has
   *   moved since fails with `settings/conflict`. `null` or absent writes unconditionally.
   * @param scope - the named scope whose own section to write; the global section when omitted or `null`.
   * @returns the namespace's redacted view under that scope after the write.
   * @throws {RemoteError} `settings/unavailable` without a provider; `settings/invalid`
   *   for a malformed argument; `settings/rejected` when the settings service refuses
   *   the write (`details.path` names a refused field); `settings/conflict` for a stale revision.
   */
  update(ns: string, patch: Record<string, unknown>, expectedRevision?: number | null, scope?: string): Promise<SettingsNamespaceView> {
    return this.write('update', ns, patch, expectedRevision, scope)
  }

  /**
   * Replace one namespace's stored user section wholesale: keys left out fall
   * back to the layers below, so `replace(ns, {})` resets the section. A caller
   * holding a redacted view should prefer `mutate`, since a section rebuilt from
   * that view lacks the secrets it never received.
   * @param ns - the namespace to write.
   * @param section - the complete next user section, a plain object of JSON data.
   * @param expectedRevision - as for `update`.
   * @param scope - as for `update`.
   * @returns the namespace's redacted view under that scope after the write.
   * @throws {RemoteError} as for `update`.
   */
  replace(ns: string, section: Record<string, unknown>, expectedRevision?: number | null, scope?: string): Promise<SettingsNamespaceView> {
    return this.write('replace', ns, section, expectedRevision, scope)
  }

  /**
   * Apply path-addressed edits, in order, to one namespace's user section as it
   * is stored when the write runs, not as the caller last saw it. Fields the
   * caller never received (redacted secrets) are left as they are; where the
   * stored value is an array, a decimal path segment addresses one element.
   * @param ns - the namespace to write.
   * @param ops - the edits: `{ op: 'set', path, value }` and `{ op: 'unset', path }`.
   * @param expectedRevision - as for `update`.
   * @param scope - as for `update`.
   * @returns the namespace's redacted view under that scope after the write.
   * @throws {RemoteError} as for `update`; a `set` without a `value` is `settings/invalid`.
   */
  mutate(ns: string, ops: SettingsPathOpView[], expectedRevision?: number | null, scope?: string): Promise<SettingsNamespaceView> {
    return this.write('mutate', ns, ops, expectedRevision, scope)
  }

  /**
   * Make the provider's settings document ready (a file provider creates an
   * empty one if needed) and hand it to this host's native opener. The path is
   * the provider's own; nothing a caller sends can choose it.
   * @param signal - the caller's lifetime: aborting it stops the preparation's
   *   follow-up and kills a running opener.
   * @returns `{ opened: true }` once the opener accepted the document.
   * @throws {RemoteError} `settings/unavailable` without a provider, when the provider
   *   keeps no local document, when this host has no opener, or when the opener
   *   fails (its exit status is in the message); `cancelled` on abort.
   */
  async openSettingsDocument(signal: AbortSignal): Promise<SettingsDocumentOpenValue> {
    const settings = this.provider()
    const checked = checkSignal(signal)
    const what = 'opening the settings document'
    if (checked?.aborted) throw cancelled(what, checked)
    const { opener } = this.options
    if (opener === false) throw unavailable(`${what}: this host has no native opener (opener: false)`)
    let path: string | undefined
    try {
      path = await settings.prepareDocument()
    } catch (error) {
      if (checked?.aborted) throw cancelled(what, checked)
      throw internal(error, this.logger, 'settings document preparation')
    }
    if (checked?.aborted) throw cancelled(what, checked)
    if (path === undefined) throw unavailable(`${what}: the settings provider keeps no local document`)
    if (typeof path !== 'string' || !isAbsolute(path)) {
      throw internal(new TypeError('prepareDocument() answered something other than an absolute path'), this.logger, 'settings document preparation')
    }
    await runOpener(opener, path, checked, what)
    return { opened: true }
  }

  /**
   * Whether this host can open an agent preset directory natively. When it
   * cannot, `openAgentPresetDirectory` answers the directory as text instead.
   * Needs no settings provider: it is about this host's opener.
   * @returns `true` when a native opener is configured or detected.
   */
  canOpenAgentPresetDirectory(): boolean {
    return this.options.opener !== false
  }

  /**
   * Open one user-authored agent preset's directory natively, or answer where it
   * is when this host has no opener. The id is resolved against the configured
   * preset roots in order; a caller never supplies a path, and a preset whose
   * real path leaves its root (a symlink out) is refused. Needs no settings
   * provider: presets are directories, not settings.
   * @param presetId - the preset id (the `<id>` of its `preset/<id>` scope).
   * @param signal - the caller's lifetime: aborting it kills a running opener.
   * @returns `{ opened: true }` once the opener accepted the directory, or
   *   `{ opened: false, directory }` when there is no native opener.
   * @throws {RemoteError} `settings/unavailable` when the opener fails; `settings/invalid`
   *   for a malformed id; `settings/rejected` for a preset that is missing, read-only or
   *   outside its root; `cancelled` on abort.
   */
  async openAgentPresetDirectory(presetId: string, signal: AbortSignal): Promise<AgentPresetDirectoryOpenValue> {
    const id = checkPresetId(presetId)
    const checked = checkSignal(signal)
    const what = `opening agent preset ${JSON.stringify(id)}`
    if (checked?.aborted) throw cancelled(what, checked)
    let found: Awaited<ReturnType<typeof findPreset>>
    try {
      found = await findPreset(this.options.presets, id)
    } catch (error) {
      if (error instanceof RemoteError) throw error
      throw internal(error, this.logger, 'agent preset lookup')
    }
    if (!found.writable) {
      throw rejected(`agent preset ${JSON.stringify(id)} is read-only (its root ships with the deployment); it is not opened`, { presetId: id, reason: 'read-only' })
    }
    if (checked?.aborted) throw cancelled(what, checked)
    const { opener } = this.options
    if (opener === false) return { opened: false, directory: found.directory }
    await runOpener(opener, found.directory, checked, what)
    return { opened: true }
  }

  /**
   * A page of the document's kept versions, newest first: when each was
   * written and replaced, who made it, and which sections it changed.
   * @param query - `limit` (default 20, at most 200) and `before`, a version id to page back from.
   * @throws {RemoteError} `settings/unavailable` without a provider; `settings/rejected` when it keeps no history or `before` is unknown; `settings/invalid` for a malformed query.
   */
  async history(query?: { limit?: number; before?: string } | null): Promise<SettingsHistoryValue> {
    const settings = this.provider()
    const given = absent(query) ?? {}
    if (typeof given !== 'object' || Array.isArray(given) || (given.before !== undefined && typeof given.before !== 'string')) {
      throw invalid('history query must be an object with an optional numeric `limit` and string `before`')
    }
    try {
      return { versions: await settings.history({ ...(given.limit === undefined ? {} : { limit: given.limit }), ...(given.before === undefined ? {} : { before: given.before }) }) }
    } catch (error) {
      throw toRemoteError(error, undefined, this.logger, 'settings history')
    }
  }

  /**
   * What changed from a kept version to the current document, redacted:
   * plain fields with both values; secrets and keys the schema does not declare
   * only as `set`, `changed` or `unset`.
   * @throws {RemoteError} as for {@link history}, and `settings/rejected` for an unknown version.
   */
  async compare(versionId: string): Promise<SettingsCompareValue> {
    const settings = this.provider()
    if (typeof versionId !== 'string') throw invalid('compare takes a version id (a string from history)')
    try {
      const kept = await settings.historyDocument(versionId)
      return { version: versionId, sections: settings.diff(kept) }
    } catch (error) {
      throw toRemoteError(error, undefined, this.logger, 'settings compare')
    }
  }

  /**
   * Write a kept version back: the whole document (every registered section
   * that differs, in one group of writes), or one section with `ns` (and
   * `scope`, and `expectedRevision` as for `replace`). Each section is a normal
   * write through the settings service, so a restore is itself kept and can be
   * undone. Sections whose namespace no plugin registers now are skipped.
   * @throws {RemoteError} as for {@link compare} and the write methods; after a
   *   whole-document restore in which one section was refused, the others stay written.
   */
  async restore(versionId: string, options?: SettingsRestoreOptions | null): Promise<SettingsRestoreValue> {
    const settings = this.provider()
    if (typeof versionId !== 'string') throw invalid('restore takes a version id (a string from history)')
    const given = absent(options) ?? {}
    if (typeof given !== 'object' || Array.isArray(given)) throw invalid('restore options must be an object')
    let kept
    try {
      kept = await settings.historyDocument(versionId)
    } catch (error) {
      throw toRemoteError(error, undefined, this.logger, 'settings restore')
    }
    if (given.ns !== undefined && given.ns !== null) {
      const section = getSection(kept, String(given.ns), given.scope ?? undefined)
      await this.write('replace', given.ns, keptSection(section), given.expectedRevision, given.scope)
      return { restored: [given.scope == null ? { ns: given.ns } : { ns: given.ns, scope: given.scope }], skipped: [] }
    }
    if (given.scope != null || given.expectedRevision != null) throw invalid('restore takes `scope` and `expectedRevision` only with `ns`')
    const restored: { ns: string; scope?: string }[] = []
    const skipped: { ns: string; scope?: string }[] = []
    const writes: Promise<unknown>[] = []
    for (const key of settings.diff(kept)) {
      const where = key.scope === undefined ? { ns: key.ns } : { ns: key.ns, scope: key.scope }
      if (key.unregistered) {
        skipped.push(where)
        continue
      }
      restored.push(where)
      // Issued together, so they leave as one group of writes.
      writes.push(this.write('replace', key.ns, keptSection(getSection(kept, key.ns, key.scope)), undefined, key.scope))
    }
    const outcomes = await Promise.allSettled(writes)
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
    if (failed) throw failed.reason
    return { restored, skipped }
  }

  /**
   * Write through the settings service and answer the namespace's fresh view.
   * The namespace, scope and revision are read with the seam's own parsers
   * (the view lookup and the error details need them); the payload goes to the
   * service as it came, to be checked and copied there, once, before anything
   * here awaits.
   */
  private async write(mode: WriteMode, ns: unknown, payload: unknown, expectedRevision: unknown, scope: unknown): Promise<SettingsNamespaceView> {
    const settings = this.provider()
    let facts: SectionFacts | undefined
    let label = `settings ${mode}`
    let key: string
    let checkedScope: SettingsScopeId | undefined
    try {
      key = settingsNamespace(ns)
      checkedScope = optionalScope(scope)
      facts = checkedScope === undefined ? { ns: key } : { ns: key, scope: checkedScope }
      label = `settings ${mode} of ${JSON.stringify(key)}${checkedScope === undefined ? '' : ` in scope ${checkedScope}`}`
      const revision = settingsRevision(absent(expectedRevision))
      const { origin } = this.options
      if (mode === 'mutate') await settings.mutate(key, payload as SettingsPathOp[], revision, checkedScope, origin)
      else await settings[mode](key, payload as object, revision, checkedScope, origin)
    } catch (error) {
      throw toRemoteError(error, facts, this.logger, label)
    }
    let view: SettingsNamespaceView | undefined
    try {
      // Only the written kind is described: the answer is its view, and the others cost nothing here.
      view = this.views(settings, checkedScope, key).find((candidate) => candidate.ns === key)
    } catch (error) {
      throw toRemoteError(error, facts, this.logger, label)
    }
    // The seam drops a kind with its last instance; a write can land just before that happens.
    if (!view) throw unavailable(`${label} was stored, but the namespace was unregistered before its view could be read`, { ns: key })
    return view
  }

  /**
   * Redacted views under a scope: every kind's, or only the kind `ns` names (none when it is not
   * registered). Redaction is not optional on this surface.
   */
  private views(settings: SettingsProvider, scope: SettingsScopeId | undefined, ns?: string): SettingsNamespaceView[] {
    return settings.describe({ redactSecrets: true, ...(scope === undefined ? {} : { scope }), ...(ns === undefined ? {} : { ns }) }).map(toView)
  }
}
