/**
 * The real-files stage about owners: a host run as root over a user's home
 * (as `sudo pnpm start` does), then the user's own host over the same home,
 * which must still write. Optionally with symlinks the user planted in
 * `history/`: a journal that points at a root-only file, and a "kept version"
 * that points at another root-only file holding a secret.
 */
import { chmod, chown, lchown, lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import type { StageContext } from './real-files-context.ts'
import type { FilesHost } from './real-files-host.ts'
import { baseDocument, documentSecrets, limitLine, lostBytes, readRegular } from './real-files-judge.ts'

/** The unprivileged user the home belongs to: `nobody`. */
const USER = { uid: 65534, gid: 65534 }
/**
 * The name of a kept version the user planted, as the provider names them
 * (`<stem>.<UTC stamp>.<8 hex><ext>`), dated a minute ago so no age limit prunes it.
 */
const plantedVersion = () => `settings.${new Date(Date.now() - 60_000).toISOString().replace(/[-:.]/g, '')}.0badf00d.yaml`

/** Every entry under `dir` (symlinks not followed) that the user does not own. */
async function notTheUsers(dir: string, base = dir): Promise<string[]> {
  const found: string[] = []
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name)
    const stat = await lstat(path)
    if (stat.uid !== USER.uid) found.push(`${path.slice(base.length + 1)} (uid ${stat.uid})`)
    if (stat.isDirectory()) found.push(...(await notTheUsers(path, base)))
  }
  return found
}

/** What a user planted in `history/` to trick a root host, and the root-only files it points at. */
interface Planted {
  version: string
  journalTarget: string
  journalBytes: Buffer
  secret: string
}

async function plant(c: StageContext, dsh: string): Promise<Planted> {
  const rootOnly = join(c.dir, 'root-only')
  await mkdir(rootOnly, { mode: 0o700 })
  const journalTarget = join(rootOnly, 'journal-target')
  await writeFile(journalTarget, 'root keeps this file\n', { mode: 0o600 })
  const secret = c.tally.sentinels.make('root-only')
  const secretFile = join(rootOnly, 'secret.yaml')
  await writeFile(secretFile, `web-search:\n  engine: google\n  apiKey: ${secret}\n`, { mode: 0o600 })
  const history = join(dsh, 'history')
  await mkdir(history, { mode: 0o700 })
  await chown(history, USER.uid, USER.gid)
  const version = plantedVersion()
  for (const [name, target] of [
    ['settings.journal.jsonl', journalTarget],
    [version, secretFile],
  ] as const) {
    await symlink(target, join(history, name))
    await lchown(join(history, name), USER.uid, USER.gid)
  }
  return { version, journalTarget, journalBytes: await readFile(journalTarget), secret }
}

/** A root host reading and restoring the planted version must refuse both; the root-only secret must not travel. */
async function tryPlanted(c: StageContext, host: FilesHost, planted: Planted): Promise<void> {
  await c.call(host, 'history', [])
  for (const method of ['compare', 'restore']) {
    const result = await c.call(host, method, [planted.version])
    if (result.kind === 'value') c.wrong(`${method} of a kept version that is a planted symlink was answered`)
  }
}

/** Count the bytes of `before` a limit write lost, with a note. */
function countLost(c: StageContext, before: string, after: string, what: string): void {
  const lost = lostBytes(before, after, limitLine)
  c.counts.lostBytes += lost
  if (lost) c.note(`${what} lost ${lost} bytes of the user's document`)
}

/** A host as root over a user's home, then one as that user: files stay the user's, the user's host still writes. */
export async function rootThenUser(c: StageContext): Promise<void> {
  if (userInfo().uid !== 0) {
    c.tally.unstaged.add('root-run writes (this run is not root)')
    return
  }
  const planted = c.variation === 0 || c.variation % 2 === 1
  c.variant = planted ? 'with symlinks planted in history/' : 'nothing planted'
  // The user's home must be reachable by the user: the stage folder is made 0700 by mkdtemp.
  await chmod(c.dir, 0o755)
  const home = join(c.dir, 'home')
  const dsh = join(home, '.dsh')
  const file = join(dsh, 'settings.yaml')
  await mkdir(dsh, { recursive: true, mode: 0o700 })
  const before = baseDocument(documentSecrets(c.tally.sentinels))
  await writeFile(file, before, { mode: 0o600 })
  for (const path of [home, dsh, file]) await chown(path, USER.uid, USER.gid)
  const tricks = planted ? await plant(c, dsh) : undefined

  const asRoot = await c.host({ file, home: dsh })
  if (c.upright(asRoot)) {
    if (await c.setLimit(asRoot, 11)) countLost(c, before, readRegular(file) ?? '', 'a root write')
    if (tricks) await tryPlanted(c, asRoot, tricks)
  }
  await c.stop(asRoot)
  // What the user's write must keep: the document as the root host left it (a restore it let through is counted above).
  const left = readRegular(file) ?? ''
  const rootOwned = await notTheUsers(home)
  c.counts.changedModes += rootOwned.length
  if (rootOwned.length) c.note(`after a root host, the user's home holds files the user does not own: ${rootOwned.join(', ')}`)
  if (tricks && !(await readFile(tricks.journalTarget)).equals(tricks.journalBytes)) {
    c.counts.changedModes++
    c.note('a root host wrote into a root-only file through a journal symlink planted in history/')
  }

  const asUser = await c.host({ file, home: dsh, ...USER, env: { HOME: home, USER: 'nobody' } })
  if (!asUser.url && asUser.alive()) c.wrong(`the user's host has no page after a root host ran: ${asUser.remoteFailure}`)
  if (c.upright(asUser) && (await c.setLimit(asUser, 12))) countLost(c, left, readRegular(file) ?? '', "the user's write")
  await c.stop(asUser)
  const document = readRegular(file) ?? ''
  if (tricks && document.includes(tricks.secret)) {
    c.counts.leakedValues++
    c.note("a root-only file's secret was copied into the user's document through a planted version")
  }
}
