/**
 * Reading a document the quick way, for a tool that only reads and must start
 * at once (the `dsh` command's `get`): the text of a regular file within the
 * size cap, and its data when the fast reader takes it (the reader a load
 * tries first, certain to read as the full parse would) or when it is JSON
 * that parses to an object. Nothing else is loaded. Whatever this cannot
 * settle (not a regular file, too large, YAML outside the fast reader's
 * subset, JSON that does not parse) answers `undefined`: read that with
 * `dsh-settings-file/codec`, which refuses it in words or parses it whole.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { readYamlData } from './codec/yaml-fast-read.ts'

export { readYamlData } from './codec/yaml-fast-read.ts'

export { DEFAULT_MAX_DOCUMENT_BYTES } from './codec/size.ts'
/** The store's careful read (for what the quick way declines), without the rest of the store (its lock loads a native library). */
export { readDocumentText, type DocumentReadOptions } from './store/version.ts'
export { FileTooLargeError, NotAFileError } from './store/errors.ts'
/** How a codec parse that keeps tags (`!secret x`) hands them over: told apart here without loading the codec. */
export { isTaggedScalar, TaggedScalar } from './codec/tagged-scalar.ts'

/** What {@link readPlainText} found: the text, nothing there, or something to read the full way. */
export type PlainText = { text: string } | { absent: true } | undefined

/** The text at `path` when it is a regular file of at most `maxBytes`; `{ absent: true }` when nothing is there. */
export function readPlainText(path: string, maxBytes = Number.POSITIVE_INFINITY): PlainText {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { absent: true } : undefined
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile() || info.size > maxBytes) return undefined
    return { text: readFileSync(fd, 'utf8') }
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * The sections of the document at `path` as a load reads them (an absent
 * file holds none), when they can be read the quick way; `undefined` otherwise.
 */
export function readPlainData(path: string, maxBytes: number): Record<string, unknown> | undefined {
  const read = readPlainText(path, maxBytes)
  if (!read) return undefined
  if ('absent' in read) return {}
  const extension = extname(path).toLowerCase()
  if (extension === '.yaml' || extension === '.yml') return readYamlData(read.text)
  if (extension !== '.json') return undefined
  if (!read.text.trim()) return {}
  try {
    const data: unknown = JSON.parse(read.text)
    if (data === null) return {}
    return typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
