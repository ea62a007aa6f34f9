import { randomBytes } from 'node:crypto'
import { chmod, link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'

/** The token file's name under the home. */
export const TOKEN_FILE = 'remote-token'

/** Where the server's token came from. */
export type TokenSource = 'config' | 'file' | 'generated'

/** The token the server checks, and where it came from. */
export interface LoadedToken {
  token: string
  source: TokenSource
  /** The token file, when one was read or written. */
  file?: string
}

/** A fresh token: 32 random bytes, base64url (43 characters, no padding). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url')
}

async function readToken(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** A temp sibling with a random name, created exclusively so nothing planted there is written through. */
async function writeTemp(file: string, text: string): Promise<string> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temp, 'wx', 0o600)
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  return temp
}

/**
 * Create the token file only if it is absent, complete on first sight: the
 * token is written to a temp file that is then hard-linked into place, which
 * fails when another process got there first (its token wins).
 * @returns the token now in the file.
 */
async function createTokenFile(file: string): Promise<string> {
  const token = generateToken()
  const temp = await writeTemp(file, `${token}\n`)
  try {
    await link(temp, file)
    return token
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    const theirs = await readToken(file)
    if (theirs) return theirs
    // The file exists but is blank: ours replaces it.
    await rename(temp, file)
    return token
  } finally {
    await unlink(temp).catch(() => {})
  }
}

/**
 * Resolve the server's bearer token: `configured` when it is not blank, else
 * the one in `<home>/remote-token`, else a generated one written there (mode
 * 0600, the home created with mode 0700 when missing) so later starts reuse it.
 * A token file readable by others is narrowed to 0600.
 * @returns the token; `narrowed` is true when the file's permissions had to be tightened.
 */
export async function loadToken(configured: string | undefined, home: string): Promise<LoadedToken & { narrowed?: boolean }> {
  if (configured?.trim()) return { token: configured.trim(), source: 'config' }
  const file = join(home, TOKEN_FILE)
  const existing = await readToken(file)
  if (existing) {
    const mode = (await stat(file)).mode & 0o777
    if (mode & 0o077) {
      await chmod(file, 0o600)
      return { token: existing, source: 'file', file, narrowed: true }
    }
    return { token: existing, source: 'file', file }
  }
  await mkdir(home, { recursive: true, mode: 0o700 })
  return { token: await createTokenFile(file), source: 'generated', file }
}
