import { documentWith, getSection, readsHold, type SettingsDocument, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import type { HeldLock } from '../store/lock.ts'
import type { JournalNotes } from '../store/journal-notes.ts'
import type { DocumentSecrets, SectionChange } from './secrets.ts'
import { changesOfSections } from './settings-codec.ts'
import type { SettingsWrites } from './write.ts'

/** What {@link writeTransaction} needs of the provider. */
export interface TransactionWriteOptions {
  writes: SettingsWrites
  secrets: DocumentSecrets
  notes: JournalNotes | undefined
  /** Hand the seam a document (resolved) it has not been given yet. */
  publishIfNew(document: SettingsDocument): void
  /** The document (resolved) the seam now holds. */
  given(document: SettingsDocument): void
}

/**
 * Store one seam transaction holding the document's lock: what the file holds
 * beyond what the seam was told is published first (and moves the write when
 * it changed what the write read); then the plain sections become raw ones
 * (secrets stored first, references in their places) and the document is
 * written; `!secret` names no longer used are removed after.
 */
export async function writeTransaction(options: TransactionWriteOptions, lock: HeldLock, target: string, transaction: SettingsTransaction): Promise<SettingsStoreResult> {
  const { writes, secrets } = options
  let moved = false
  let last: { current: SettingsDocument; unused: string[] } | undefined
  const stored = await writes.write(lock, target, async (current) => {
    // What the file holds beyond what the seam was last told (an edit still in the debounce window, another process's write).
    const resolved = await secrets.resolve(current)
    options.publishIfNew(resolved)
    moved = !readsHold(transaction.reads, (ns, scope) => getSection(resolved, ns, scope))
    if (moved) return { next: current }
    // Secrets go to the store first, then the document: a crash between leaves an unused name, never a reference to nothing.
    const raw = await secrets.toRaw(current, [...transaction.changes] as SectionChange[])
    last = { current, unused: raw.unused }
    // Only the store changed (a value held by `!secret`): the document is left alone.
    if (raw.changes.every((change) => change.section === getSection(current, change.ns, change.scope))) return { next: current }
    return { next: documentWith(current, raw.changes), changes: changesOfSections(raw.changes) }
  })
  if (stored) {
    // Who made this text, so its kept version can say so later: noted once the write is answered.
    options.notes?.add({ text: stored.text, by: [...transaction.origins], at: new Date() })
    options.given(await secrets.resolve(stored.document))
    await secrets.removeUnused(stored.document, last?.unused ?? [])
  } else if (last && !moved) options.given(await secrets.resolve(last.current))
  return moved ? { moved: true } : undefined
}
