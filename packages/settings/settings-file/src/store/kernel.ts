/**
 * The two kernel calls Node does not offer, reached through koffi (a maintained FFI with prebuilt
 * binaries in its npm package, so nothing is compiled on install): `renameat2` with
 * `RENAME_EXCHANGE` / `RENAME_NOREPLACE`, and `flock`. Linux only; elsewhere, or where the library
 * cannot be loaded, every call answers `'unsupported'` and the caller takes its portable path.
 */
/**
 * koffi, or `null` where it cannot be loaded (no prebuilt binary for this platform): loaded once,
 * with the store, and never by what only reads (the `fast-read` face).
 */
const koffi = process.platform === 'linux' ? await import('koffi').then((module) => module.default, () => null) : null

/** `renameat2`'s and `flock`'s constants (linux/fs.h, sys/file.h) and the errno values we tell apart. */
const AT_FDCWD = -100
const RENAME_NOREPLACE = 1
const RENAME_EXCHANGE = 2
const LOCK_EX = 2
const LOCK_NB = 4
const LOCK_UN = 8
const EEXIST = 17
const EWOULDBLOCK = 11
const EINTR = 4
/** What a file system or kernel answers when it has no such operation. */
const UNSUPPORTED = new Set([22 /* EINVAL */, 38 /* ENOSYS */, 95 /* EOPNOTSUPP */, 37 /* ENOLCK */])

/** The errno names a failed call is reported with (what Node's own fs errors carry as `code`). */
const ERRNO_NAMES: Record<number, string> = { 1: 'EPERM', 2: 'ENOENT', 5: 'EIO', 9: 'EBADF', 13: 'EACCES', 16: 'EBUSY', 18: 'EXDEV', 20: 'ENOTDIR', 21: 'EISDIR', 28: 'ENOSPC', 30: 'EROFS', 36: 'ENAMETOOLONG', 39: 'ENOTEMPTY', 40: 'ELOOP' }

interface Libc {
  renameat2(olddirfd: number, oldpath: string, newdirfd: number, newpath: string, flags: number): number
  flock(fd: number, operation: number): number
  errno(): number
}

let libc: Libc | null | undefined

/** The bound calls, loaded at the first use; `null` where they cannot be had (not Linux, no koffi, an old libc). */
function load(): Libc | null {
  // The portable paths on demand (read at each call): for tests, and for a file system that misreports what it supports.
  if (process.env.DSH_SETTINGS_PORTABLE_FS === '1') return null
  if (libc !== undefined) return libc
  libc = null
  if (!koffi) return libc
  try {
    const lib = koffi.load('libc.so.6')
    const renameat2 = lib.func('int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)')
    const flock = lib.func('int flock(int fd, int operation)')
    libc = { renameat2, flock, errno: () => koffi.errno() }
  } catch {
    libc = null
  }
  return libc
}

/** An errno as an error shaped like Node's fs errors (`code`, `errno`, `syscall`, `path`). */
function errnoError(errno: number, syscall: string, path?: string): NodeJS.ErrnoException {
  const code = ERRNO_NAMES[errno] ?? `E${errno}`
  const error: NodeJS.ErrnoException = new Error(`${code}: ${syscall} failed${path === undefined ? '' : `, '${path}'`}`)
  error.code = code
  error.errno = -errno
  error.syscall = syscall
  if (path !== undefined) error.path = path
  return error
}

/** How {@link exchangePaths} went. */
export type ExchangeResult = 'exchanged' | 'unsupported'

/**
 * Swap the files at `a` and `b` in one step (`renameat2(RENAME_EXCHANGE)`): each name holds the
 * other's file afterwards, and no reader of either name ever finds it missing.
 * @returns `'unsupported'` where the kernel or the file system has no exchange (then nothing changed).
 * @throws the call's errno as a Node-style error otherwise (ENOENT when either name is missing).
 */
export function exchangePaths(a: string, b: string): ExchangeResult {
  const calls = load()
  if (!calls) return 'unsupported'
  for (;;) {
    if (calls.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) === 0) return 'exchanged'
    const errno = calls.errno()
    if (errno === EINTR) continue
    if (UNSUPPORTED.has(errno)) return 'unsupported'
    throw errnoError(errno, 'renameat2', a)
  }
}

/** How {@link renameNoReplace} went. */
export type NoReplaceResult = 'renamed' | 'exists' | 'unsupported'

/**
 * Rename `from` to `to` unless something stands at `to` (`renameat2(RENAME_NOREPLACE)`), in one step.
 * @returns `'exists'` when `to` is taken (nothing changed), `'unsupported'` where the call is not available.
 */
export function renameNoReplace(from: string, to: string): NoReplaceResult {
  const calls = load()
  if (!calls) return 'unsupported'
  for (;;) {
    if (calls.renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) === 0) return 'renamed'
    const errno = calls.errno()
    if (errno === EINTR) continue
    if (errno === EEXIST) return 'exists'
    if (UNSUPPORTED.has(errno)) return 'unsupported'
    throw errnoError(errno, 'renameat2', from)
  }
}

/** How {@link lockFile} went. */
export type FlockResult = 'locked' | 'busy' | 'unsupported'

/**
 * Take an exclusive `flock` on the open file `fd` without waiting. The kernel drops it when the
 * last descriptor of that open file closes, which a killed process's exit does.
 * @returns `'busy'` when another open file of the same file holds it, `'unsupported'` where the file system has no flock.
 */
export function lockFile(fd: number): FlockResult {
  const calls = load()
  if (!calls) return 'unsupported'
  for (;;) {
    if (calls.flock(fd, LOCK_EX | LOCK_NB) === 0) return 'locked'
    const errno = calls.errno()
    if (errno === EINTR) continue
    if (errno === EWOULDBLOCK) return 'busy'
    if (UNSUPPORTED.has(errno)) return 'unsupported'
    throw errnoError(errno, 'flock')
  }
}

/** Release a lock {@link lockFile} took (closing the descriptor releases it too). */
export function unlockFile(fd: number): void {
  load()?.flock(fd, LOCK_UN)
}

/** Whether this process can reach the kernel calls at all (not whether a given file system has them). */
export function kernelCallsAvailable(): boolean {
  return load() !== null
}
