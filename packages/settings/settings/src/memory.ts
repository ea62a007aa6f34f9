import type { Context } from 'cordis'
import Schema from 'schemastery'
import type { SettingsStoreResult, SettingsTransaction } from './transactions.ts'
import { getSection, putSection } from './document.ts'
import { readsHold } from './overlay.ts'
import { copyData } from './data.ts'
import { SettingsProvider } from './provider.ts'
import type { SettingsDocument } from './types.ts'

/**
 * A complete settings provider that keeps the document in memory, for tests
 * of the seam and of every consumer plugin. It honours the same transaction
 * contract as a file or database provider: writes and simulated external
 * edits run one at a time on one chain.
 */
export class MemorySettingsProvider extends SettingsProvider {
  /**
   * The config schema cordis resolves `ctx.plugin(MemorySettingsProvider, config)` with.
   * `document` passes through as given: checking stored content is the seam's job, and it
   * reports a malformed document the way it reports one read from any store.
   */
  static readonly Config: Schema<MemorySettingsProvider.Config> = Schema.object({
    document: Schema.any().description('The initial raw document, as a store would hold it; copied, never aliased.'),
    writable: Schema.boolean().default(true).description('Whether writes are accepted; false makes a read-only provider.'),
  })

  private stored: SettingsDocument
  private readonly canWrite: boolean
  private chain: Promise<void> = Promise.resolve()
  /** How many transactions stored a new document (group commit makes this smaller than the number of writes). */
  persistCount = 0

  constructor(ctx: Context, config: MemorySettingsProvider.Config = {}) {
    super(ctx)
    this.stored = copyData(config.document ?? {}) as SettingsDocument
    this.canWrite = config.writable ?? true
  }

  override get writable(): boolean {
    return this.canWrite
  }

  protected load(): SettingsDocument {
    return copyData(this.stored) as SettingsDocument
  }

  protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    return this.exclusive(() => {
      // No copies: the seam never changes a section it handed over, nor this provider one it keeps.
      if (!readsHold(transaction.reads, (ns, scope) => getSection(this.stored, ns, scope))) return { moved: true }
      if (!transaction.changes.length) return undefined
      for (const change of transaction.changes) putSection(this.stored, change, change.section)
      this.persistCount++
      return undefined
    })
  }

  /** A detached copy of the stored raw document. */
  document(): SettingsDocument {
    return copyData(this.stored) as SettingsDocument
  }

  /**
   * Replace the stored document as an outside editor would, and publish it
   * (source `provider`). Resolves after every commit and event ran.
   */
  edit(document: SettingsDocument): Promise<void> {
    return this.exclusive(() => {
      this.stored = copyData(document) as SettingsDocument
      this.publish(copyData(document) as SettingsDocument)
    })
  }

  private exclusive<T>(run: () => T): Promise<T> {
    const result = this.chain.then(run)
    this.chain = result.then(
      () => {},
      () => {},
    )
    return result
  }
}

export namespace MemorySettingsProvider {
  /** Configuration of {@link MemorySettingsProvider}. */
  export interface Config {
    /** The initial raw document; copied, never aliased. */
    document?: SettingsDocument
    /** Whether writes are accepted; `false` makes a read-only provider. Defaults to `true`. */
    writable?: boolean
  }
}

export default MemorySettingsProvider
