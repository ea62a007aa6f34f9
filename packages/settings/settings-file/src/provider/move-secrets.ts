import { documentWith, SettingsStoreError, type SettingsDocument } from 'dsh-settings'
import { secretName, type SecretStore } from 'dsh-settings-secrets'
import type { DocumentStore } from '../store/document-store.ts'
import type { DocumentHistory } from '../store/history.ts'
import { digest as digestOf } from '../store/history-journal.ts'
import { rewriteKept } from '../store/history-rewrite.ts'
import { referenceValue, valueAtPath, withValueAt } from './secret-places.ts'
import { sectionsOf, type DocumentSecrets, type SectionChange } from './secrets.ts'
import { changesOfSections, parseSettings, renderChanges, type DocumentFormat } from './settings-codec.ts'
import type { Base, SettingsWrites } from './write.ts'

/** What {@link moveSecrets} needs of the provider. */
export interface MoveSecretsOptions {
  file: string
  format: DocumentFormat
  store: SecretStore | undefined
  secrets: DocumentSecrets
  disk: DocumentStore<Base>
  writes: SettingsWrites
  maxDocumentBytes: number
  secretPaths(ns: string, section: unknown): string[][]
  /** The document just written (raw): the provider gives the seam its resolution. */
  stored(document: SettingsDocument): Promise<void>
  warn(message: string): void
}

/**
 * Move every inline secret of the document into the store (the store first,
 * then one document write with the references), then rewrite each kept
 * version in `history/` the same way, all under the document's lock. The
 * count says how many values left the document, never which.
 * @throws {SettingsStoreError} `SETTINGS_SECRETS_INLINE` when the provider keeps secrets inline.
 */
export async function moveSecrets(options: MoveSecretsOptions): Promise<{ moved: number }> {
  const { file, disk, writes, secrets } = options
  if (!options.store) throw new SettingsStoreError('SETTINGS_SECRETS_INLINE', `settings document ${file} keeps secrets inline (secrets: inline): set secrets to file or keyring to move them`, file)
  let moved = 0
  await disk.locked(async (lock, target) => {
    const stored = await writes.write(lock, target, async (current) => {
      const resolved = await secrets.resolve(current)
      const raw = await secrets.toRaw(current, [...sectionsOf(resolved)], true)
      moved = raw.moved
      return moved ? { next: documentWith(current, raw.changes), changes: changesOfSections(raw.changes) } : { next: current }
    })
    if (stored) await options.stored(stored.document)
    if (disk.history) await scrubHistory(options, disk.history)
  })
  return { moved }
}

/** Rewrite every kept version so no secret value stays in it: each inline secret becomes the reference the move wrote. */
async function scrubHistory(options: MoveSecretsOptions, history: DocumentHistory): Promise<void> {
  const journal = await history.readJournal().catch(() => undefined)
  for (const entry of history.list()) {
    let kept: Awaited<ReturnType<DocumentHistory['read']>>
    try {
      kept = await history.read(entry)
    } catch (error) {
      options.warn(`settings: a kept version of ${options.file} cannot be read to move its secrets out: ${(error as Error).name}`)
      continue
    }
    if (!kept) continue
    const text = await scrubbedText(options, kept.text, entry.path)
    if (text === undefined || text === kept.text) continue
    await rewriteKept(entry, text, options.disk.writer)
    // Who made the version is found by its text's digest: the rewritten text says the same.
    const authors = journal?.authors.get(digestOf(kept.text))
    const last = authors?.[authors.length - 1]
    if (last) history.note(text, last.by, new Date(last.at))
  }
  await history.trimJournal().catch(() => {})
}

/** A kept version's text with its inline secrets replaced by references, or `undefined` when it does not parse (warned). */
async function scrubbedText(options: MoveSecretsOptions, text: string, path: string): Promise<string | undefined> {
  const { format, store } = options
  let parsed
  try {
    parsed = parseSettings(text, format, path, options.maxDocumentBytes)
  } catch {
    options.warn(`settings: a kept version of ${options.file} does not parse; its secrets could not be moved out of it`)
    return undefined
  }
  const changes: SectionChange[] = []
  for (const change of sectionsOf(parsed.data as SettingsDocument)) {
    let section = change.section
    for (const secretPath of options.secretPaths(change.ns, section)) {
      const value = valueAtPath(section, secretPath)
      if (typeof value !== 'string') continue
      const name = secretName(change.ns, secretPath, change.scope)
      // A name the store lacks (a section since removed) gets this version's value, so a restore still resolves.
      if ((await store!.get(name)) === undefined) await store!.set(name, value)
      section = withValueAt(section, secretPath, referenceValue({ kind: 'secret', name }, format))
    }
    if (section !== change.section) changes.push({ ...change, section })
  }
  if (!changes.length) return text
  return renderChanges(format, text, parsed, changesOfSections(changes), path).text
}
