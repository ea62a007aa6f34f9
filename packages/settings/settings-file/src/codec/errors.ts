import { pathText } from './data.ts'

/**
 * What the codec refuses, as plain errors with a stable `name` and `code`.
 * They know nothing of settings: the file provider turns each into its public
 * `Settings*` class (`settingsErrorOf` in `dsh-settings-file`). A message names
 * the file and a place (a line and column, a key path), never document text.
 */

/** A 1-based line and column in a document's text. */
export interface TextPosition {
  line: number
  column: number
}

/**
 * A document that cannot be read: text that does not parse as YAML or JSON, an
 * alias past the cap or without its anchor, an extension of neither format.
 * `detail` is the message after the file's name (`is not valid YAML: … at line 3, column 1`).
 */
export class DocumentError extends Error {
  override readonly name: string = 'DocumentError'
  readonly code: 'DOCUMENT_INVALID' | 'DOCUMENT_NOT_A_MAP'
  constructor(
    /** The document's path, as the caller named it (may be empty). */
    readonly file: string,
    /** What is wrong, worded to follow the file's name. */
    readonly detail: string,
    /** Where parsing failed, 1-based, when it did. */
    readonly position?: TextPosition,
    code: 'DOCUMENT_INVALID' | 'DOCUMENT_NOT_A_MAP' = 'DOCUMENT_INVALID',
  ) {
    super(`document ${file} ${detail}`)
    this.code = code
  }
}

/**
 * The document parses, but its root is not a map (a sequence, a scalar, a
 * tagged root). `position` is the root's tag, or its first character; the
 * message says what the root is, never what it holds.
 */
export class DocumentNotAMapError extends DocumentError {
  override readonly name: string = 'DocumentNotAMapError'
  declare readonly code: 'DOCUMENT_NOT_A_MAP'
  declare readonly position: TextPosition
  constructor(
    file: string,
    /** What the root is instead (`its root is a sequence`), never what it holds. */
    readonly root: string,
    position: TextPosition,
  ) {
    super(file, `is not a map: ${root}, at line ${position.line}, column ${position.column}`, position, 'DOCUMENT_NOT_A_MAP')
  }
}

/** A byte count as `N bytes`, with MiB or KiB beside it when that reads better. */
export function bytesText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${bytes} bytes (${+(bytes / (1024 * 1024)).toFixed(2)} MiB)`
  if (bytes >= 1024) return `${bytes} bytes (${+(bytes / 1024).toFixed(2)} KiB)`
  return `${bytes} bytes`
}

/** A text, or the text an edit would produce (`next`), over the size cap it was given: it is not parsed, or not written. */
export class DocumentTooLargeError extends Error {
  override readonly name = 'DocumentTooLargeError'
  readonly code = 'DOCUMENT_TOO_LARGE'
  constructor(
    /** The document's path. */
    readonly file: string,
    /** The size found (UTF-8 bytes). */
    readonly bytes: number,
    /** The cap. */
    readonly limit: number,
    /** Whether this is the text an edit would produce (else the text given to parse). */
    readonly next = false,
  ) {
    super(`document ${file} ${next ? 'would be' : 'is'} ${bytesText(bytes)}, over the cap of ${bytesText(limit)}`)
  }
}

/**
 * Data YAML cannot hold so that it reads back the same: rendered, it reads as
 * something else. `documentPath` is the first place that does (array indexes
 * as strings; empty for the whole document); the message names the place, never the value.
 */
export class DocumentCannotHoldError extends Error {
  override readonly name = 'DocumentCannotHoldError'
  readonly code = 'DOCUMENT_CANNOT_HOLD'
  constructor(
    /** The document's path. */
    readonly file: string,
    /** The place from the document's root, array indexes as numbers. */
    readonly at: readonly (string | number)[],
  ) {
    super(`document ${file} cannot hold the value at ${pathText(at)}: written as YAML it does not read back the same`)
    this.documentPath = at.map(String)
  }

  /** The place from the document's root, array indexes as strings. */
  readonly documentPath: string[]
}

/** Any error the codec raises. */
export type CodecError = DocumentError | DocumentTooLargeError | DocumentCannotHoldError
