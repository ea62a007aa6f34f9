/**
 * The document store's own parts, for tools that must drive them directly
 * (the torture's lock interleavings, a recovery script): the cross-process
 * lock with its owner records, and the sweep that removes what a killed
 * writer left. The provider uses exactly these.
 */

/** Take the document's lock: one writer at a time across processes, with a dead holder's lock taken over. */
export { acquireLock, type HeldLock, type LockOptions, type LockStep } from './lock.ts'
/** Who holds a lock (pid, host, boot), whether that holder is gone, and reading a lock file's record. */
export { currentOwner, hostFacts, isOwnerGone, parseOwner, type HostFacts } from './owner.ts'
/**
 * Remove the temp and claim files writers that died left beside the document (putting back a document one had
 * set aside), and tell whether a writer has the document set aside right now.
 */
export { asideState, sweepLeftovers, type Swept } from './leftovers.ts'
/** The hidden names a writer gives its temp files and the document it sets aside, which sweeps and readers recognize. */
export { asideName, tempName } from './leftovers.ts'
/** Read a document's text as the provider does: never a blocking open, the size cap before a byte is read. */
export { readDocumentText, type DocumentReadOptions } from './version.ts'
/** What the store refuses, as plain errors (the provider's `settingsErrorOf` gives their public `Settings*` class). */
export { FileTooLargeError, HistoryUnavailableError, LockTimeoutError, NotAFileError, PathLoopError, StoreBusyError, UnsafeHistoryFileError, type NotAFileKind, type StoreError, type UnsafeHistoryFileReason } from './errors.ts'
/**
 * The document store itself: lock, settled reads, replace by exchange (a portable path where the kernel or the
 * file system has none), kept versions sealed before a write answers, late edits watched. The file provider adapts
 * the seam's transactions onto it.
 */
export { DocumentStore, pruneEvery, type DocumentStoreOptions, type ReplaceOutcome, type StoreStep } from './document-store.ts'
/** Swap a new version in only while the path holds the version read, and which way this process's last replace took. */
export { lastReplaceWay, placeNew, swapIn, type ReplaceWay, type SwapResult } from './replace.ts'
/** Move a file to a name only while no file stands there (renameat2 NOREPLACE, else link, else look-then-rename). */
export { placeIfFree } from './place.ts'
/** Whether this process reaches renameat2 and flock at all (`DSH_SETTINGS_PORTABLE_FS=1` says no). */
export { kernelCallsAvailable } from './kernel.ts'
/** Kept versions: the history folder, and keeping what a replace handed back. */
export { DocumentHistory, type HistoryLimits } from './history.ts'
export { keepReplaced, type KeptVersion } from './keep.ts'
/** Rewrite a kept version's content in place, keeping its mode, owner and times (moving secrets out of history). */
export { rewriteKept } from './history-rewrite.ts'
