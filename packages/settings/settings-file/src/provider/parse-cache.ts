import { transferToSeam } from 'dsh-settings'
import { parseSettings, rereadChanged, sizeOver, type DocumentFormat, type ParsedDocument } from './settings-codec.ts'

/**
 * The document's last parse, kept with its text: a parse is skipped while the
 * file still holds that text, and a small edit of it is read as what it
 * changed alone (see `rereadChanged`).
 */
export class ParseCache {
  private last: { text: string; result: ParsedDocument } | undefined

  constructor(private readonly options: { file: string; format: DocumentFormat; maxDocumentBytes: number }) {}

  /** Parse document text, reusing the last parse when the text is the same. @throws the codec's refusals as `Settings*` errors. */
  parse(text: string): ParsedDocument {
    if (this.last?.text === text) return this.last.result
    const { file, format, maxDocumentBytes } = this.options
    const previous = this.last
    // An edit of a few entries, or inside one large entry, is read as what it changed alone, when the document allows it.
    const changed = previous && format === 'yaml' && sizeOver(text, maxDocumentBytes) === undefined ? rereadChanged(previous.text, previous.result, text) : undefined
    const result = changed ?? parseSettings(text, format, file, maxDocumentBytes)
    // The parse is the provider's alone and never changed: the seam takes it without copying.
    transferToSeam(result.data)
    this.last = { text, result }
    return result
  }

  /** The text a write just stored, with the parse the render checked it with (or none: the next read parses it). */
  remember(text: string, parsed: ParsedDocument | undefined): void {
    this.last = parsed ? { text, result: parsed } : undefined
  }
}
