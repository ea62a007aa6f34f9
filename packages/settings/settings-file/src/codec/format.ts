import { extname } from 'node:path'
import { DocumentError } from './errors.ts'

/** The two document formats, picked by file extension. */
export type DocumentFormat = 'yaml' | 'json'

/**
 * The format of a document path: `.yaml` / `.yml` or `.json`, in any letter case.
 * @throws {DocumentError} for any other extension.
 */
export function formatOf(file: string): DocumentFormat {
  const extension = extname(file).toLowerCase()
  if (extension === '.yaml' || extension === '.yml') return 'yaml'
  if (extension === '.json') return 'json'
  throw new DocumentError(file, `has extension "${extname(file)}", which is not supported (use .yaml, .yml or .json)`)
}
