/**
 * Reading the document `dsh settings check` judges, as the file provider reads
 * it: something other than a regular file is refused before it is opened, a
 * document over the size cap before a byte is read, and the parse is the
 * provider's (JSON for `.json`, else YAML). A document the provider has not
 * written yet reads as an empty one, when it is the deployment's own.
 */
import { extname } from 'node:path'
import { DEFAULT_MAX_DOCUMENT_BYTES, DocumentError, DocumentNotAMapError, parseSettings, type ParsedDocument } from 'dsh-settings-file/codec'
import { FileTooLargeError, NotAFileError, readDocumentText } from 'dsh-settings-file/store'
import { REFERENCE_TAGS } from 'dsh-settings-secrets'
import { UsageError, type Deployment, type FileProviderConfig } from './deployment.ts'
import { PositionedText, type Position } from './positions.ts'

/** A problem of the document as a whole: it cannot be read as sections. */
export interface UnreadableProblem {
  position: Position
  code: 'bad-yaml' | 'bad-document'
  rule: string
}

/** The document read and parsed, or why it cannot be read as sections. */
export type CheckedRead = { text: string; parsed: ParsedDocument; missing: boolean } | { problems: UnreadableProblem[] }

const START: Position = { line: 1, column: 1 }

/**
 * Read and parse `file`. When it does not exist and `missingIsEmpty` (it is the
 * document the deployment's file provider would write), it reads as an empty
 * document, `missing: true`.
 * @throws {UsageError} when the file cannot be read (missing, unless `missingIsEmpty`; not a regular file; no permission).
 */
export async function readChecked(file: string, deployment: Deployment, missingIsEmpty: boolean): Promise<CheckedRead> {
  const cap = sizeCap(deployment)
  let text: string | undefined
  try {
    text = await readDocumentText(file, { maxBytes: cap })
  } catch (error) {
    if (error instanceof FileTooLargeError) {
      const rule = `the document is ${error.bytes} bytes, over the file provider's size cap of ${error.limit} (maxDocumentBytes), so it refuses to load it; it was not read`
      return { problems: [{ position: START, code: 'bad-document', rule }] }
    }
    const why = error instanceof NotAFileError ? `it is a ${error.kind}, not a regular file` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)
    throw new UsageError(`cannot read the settings document ${file}: ${why}`)
  }
  // A deployment that has not written its document yet holds no sections: what it lacks is still worth reporting.
  if (text === undefined && !missingIsEmpty) throw new UsageError(`cannot read the settings document ${file}: ENOENT`)
  const format = extname(file).toLowerCase() === '.json' ? 'json' : 'yaml'
  const source = text ?? (format === 'json' ? '{}' : '')
  try {
    // References (`!secret name`) read as the codec's tagged scalars: check.ts resolves them, as the provider does.
    return { text: source, parsed: parseSettings(source, format, file, cap, { tags: Object.values(REFERENCE_TAGS) }), missing: text === undefined }
  } catch (error) {
    if (!(error instanceof DocumentError)) throw error
    return { problems: refusalProblems(error, source, format) }
  }
}

/**
 * What a refusal of the provider's parse reports: for YAML that does not parse, each place yaml
 * stops (its codes, as the provider's own parse finds them, never its messages, which quote the
 * source); for JSON that does not parse, its one place; for a document that parses but is not
 * sections (not a map, aliases past the cap), the provider's rule at its position.
 */
function refusalProblems(error: DocumentError, text: string, format: 'yaml' | 'json'): UnreadableProblem[] {
  if (format === 'yaml') {
    const syntax = PositionedText.parse(text).errors
    if (syntax.length) {
      // yaml may report several codes at one place (a block used as a key, spanning lines): one line per place.
      const byPlace = new Map<string, { position: Position; codes: string[] }>()
      for (const { code, position } of syntax) {
        const place = byPlace.get(`${position.line}:${position.column}`) ?? { position, codes: [] }
        if (!place.codes.includes(code)) place.codes.push(code)
        byPlace.set(`${position.line}:${position.column}`, place)
      }
      return [...byPlace.values()].map(({ position, codes }) => ({ position, code: 'bad-yaml', rule: `not valid YAML (${codes.join(', ')})` }))
    }
  } else if (error.code === 'DOCUMENT_INVALID' && error.position) {
    // JSON.parse stops at the first error: its one place (a root that is not a map has a code of its own).
    return [{ position: error.position, code: 'bad-yaml', rule: 'not valid JSON' }]
  }
  return [{ position: error.position ?? START, code: 'bad-document', rule: documentRule(error) }]
}

/** The file provider's size cap for the deployment: its `maxDocumentBytes` when configured, else the provider's default. */
function sizeCap(deployment: Deployment): number {
  const configured = deployment.provider?.file ? (deployment.provider.ref.entry.config as FileProviderConfig | null)?.maxDocumentBytes : undefined
  return typeof configured === 'number' && Number.isSafeInteger(configured) && configured >= 1 ? configured : DEFAULT_MAX_DOCUMENT_BYTES
}

/** A refusal of the provider's parse as a rule: what is wrong without the document's path (the line names the file) or position. */
function documentRule(error: DocumentError): string {
  if (error instanceof DocumentNotAMapError) return `the document is not a map of namespace sections: ${error.root}`
  return `the document ${error.detail.replace(/,? at line \d+, column \d+$/, '')}`
}
