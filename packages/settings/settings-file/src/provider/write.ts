import { SettingsStoreError, type SettingsDocument } from 'dsh-settings'
import type { DocumentStore } from '../store/document-store.ts'
import type { HeldLock } from '../store/lock.ts'
import { ABSENT } from '../store/version.ts'
import { mergeLateEdit } from './late-edit.ts'
import { checkNextSize, parseSettings, renderChanges, renderDocument, type DocumentChange, type DocumentFormat, type ParsedDocument } from './settings-codec.ts'

/** A write gives up after this many rounds of finding the document changed under it. */
const MAX_ATTEMPTS = 8

/** What the store keeps with a replaced version: the data it held (what a late editor started from). */
export type Base = Record<string, unknown>

/**
 * What a write makes of the current document: the next one, and the changes that make it when it is known
 * (a transaction's changed sections): then the codec edits along those paths only, not by comparing documents.
 */
export interface Derived {
  next: SettingsDocument
  changes?: readonly DocumentChange[]
}

/** What one write stored. */
export interface Stored {
  document: SettingsDocument
  text: string
}

/** What {@link SettingsWrites} needs of the provider. */
export interface SettingsWritesOptions {
  file: string
  format: DocumentFormat
  maxDocumentBytes: number
  store: DocumentStore<Base>
  /** Parse document text through the provider's parse cache. */
  parse(text: string): ParsedDocument
  /** The text just written, with its parse when the render kept one (the next parse of that text is skipped). */
  written(text: string, parsed: ParsedDocument | undefined): void
  /** The text a document should start with so editors find its schema, when this write should add it. */
  modelineFor(text: string, created: boolean): string | undefined
  warn(message: string): void
}

/**
 * The adapter's half of a write: read the document under the lock, derive the
 * next data, render it byte-stably and hand the text to the store, which
 * replaces the document only while it holds the version read; when it does
 * not, read again and derive again. An editor's late write into the version
 * the last write replaced is merged in first (settings-level: by section).
 */
export class SettingsWrites {
  constructor(private readonly options: SettingsWritesOptions) {}

  /**
   * Store what `derive` makes of the document, holding `lock` on `target`.
   * @returns what was written, or `undefined` when `derive` changed nothing.
   */
  async write(lock: HeldLock, target: string, derive: (current: SettingsDocument) => Derived | Promise<Derived>): Promise<Stored | undefined> {
    const { store, file } = this.options
    // An editor's late write into the version the previous write replaced is the freshest user edit there is.
    const late = await this.takeLateEdit(target)
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { version: onDisk, readOnly } = await store.readForWrite(target, attempt)
      if (readOnly) throw new SettingsStoreError('SETTINGS_READ_ONLY', `settings document ${file} is read-only: ${readOnly}; nothing was written`, file)
      // An unparsable document refuses the write and stays exactly as the user left it.
      const parsed = this.options.parse(onDisk.text ?? '')
      const current = late ? mergeLateEdit(late.base, late.data, parsed.data) : parsed.data
      const { next, changes } = await derive(current as SettingsDocument)
      if (next === parsed.data) {
        store.seen = onDisk
        return undefined
      }
      // The changes say what changed from the parse only when nothing else (a late edit) was merged into it.
      const text = this.render(onDisk.text ?? '', parsed, next, onDisk === ABSENT, current === parsed.data ? changes : undefined)
      const outcome = await store.replace(lock, target, onDisk, text.text, parsed.data)
      if (outcome === 'lock-lost') throw new SettingsStoreError('SETTINGS_STORE_BUSY', `settings document ${file}: the lock was taken over during the write; nothing was written`, file)
      if (outcome === 'changed') continue
      this.options.written(text.text, text.parsed)
      return { document: next, text: text.text }
    }
    throw new SettingsStoreError('SETTINGS_STORE_BUSY', `settings document ${file} kept changing while it was being written (${MAX_ATTEMPTS} attempts); nothing was written`, file)
  }

  /** The next text: the document edited in place, with the modeline when this write adds it; refused over the size cap. */
  private render(text: string, parsed: ParsedDocument, next: SettingsDocument, created: boolean, changes: readonly DocumentChange[] | undefined): { text: string; parsed: ParsedDocument | undefined } {
    const { format, file, maxDocumentBytes } = this.options
    const rendered = changes ? renderChanges(format, text, parsed, changes, file, next) : renderDocument(format, text, parsed, next, file)
    const modeline = this.options.modelineFor(rendered.text, created)
    // The modeline shifts every offset of the parse kept with the text, so that parse is dropped.
    const result = modeline ? { text: `${modeline}\n${rendered.text}`, parsed: undefined } : { text: rendered.text, parsed: rendered.parsed }
    checkNextSize(result.text, file, maxDocumentBytes)
    if (!rendered.preserved) this.options.warn(`settings: ${file} could not be edited in place and was rendered afresh`)
    return result
  }

  /**
   * Take a late edit for the next write: what the editor started from and
   * what it wrote. An edit that does not parse yet (still being written), or
   * that has no sections (a save that only truncated so far), is left for later.
   */
  private async takeLateEdit(target: string): Promise<{ base: Base; data: Base } | undefined> {
    const late = await this.options.store.late.read()
    if (!late) return undefined
    let data: Base
    try {
      data = parseSettings(late.text, this.options.format, target, this.options.maxDocumentBytes).data
    } catch {
      return undefined // still being written, or broken: looked at again until the window closes
    }
    if (!Object.keys(data).length) return undefined
    this.options.store.late.forget()
    this.options.warn(`settings: an editor wrote ${this.options.file} while it was being replaced; its changes are folded in`)
    return { base: late.base, data }
  }
}
