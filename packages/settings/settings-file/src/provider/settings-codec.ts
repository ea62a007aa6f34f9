/**
 * The codec as the provider calls it: the same functions, refusing with the
 * public `Settings*` errors (see `settingsErrorOf`) instead of the codec's own.
 */
import { checkNextSize as checkSize, formatOf as formatOfPath, parseSettings as parseText, renderChanges as renderChangesOf, renderDocument as renderText, type DocumentChange, type DocumentFormat, type ParsedDocument, type Rendered, type RenderedChanges } from '../codec/index.ts'
import { SCOPES_KEY } from 'dsh-settings'
import { REFERENCE_TAGS } from 'dsh-settings-secrets'
import { withSettingsErrors } from './errors.ts'

/** The tags the provider's documents keep as references (`!secret`, `!env`, `!file`): every parse reads them so. */
const TAGS: readonly string[] = Object.values(REFERENCE_TAGS)

export { DEFAULT_MAX_DOCUMENT_BYTES, rereadChanged, sizeOver, type DocumentChange, type DocumentFormat, type ParsedDocument, type Rendered, type RenderedChanges } from '../codec/index.ts'

/** The document's format by its extension. @throws {SettingsDocumentError} for another extension. */
export function formatOf(file: string): DocumentFormat {
  return withSettingsErrors(() => formatOfPath(file))
}

/** Parse document text, references read as the codec's `TaggedScalar`. @throws {SettingsDocumentError} (and its subclasses), {SettingsDocumentTooLargeError}. */
export function parseSettings(text: string, format: DocumentFormat, file: string, maxBytes?: number): ParsedDocument {
  return withSettingsErrors(() => parseText(text, format, file, maxBytes, { tags: TAGS }))
}

/** The next text of the document. @throws {SettingsDocumentCannotHoldError} for data YAML cannot hold. */
export function renderDocument(format: DocumentFormat, text: string, parsed: ParsedDocument, next: unknown, file = ''): Rendered {
  return withSettingsErrors(() => renderText(format, text, parsed, next, file))
}

/** Refuse a next text over the cap. @throws {SettingsDocumentTooLargeError} (`next: true`). */
export function checkNextSize(text: string, file: string, limit: number): void {
  withSettingsErrors(() => checkSize(text, file, limit))
}

/**
 * The next text after a transaction's changed sections (see the codec's `renderChanges`, and
 * {@link changesOfSections}); `next`, when given, is the seam's `documentWith` of the same changes.
 * @throws {SettingsDocumentCannotHoldError} for data YAML cannot hold.
 */
export function renderChanges(format: DocumentFormat, text: string, parsed: ParsedDocument, changes: readonly DocumentChange[], file = '', next?: Record<string, unknown>): RenderedChanges {
  return withSettingsErrors(() => renderChangesOf(format, text, parsed, changes, file, next))
}

/** A transaction's changed sections as the codec's changes: `ns` at the root, a scoped one under `scopes.<scope>`; `undefined` removes it. */
export function changesOfSections(sections: Iterable<{ ns: string; scope?: string; section: unknown }>): DocumentChange[] {
  const changes: DocumentChange[] = []
  for (const { ns, scope, section } of sections) changes.push({ path: scope === undefined ? [ns] : [SCOPES_KEY, scope, ns], value: section })
  return changes
}
