import { basename } from 'node:path'
import { changedSections, SettingsStoreError, type SettingsDocument, type SettingsHistoryQuery, type SettingsHistoryVersion, type SettingsWriteOrigin } from 'dsh-settings'
import { digest, type DocumentHistory, type HistoryEntry, type KeptText } from '../store/history.ts'

/** The most versions one page lists. */
export const MAX_HISTORY_PAGE = 200
const DEFAULT_HISTORY_PAGE = 20

/** How a kept version's text becomes data; throws for text that does not parse. */
export type ParseVersion = (text: string) => SettingsDocument

/**
 * Read a kept version: its text, when it was written, and its data (`undefined`
 * when it does not parse); `undefined` when it is gone.
 * @throws {SettingsUnsafeHistoryFileError} for a symlink, anything but a regular file, or another owner's file: never read.
 */
async function readData(history: DocumentHistory, entry: HistoryEntry, parse: ParseVersion): Promise<(KeptText & { data: SettingsDocument | undefined }) | undefined> {
  const kept = await history.read(entry)
  if (!kept) return undefined
  try {
    return { ...kept, data: parse(kept.text) }
  } catch {
    return { ...kept, data: undefined }
  }
}

/** The page size a query asks for, checked. */
function pageSize(limit: unknown): number {
  if (limit === undefined) return DEFAULT_HISTORY_PAGE
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) throw new TypeError('history limit must be a positive integer')
  return Math.min(limit, MAX_HISTORY_PAGE)
}

/**
 * A page of kept versions, newest first: when each was written and
 * replaced, who made it (this host's writes by the journal's digest of their
 * text, else an outside edit), and the sections it changed against the
 * version kept before it. The journal is read from its end, at most its bound,
 * without blocking the event loop; only the page's versions (and the one before
 * it) are opened, each checked to be a regular file of the document's owner.
 * @throws {SettingsHistoryUnavailableError} while the history folder cannot be used.
 * @throws {SettingsUnsafeHistoryFileError} when the page holds a symlink or another owner's file, or the journal is one.
 */
export async function listVersions(history: DocumentHistory, parse: ParseVersion, query: SettingsHistoryQuery = {}): Promise<SettingsHistoryVersion[]> {
  const size = pageSize(query.limit)
  history.assertAvailable()
  // Oldest first. Between two prunes a few more than `keep` may stand (see the provider's `pruneEvery`): the newest `keep` are listed.
  const all = history.list().slice(-history.limits.keep)
  let end = all.length
  if (query.before !== undefined) {
    end = all.findIndex((entry) => basename(entry.path) === query.before)
    if (end < 0) throw noVersion(query.before)
  }
  const start = Math.max(0, end - size)
  const journal = await history.readJournal()
  const versions: SettingsHistoryVersion[] = []
  // Each version is compared with the one kept before it, so one more than the page is read.
  let older = start > 0 ? (await readData(history, all[start - 1]!, parse))?.data : {}
  for (let index = start; index < end; index++) {
    const entry = all[index]!
    const read = await readData(history, entry, parse)
    const writtenAt = read?.writtenAt ?? history.writtenAt(entry)
    const recorded = read ? madeBy(journal.authors.get(digest(read.text)), writtenAt) : undefined
    const by = recorded?.length ? (recorded as SettingsWriteOrigin[]) : journal.first && journalBegan(+journal.first, writtenAt) ? ['outside' as const] : ['unknown' as const]
    const sections = read?.data && older ? changedSections(older, read.data).map((key) => (key.scope === undefined ? { ns: key.ns } : { ns: key.ns, scope: key.scope })) : []
    versions.push({ id: basename(entry.path), writtenAt: writtenAt.toISOString(), replacedAt: entry.replacedAt.toISOString(), by, sections })
    older = read?.data
  }
  return versions.reverse()
}

/**
 * Whether the journal had begun when a version with the modification time `writtenAt` was written.
 * A time in whole seconds comes from a file system that keeps no finer one (exfat-fuse): the
 * journal's start is then compared at that step, or a version written just after it would seem older.
 */
function journalBegan(first: number, writtenAt: Date): boolean {
  const step = writtenAt.getMilliseconds() === 0 ? 1000 : 1
  return Math.floor(first / step) * step <= writtenAt.getTime()
}

/** A record is appended right after its rename, so it may be this much younger than the file it describes. */
const RECORD_SLACK_MS = 2_000

/**
 * Who made a version written at `writtenAt`: the newest record of its text
 * made by then. A later write of the same text (a restore) is not taken for
 * the version's own author.
 */
function madeBy(records: readonly { at: number; by: string[] }[] | undefined, writtenAt: Date): string[] | undefined {
  const until = writtenAt.getTime() + RECORD_SLACK_MS
  return records?.filter((record) => record.at <= until).at(-1)?.by
}

/**
 * The data of the kept version `id`, read from a regular file of the
 * document's owner, never through a symlink.
 * @throws {SettingsHistoryUnavailableError} while the history folder cannot be used.
 * @throws {SettingsUnsafeHistoryFileError} when that version is a symlink, not a regular file, or another owner's file.
 */
export async function readVersionDocument(history: DocumentHistory, parse: ParseVersion, id: string): Promise<SettingsDocument> {
  history.assertAvailable()
  const entry = typeof id === 'string' ? history.find(id) : undefined
  if (!entry) throw noVersion(id)
  const read = await readData(history, entry, parse)
  if (!read?.data) throw new SettingsStoreError('SETTINGS_NO_VERSION', `kept settings version ${JSON.stringify(String(id))} can no longer be read`, history.directory)
  return read.data
}

function noVersion(id: unknown): SettingsStoreError {
  return new SettingsStoreError('SETTINGS_NO_VERSION', `no kept settings version is named ${JSON.stringify(String(id).slice(0, 80))}`, 'history')
}
