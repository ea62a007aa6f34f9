/**
 * What `describe` answers with no host running: each recorded kind described
 * from the catalog and the stored document by the seam's own functions
 * (`dsh-settings/offline`): the same layers (defaults, the recorded base,
 * the global and scope sections), problems, setup state and redaction a host
 * would answer, with no provider started and nothing written. A namespace
 * with no schema recorded is answered with its stored values, unjudged, its
 * view carrying no schema; a section stored at an older version than its
 * plugin's is shown as stored, with a note.
 */
import { describeOffline, storedNamespaces, type SchemaEnvelope } from 'dsh-settings/offline'
import type { SettingsDescriptor, SettingsDocument, SettingsNamespaceView } from 'dsh-settings'
import type { CatalogKind } from 'dsh-settings-controller/catalog'
import type { CatalogState } from './catalog-state.ts'
import { uncheckedLine } from './catalog-state.ts'
import { baseOf, RAW_SCHEMA, schemaOfKind } from './revived.ts'
import type { HeldReference } from '../secrets/references.ts'
import { labelSources } from '../secrets/label.ts'

/** What an offline read holds: the catalog (or why there is none) and the stored document. */
export interface ReadState {
  catalog: CatalogState
  /** The stored document, its references resolved. */
  document: SettingsDocument
  /** The stored document with its references in JSON form (no value), when it holds any. */
  stored?: SettingsDocument
  /** The references the stored document holds. */
  held?: HeldReference[]
}

/** A kind as `describeOffline` takes it. */
function offlineKind(kind: CatalogKind) {
  return {
    ns: kind.ns,
    schema: schemaOfKind(kind),
    envelope: kind.schema as SchemaEnvelope,
    version: kind.version,
    steps: kind.steps,
    applies: kind.applies,
    instances: kind.instances.map((instance) => ({ ...(instance.scope === undefined ? {} : { scope: instance.scope }), base: baseOf(instance) })),
  }
}

const toView = (descriptor: SettingsDescriptor): SettingsNamespaceView => ({ ...descriptor, secrets: descriptor.secrets ?? [] })

/** A namespace's values as stored (the scope's section over the global one), with no schema: `null` in its view says so. */
function rawView(state: ReadState, ns: string, scope: string | undefined, redact: boolean): SettingsNamespaceView | undefined {
  try {
    // With no schema nothing tells a secret: a reference shows as itself, never as the value it stands for.
    const descriptor = describeOffline({ ns, schema: RAW_SCHEMA, instances: [scope === undefined ? {} : { scope }] }, state.stored ?? state.document, { redactSecrets: redact, ...(scope === undefined ? {} : { scope }) })
    return { ...toView(descriptor), schema: null }
  } catch {
    // Not a namespace (a malformed key of the document): nothing a command can address.
    return undefined
  }
}

/** What the catalog (or its absence) says of a namespace it does not hold. */
function whyUnchecked(state: ReadState): string {
  return state.catalog.catalog ? `the host of ${state.catalog.catalog.deployment.file} registered no such namespace when it last ran` : state.catalog.why
}

/** The note on a section stored at an older version than its plugin's, or `undefined`. */
function pendingNote(view: SettingsNamespaceView): string | undefined {
  const migration = view.migration
  if (migration?.state !== 'pending') return undefined
  const where = view.scope === undefined ? view.ns : `${view.ns} in ${view.scope}`
  return `note: ${where} is stored at version ${migration.stored} and its plugin's settings are at version ${migration.version} (${migration.steps.join('; ')}): shown as stored, not migrated; start the host once to migrate it`
}

/**
 * The views of `scope` (global when absent): every recorded kind, or only
 * those `namespaces` names, then the stored namespaces no schema was
 * recorded for (only those named, when `namespaces` is given), each unchecked
 * line and pending-migration note told to `note` once.
 */
export function offlineViews(state: ReadState, scope: string | undefined, namespaces: readonly string[] | undefined, note: (line: string) => void): SettingsNamespaceView[] {
  const kinds = state.catalog.catalog ? state.catalog.kinds : new Map<string, CatalogKind>()
  const wanted = namespaces ?? [...kinds.keys(), ...storedNamespaces(state.document, scope).filter((ns) => !kinds.has(ns))]
  const views: SettingsNamespaceView[] = []
  const unchecked: string[] = []
  const unrevived: string[] = []
  for (const ns of new Set(wanted)) {
    const kind = kinds.get(ns)
    let view: SettingsNamespaceView | undefined
    if (kind) {
      try {
        view = labelSources(toView(describeOffline(offlineKind(kind), state.document, { redactSecrets: true, ...(scope === undefined ? {} : { scope }) })), state.held ?? [])
      } catch {
        view = undefined
      }
    }
    if (!view) {
      // With a catalog, a namespace it does not hold and nothing stores is none at all (a typo, or a value in the
      // address's place): no view, so the command refuses it as a host would. Without one, nothing can tell.
      const unknown = !kind && state.catalog.catalog !== undefined && !storedNamespaces(state.document, scope).includes(ns)
      view = unknown ? undefined : rawView(state, ns, scope, false)
      if (view) (kind ? unrevived : unchecked).push(ns)
    }
    if (!view) continue
    const pending = pendingNote(view)
    if (pending) note(pending)
    views.push(view)
  }
  if (unchecked.length) note(uncheckedLine(unchecked, whyUnchecked(state)))
  if (unrevived.length && state.catalog.catalog) note(uncheckedLine(unrevived, `${state.catalog.path} holds a schema for it that does not read back`))
  return views
}

/** The value the plugin of `ns` reads under `scope`, secrets included (`--show-secrets`), or the stored values of an unrecorded namespace. */
export function revealedValue(state: ReadState, ns: string, scope: string | undefined): unknown {
  const kind = state.catalog.catalog ? state.catalog.kinds.get(ns) : undefined
  const options = scope === undefined ? {} : { scope }
  if (kind) {
    try {
      return describeOffline(offlineKind(kind), state.document, options).value
    } catch {}
  }
  return rawView(state, ns, scope, false)?.value
}

/** The scopes the recorded kinds have instances in, in the order the catalog lists them. */
export function recordedScopes(state: ReadState): string[] {
  const scopes = new Set<string>()
  for (const kind of state.catalog.catalog?.kinds ?? []) for (const instance of kind.instances) if (instance.scope !== undefined) scopes.add(instance.scope)
  return [...scopes]
}
