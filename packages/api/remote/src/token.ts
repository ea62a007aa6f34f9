import { randomBytes } from 'node:crypto'
import { chmod, chown, link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'

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

/** Who owns what this process creates: `undefined` for itself. */
export type Owner = { uid: number; gid: number } | undefined

/**
 * The owner to give what this process creates under `path`: the owner of its
 * nearest existing folder, when we run as root and that is someone else. A
 * host started with `sudo` over a user's home must leave files that user's own
 * host can read, not a root-only token that locks it out.
 */
export async function ownerFor(path: string): Promise<Owner> {
  if (process.getuid?.() !== 0) return undefined
  for (let folder = path; ; folder = dirname(folder)) {
    const found = await stat(folder).catch(() => undefined)
    if (found) return found.uid === 0 ? undefined : { uid: found.uid, gid: found.gid }
    if (dirname(folder) === folder) return undefined
  }
}

/** Create `home` (mode 0700) with any missing parents, given to `owner` when there is one. */
export async function makeHome(home: string, owner: Owner): Promise<void> {
  const first = await mkdir(home, { recursive: true, mode: 0o700 })
  if (!owner || first === undefined) return
  // Every folder mkdir created: the first one, then each one below it down to the home.
  let folder = first
  await chown(folder, owner.uid, owner.gid)
  for (const part of relative(first, home).split(sep).filter(Boolean)) {
    folder = join(folder, part)
    await chown(folder, owner.uid, owner.gid)
  }
}

/** A temp sibling with a random name, created exclusively so nothing planted there is written through. */
export async function writeTemp(file: string, text: string, owner: Owner): Promise<string> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temp, 'wx', 0o600)
  try {
    if (owner) await handle.chown(owner.uid, owner.gid)
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
async function createTokenFile(file: string, owner: Owner): Promise<string> {
  const token = generateToken()
  const temp = await writeTemp(file, `${token}\n`, owner)
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
 * Run as root, what it creates belongs to the owner of the folder it lands in.
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
  const owner = await ownerFor(home)
  await makeHome(home, owner)
  return { token: await createTokenFile(file, owner), source: 'generated', file }
}
