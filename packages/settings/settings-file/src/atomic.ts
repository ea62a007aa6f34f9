import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * Replace `file` with `text` atomically and durably: exclusively create a
 * random temporary sibling with mode 0600 (`wx` refuses to follow a planted
 * symlink), write and fsync it, rename it over the target, then fsync the
 * directory so the rename itself survives a crash. The temporary file is
 * removed on any failure. Missing parent directories are created with mode 0700.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const directory = dirname(file)
  await mkdir(directory, { recursive: true, mode: 0o700 })
  const temp = join(directory, `.${basename(file)}.${randomBytes(8).toString('hex')}.tmp`)
  const handle = await open(temp, 'wx', 0o600)
  try {
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  await syncDirectory(directory)
}

/** fsync a directory; platforms that cannot open one for syncing (Windows) skip it. */
async function syncDirectory(directory: string): Promise<void> {
  let handle
  try {
    handle = await open(directory, 'r')
    await handle.sync()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error
  } finally {
    await handle?.close()
  }
}
