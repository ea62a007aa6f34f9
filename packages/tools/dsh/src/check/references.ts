/**
 * References in the document `dsh settings check` judges (`!secret`, `!env`,
 * `!file`, or their JSON forms): resolved as the file provider resolves them
 * before the plugins' schemas see the values (the deployment's `secrets:`
 * mode decides which store a `!secret` is asked in; variables are this
 * process's), and each one that does not resolve reported at its place as
 * `unresolved-reference`, naming the reference and never a value.
 */
import { dirname } from 'node:path'
import type { SettingsDocument } from 'dsh-settings'
import { taggedScalarsIn } from 'dsh-settings-file/codec'
import { REFERENCE_TAGS } from 'dsh-settings-secrets'
import { resolveDocument, type UnresolvedReference } from '../secrets/references.ts'
import { commandSecretStore, secretsMode } from '../secrets/store.ts'
import type { Deployment } from './deployment.ts'
import type { Position } from './positions.ts'

/** What the references of the checked document come to. */
export interface CheckedReferences {
  /** The document with its references resolved (each unresolved one left out): what the plugins judge. */
  data: Record<string, unknown>
  /** One problem per reference that does not resolve: at its tag, naming it and why (never a value). */
  problems: { position: Position; subject: string; rule: string }[]
  /** Where the left-out fields' values stand: another problem there is the same one (see {@link withoutExplained}). */
  explained: Position[]
}

/** How check.ts places and names what a reference concerns. */
export interface ReferencePlacing {
  /** Where a place of a section sits in the document's data. */
  documentPath(ns: string, scope: string | undefined, path: readonly string[]): string[]
  /** The position of a place of the document's data. */
  locate(path: string[]): Position
  /** `web-search in preset/coder $.apiKey`. */
  subject(ns: string, scope: string | undefined, path: readonly string[]): string
}

/**
 * Resolve the references of `data`, the document at `documentFile` with
 * `text`. The store is the deployment's file provider's (by its `secrets:`);
 * a document named for another provider is read as the file provider's
 * default (`file`).
 */
export async function checkReferences(text: string, data: Record<string, unknown>, documentFile: string, deployment: Deployment, env: NodeJS.ProcessEnv, placing: ReferencePlacing): Promise<CheckedReferences> {
  const config = deployment.provider?.file ? deployment.provider.ref.entry.config : undefined
  const resolved = await resolveDocument(data as SettingsDocument, { store: commandSecretStore(secretsMode(config), documentFile), env, baseDir: dirname(documentFile) })
  const { unresolved } = resolved
  const shown = referencePositions(text, unresolved, placing)
  return {
    data: resolved.document as Record<string, unknown>,
    // The error's message names the reference (`!env SEARCH_API_KEY`) and why, never a value.
    problems: unresolved.map((held, at) => ({ position: shown[at]!, subject: placing.subject(held.ns, held.scope, held.path), rule: held.error.message })),
    explained: unresolved.map((held) => placing.locate(placing.documentPath(held.ns, held.scope, held.path))),
  }
}

/**
 * `problems` without those the unresolved references explain: a field left
 * out for its reference reads as missing (or its section as refused) at the
 * very place the reference's own line already points at.
 */
export function withoutExplained<P extends { line: number; column: number; code: string }>(problems: P[], places: readonly Position[]): P[] {
  if (!places.length) return problems
  const at = new Set(places.map((place) => `${place.line}:${place.column}`))
  return problems.filter((problem) => problem.code === 'unresolved-reference' || !at.has(`${problem.line}:${problem.column}`))
}

/**
 * Where each of `unresolved` is reported: at its tag in YAML (`!env NAME`,
 * found by the codec), else (the JSON form) where `locate` puts its value.
 */
function referencePositions(text: string, unresolved: readonly UnresolvedReference[], placing: ReferencePlacing): Position[] {
  if (!unresolved.length) return []
  const tags = new Map(taggedScalarsIn(text, Object.values(REFERENCE_TAGS)).map((found) => [found.path.map(String).join('\u0000'), found]))
  return unresolved.map((held) => {
    const path = placing.documentPath(held.ns, held.scope, held.path)
    const tagged = tags.get(path.join('\u0000'))
    return tagged ? { line: tagged.line, column: tagged.column } : placing.locate(path)
  })
}
