/**
 * What the catalog says of the registered kinds, read from the settings seam
 * through its redacted `describe` only: the sanitized envelope, the version
 * and its steps, the effect timing, and per live instance its base with the
 * secrets and undeclared keys taken out (whether the base sets each secret is
 * kept, never its value).
 */
import { SECTION_VERSION_KEY, type SettingsDescriptor, type SettingsProvider } from 'dsh-settings'
import { valueAt } from 'dsh-settings/data'
import { CATALOG_FORMAT, type CatalogInstance, type CatalogKind, type SettingsCatalog } from './catalog-format.ts'

/** The deployment facts a loader puts on the root context (`dsh-loader`'s `DeploymentFacts`), read by shape. */
export interface DeploymentFactsLike {
  file: string
  packages: Record<string, string>
}

/** `ctx.get('deployment')`'s value when it has the facts' shape. */
export function deploymentFacts(value: unknown): DeploymentFactsLike | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { file, packages } = value as Record<string, unknown>
  if (typeof file !== 'string' || typeof packages !== 'object' || packages === null) return undefined
  const versions = Object.entries(packages).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
  return { file, packages: Object.fromEntries(versions) }
}

/**
 * The names of a kind's migration steps from version 0 to `version`: asked of
 * the seam's `diff` between two sections that differ only in their stored
 * version, which names the steps between them.
 */
function stepNames(settings: SettingsProvider, ns: string, version: number): string[] {
  if (!version) return []
  const [section] = settings.diff({ [ns]: { [SECTION_VERSION_KEY]: 0 } }, { [ns]: { [SECTION_VERSION_KEY]: version } })
  return section?.version?.steps ?? []
}

/** One instance as the catalog keeps it. `view` is its redacted descriptor. */
function instanceOf(settings: SettingsProvider, view: SettingsDescriptor): CatalogInstance {
  const { scope } = view
  const instance: CatalogInstance = { ...(scope === undefined ? {} : { scope }), secrets: [] }
  if (view.base !== undefined) instance.base = view.base
  // Whether the base sets a secret needs the base itself: read in this process, only its presence goes on.
  const secrets = view.secrets ?? []
  const base = view.base !== undefined && secrets.length ? settings.describe({ ns: view.ns, ...(scope === undefined ? {} : { scope }) })[0]?.base : undefined
  instance.secrets = secrets.map((secret) => ({ path: [...secret.path], set: valueAt(base, secret.path) !== undefined }))
  if (view.needsSetup) instance.needsSetup = true
  return instance
}

/** Every registered kind with its live instances: global ones first, then each named scope's. */
export function catalogKinds(settings: SettingsProvider): CatalogKind[] {
  const kinds = new Map<string, CatalogKind>()
  for (const view of settings.describe({ redactSecrets: true })) {
    const version = view.migration?.version ?? 0
    kinds.set(view.ns, {
      ns: view.ns,
      schema: view.schema,
      version,
      steps: stepNames(settings, view.ns, version),
      applies: view.applies,
      instances: view.registered ? [instanceOf(settings, view)] : [],
    })
  }
  for (const scope of settings.scopes()) {
    for (const view of settings.describe({ redactSecrets: true, scope })) if (view.registered) kinds.get(view.ns)?.instances.push(instanceOf(settings, view))
  }
  return [...kinds.values()]
}

/** The catalog's text: two-space JSON, one trailing newline. */
export function catalogText(kinds: CatalogKind[], deployment: DeploymentFactsLike, writtenAt: Date): string {
  const catalog: SettingsCatalog = { format: CATALOG_FORMAT, writtenAt: writtenAt.toISOString(), deployment, kinds }
  return `${JSON.stringify(catalog, null, 2)}\n`
}

/** What two catalogs hold apart from when they were written: a catalog is rewritten only when this changes. */
export function catalogContent(kinds: CatalogKind[], deployment: DeploymentFactsLike): string {
  return JSON.stringify({ deployment, kinds })
}
