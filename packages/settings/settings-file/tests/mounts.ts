/**
 * File systems of their own for a test: an exFAT image mounted through
 * exfat-fuse (no hard links, no RENAME_EXCHANGE, no modes) and a tmpfs. Each
 * mount lives in a fresh temp folder and is unmounted and removed by its
 * `remove()`, whatever the test did.
 */
import { execFileSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A mounted file system: `dir` is its root, `remove()` unmounts it and deletes every trace. */
export interface Mounted {
  dir: string
  /** What was mounted, for test names and messages (`exfat-fuse`, `tmpfs`, `/dev/shm`). */
  kind: string
  remove(): void
}

/** The Debian packages the exFAT test needs (.ci/run installs them). */
export const EXFAT_PACKAGES = 'exfat-fuse exfatprogs fuse3'

const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/** The first of `names` found on PATH (or in /usr/sbin, /sbin, which a non-login PATH may lack). */
function which(...names: string[]): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin']
  for (const name of names) {
    for (const folder of folders) if (folder && existsSync(join(folder, name))) return join(folder, name)
  }
  return undefined
}

/**
 * Why FUSE cannot be used here, or `undefined` when it can: no /dev/fuse (or
 * not openable), or not root (an exFAT image is mounted from a loop device).
 * These are the only reasons the exFAT test skips.
 */
export function fuseUnavailable(): string | undefined {
  if (!existsSync('/dev/fuse')) return 'this machine has no /dev/fuse (a container started without it)'
  try {
    accessSync('/dev/fuse', constants.R_OK | constants.W_OK)
  } catch {
    return '/dev/fuse is not readable and writable by this user'
  }
  if (process.getuid?.() !== 0) return 'mounting an exFAT image through a loop device needs root'
  if (!existsSync('/dev/loop-control')) return 'this machine has no /dev/loop-control for the exFAT image'
  return undefined
}

/** The exFAT tools, or an error that names the packages to install (a missing tool is a failure, not a skip). */
function exfatTools(): { mkfs: string; mount: string } {
  const mkfs = which('mkfs.exfat')
  const mount = which('mount.exfat-fuse', 'exfat-fuse')
  if (!mkfs || !mount) throw new Error(`${mkfs ? 'mount.exfat-fuse' : 'mkfs.exfat'} is missing: apt-get install -y ${EXFAT_PACKAGES}`)
  return { mkfs, mount }
}

/** Unmount `dir` (lazily when it is still busy), ignoring a mount that is already gone. */
function unmount(dir: string): void {
  try {
    run('umount', [dir])
  } catch {
    try {
      run('umount', ['-l', dir])
    } catch {}
  }
}

/** A fresh 64 MB exFAT file system mounted through exfat-fuse; see {@link fuseUnavailable} for what it needs. */
export function mountExfat(): Mounted {
  const tools = exfatTools()
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-exfat-')))
  const image = join(base, 'image')
  const dir = join(base, 'mnt')
  let loop: string | undefined
  let mounted = false
  const remove = () => {
    if (mounted) unmount(dir)
    if (loop) {
      try {
        run('losetup', ['-d', loop])
      } catch {}
    }
    rmSync(base, { recursive: true, force: true })
  }
  try {
    run('truncate', ['-s', '64M', image])
    run(tools.mkfs, [image])
    execFileSync('mkdir', [dir])
    // exfat-fuse refuses a plain file ("Block device required"): give it a loop device.
    loop = run('losetup', ['-f', '--show', image])
    run(tools.mount, [loop, dir])
    mounted = true
    return { dir, kind: 'exfat-fuse', remove }
  } catch (error) {
    remove()
    throw error
  }
}

/** A fresh tmpfs: mounted here when root, else a folder in /dev/shm (a tmpfs on Linux). */
export function mountTmpfs(): Mounted {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-tmpfs-')))
  if (process.getuid?.() === 0) {
    try {
      run('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', base])
      return {
        dir: base,
        kind: 'tmpfs',
        remove: () => {
          unmount(base)
          rmSync(base, { recursive: true, force: true })
        },
      }
    } catch {
      // A root without CAP_SYS_ADMIN (some containers): /dev/shm is a tmpfs too.
    }
  }
  rmSync(base, { recursive: true, force: true })
  const dir = realpathSync(mkdtempSync('/dev/shm/dsh-tmpfs-'))
  return { dir, kind: '/dev/shm', remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The file system type of `dir` as the kernel names it (`fuseblk`, `tmpfs`, `ext4`…). */
export function fileSystemType(dir: string): string {
  return run('stat', ['-f', '-c', '%T', dir])
}
