import { DocumentTooLargeError } from './errors.ts'

/** The default cap on a document's size: 8 MiB (the file provider's `maxDocumentBytes`). */
export const DEFAULT_MAX_DOCUMENT_BYTES = 8 * 1024 * 1024

/** The UTF-8 size of `text` when it is over `limit` bytes, else `undefined` (counted only when it may be). */
export function sizeOver(text: string, limit: number): number | undefined {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: most texts are settled without counting.
  if (text.length * 3 <= limit) return undefined
  const bytes = Buffer.byteLength(text, 'utf8')
  return bytes > limit ? bytes : undefined
}

/**
 * Refuse the text an edit would produce when it is over `limit` bytes.
 * @throws {DocumentTooLargeError} (`next: true`) naming the cap.
 */
export function checkNextSize(text: string, file: string, limit: number): void {
  const bytes = sizeOver(text, limit)
  if (bytes !== undefined) throw new DocumentTooLargeError(file, bytes, limit, true)
}
