/**
 * How a settings document file is read and parsed, for tools beside the
 * provider (`pnpm settings check`): the provider's own reading (never a
 * blocking open, the size cap before a byte is read) and its own parse (the
 * same options, the same linear duplicate-key check, the same refusals), so a
 * tool reads a document exactly as a load does. The parsed YAML tree is yaml's
 * `Document`, with yaml's node guards to walk it.
 */
export { DEFAULT_MAX_DOCUMENT_BYTES, parseSettings, parseYaml, YAML_OPTIONS, type ParsedDocument } from './parse.ts'
export { readDocumentText, type DocumentReadOptions } from './version.ts'
export type { DocumentFormat } from './format.ts'
export { SettingsDocumentError, SettingsDocumentTooLargeError, SettingsNotAFileError, SettingsNotAMapError, type NotAFileKind } from './errors.ts'
export { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml'
