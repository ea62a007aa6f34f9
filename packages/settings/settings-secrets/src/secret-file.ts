/**
 * Reading a secret from a file, as Docker (`/run/secrets/…`), systemd
 * (`$CREDENTIALS_DIRECTORY`) and Kubernetes write them: a regular file (a
 * symlink to one is followed: Kubernetes mounts are symlinks), at most
 * {@link SECRET_FILE_LIMIT} bytes, UTF-8, one trailing newline dropped.
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { SecretReferenceError } from './errors.ts'

/** The largest secret file read, in bytes (64 KiB): a secret is a token or a key, not a data file. */
export const SECRET_FILE_LIMIT = 64 * 1024

/** `text` without one trailing `\n` or `\r\n` (only one: a value may itself end in a newline). */
export function dropTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2)
  return text.endsWith('\n') ? text.slice(0, -1) : text
}

/**
 * The secret held in the file at `path`: its UTF-8 text with one trailing
 * newline dropped. The checks are made on the open file, and the open does
 * not wait on a FIFO or a device.
 * @throws {SecretReferenceError} `not-a-file` (a folder, FIFO, socket or
 *   device), `too-large` (over 64 KiB), `unreadable-file` (missing, no
 *   permission, not UTF-8).
 */
export async function readSecretFile(path: string): Promise<string> {
  const reference = { kind: 'file' as const, name: path }
  let handle
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    throw new SecretReferenceError(reference, 'unreadable-file', `the file cannot be opened (${errorCode(error)})`)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new SecretReferenceError(reference, 'not-a-file', 'it is not a regular file')
    if (info.size > SECRET_FILE_LIMIT) throw new SecretReferenceError(reference, 'too-large', `the file is over ${SECRET_FILE_LIMIT} bytes`)
    // Read one byte past the limit: a file that grew since the stat is still refused, not cut short.
    const buffer = Buffer.alloc(SECRET_FILE_LIMIT + 1)
    let length = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null)
      if (!bytesRead) break
      length += bytesRead
      if (length > SECRET_FILE_LIMIT) throw new SecretReferenceError(reference, 'too-large', `the file is over ${SECRET_FILE_LIMIT} bytes`)
    }
    return dropTrailingNewline(decodeUtf8(buffer.subarray(0, length), reference))
  } catch (error) {
    if (error instanceof SecretReferenceError) throw error
    throw new SecretReferenceError(reference, 'unreadable-file', `the file cannot be read (${errorCode(error)})`)
  } finally {
    await handle.close()
  }
}

function decodeUtf8(bytes: Uint8Array, reference: { kind: 'file'; name: string }): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new SecretReferenceError(reference, 'unreadable-file', 'the file is not UTF-8 text')
  }
}

/** A system error's code (`EACCES`), never its message. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : 'error'
}
