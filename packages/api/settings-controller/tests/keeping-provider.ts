import { changedSections, SettingsStoreError, type SettingsDocument, type SettingsHistoryVersion, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'

/**
 * The memory provider with a history: every write that stores a new document
 * keeps the one it replaced, so `history`, `compare` and `restore` work
 * without a file. Versions are `v0`, `v1`, … oldest first.
 */
export class KeepingMemoryProvider extends MemorySettingsProvider {
  private readonly kept: { document: SettingsDocument; next: SettingsDocument; at: string }[] = []

  override get keepsHistory(): boolean {
    return true
  }

  protected override async store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    const before = this.document()
    const stored = this.persistCount
    const result = await super.store(transaction)
    if (this.persistCount !== stored) this.kept.push({ document: before, next: this.document(), at: new Date().toISOString() })
    return result
  }

  override async history(): Promise<SettingsHistoryVersion[]> {
    return this.kept
      .map(({ document, next, at }, index) => ({ id: `v${index}`, writtenAt: at, replacedAt: at, by: ['unknown' as const], sections: changedSections(document, next) }))
      .reverse()
  }

  override async historyDocument(id: string): Promise<SettingsDocument> {
    const version = /^v\d+$/.test(id) ? this.kept[Number(id.slice(1))] : undefined
    if (!version) throw new SettingsStoreError('SETTINGS_NO_VERSION', `no kept version ${JSON.stringify(id)}`, 'memory')
    return structuredClone(version.document)
  }
}
