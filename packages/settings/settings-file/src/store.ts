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
