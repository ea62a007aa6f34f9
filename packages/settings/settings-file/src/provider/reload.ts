import type { SettingsDocument } from 'dsh-settings'
import type { DocumentStore } from '../store/document-store.ts'
import { sameSignature, statVersion, type FileVersion } from '../store/version.ts'
import { settingsErrorOf, SettingsDocumentTooLargeError, SettingsNotAFileError } from './errors.ts'
import type { ParseCache } from './parse-cache.ts'
import type { Base } from './write.ts'

/**
 * What an outside edit means for the seam: the document read again (settled,
 * never while a writer has it set aside) when it changed since it was last
 * seen, and parsed. A document that cannot be used (not a regular file, too
 * large, unparsable) keeps the last good settings, warned once per state.
 */
export class Reloads {
  /** The signature of a document refused at the last reload (not a regular file, too large): warned about once. */
  private refused: FileVersion | undefined

  constructor(
    private readonly options: {
      file: string
      disk: DocumentStore<Base>
      parses: ParseCache
      warn(message: string): void
    },
  ) {}

  /**
   * The document to hand the seam, when the file changed since it was last
   * seen; `undefined` when nothing new is there. `force` reads the content even
   * when the signature is unchanged (a watcher event); the periodic re-check
   * reads only when the signature moved.
   */
  async read(force: boolean): Promise<SettingsDocument | undefined> {
    const { file, disk, parses, warn } = this.options
    if (!force && sameSignature(statVersion(file), disk.seen)) return undefined
    let version: FileVersion
    try {
      version = await disk.readSettled(file, true)
    } catch (thrown) {
      const error = settingsErrorOf(thrown)
      if (!(error instanceof SettingsNotAFileError || error instanceof SettingsDocumentTooLargeError)) throw error
      // One warning per state of the file, not one per re-check.
      const now = statVersion(file)
      if (!this.refused || !sameSignature(now, this.refused)) warn(`${error.message}; keeping the last good settings`)
      this.refused = now
      return undefined
    }
    this.refused = undefined
    const known = disk.seen.text
    disk.seen = version
    if (version.text === known) return undefined
    if (version.text === undefined) return {}
    try {
      return parses.parse(version.text).data as SettingsDocument
    } catch (error) {
      warn(`${(error as Error).message}; keeping the last good settings`)
      return undefined
    }
  }
}
