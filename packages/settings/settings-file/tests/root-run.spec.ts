/**
 * A host run as root over a user's home (`sudo`): every file and folder it makes there belongs to
 * the home's owner, so the user's own host (a real child process with that uid) writes after it;
 * and what a user plants in `history/` (a symlink or a root-owned file under a kept version's
 * name, a journal that is a link) is never read or written through.
 *
 * Run as root, the home belongs to uid 65534. Run as another user, nothing can be given away or
 * planted with another owner: the same tests then check that everything is that user's own and
 * that the user's own files are taken as theirs.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, chown, link, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import Schema from 'schemastery'
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import { plugWithSettings } from 'dsh-testing'
import { SettingsUnsafeHistoryFileError } from '../src/provider/errors.ts'
import { DocumentHistory, historyStamp } from '../src/store/history.ts'
import { acquireLock } from '../src/store/lock.ts'
import { bootFile, eventually, type FileHarness } from './file-harness.ts'
import { bootProbed, type Probed } from './probed.ts'
import { AS_ROOT, ownersUnder, USER, userHome, type Owned } from './user-home.ts'

const Search = Schema.object({ limit: Schema.number().default(1), apiKey: Schema.string().role('secret') })

const home = userHome()
let running: (FileHarness | Probed)[] = []
afterEach(async () => {
  for (const harness of running.splice(0)) await harness.dispose()
})

/** Each file as `{ path, uid, gid }`, to compare with the user's ids in one assertion that names the file. */
const expectAllTheUsers = (owned: readonly Owned[]) => {
  expect(owned.length).toBeGreaterThan(0)
  for (const file of owned) expect(file).toEqual({ path: file.path, ...USER })
}

/** A document the user wrote in their home, and a host run as root over it that has written once (so history/ holds a version). */
async function bootOverUserDocument(): Promise<{ harness: FileHarness; file: string; search: SettingsScope<ReturnType<typeof Search>> }> {
  const file = join(home.dir, 'settings.yaml')
  await writeFile(file, 'search:\n  limit: 1\n', { mode: 0o600 })
  await chown(file, USER.uid, USER.gid)
  const harness = await bootFile({ path: file, watch: false })
  running.push(harness)
  const { value: search } = await plugWithSettings(harness.root, (ctx) => ctx.settings.register('search', Search))
  await search.update({ limit: 2 })
  // The journal line comes once the write is answered; asking for the history waits for it.
  await harness.settings.history()
  return { harness, file, search }
}

describe('a host run as root over a user\'s home', () => {
  it('gives every file and folder it makes to the home\'s owner: folder, document, versions (link and copy), journal, lock, temps, editor schema', async () => {
    const folder = join(home.dir, '.dsh')
    const file = join(folder, 'settings.yaml')
    const whileRenaming: Owned[] = []
    const probed = await bootProbed({ path: file, watch: false }, { rename: async () => void whileRenaming.push(...(await ownersUnder(folder))) })
    running.push(probed)
    const { value: search } = await plugWithSettings(probed.root, (ctx) => ctx.settings.register('search', Search))
    await search.update({ limit: 2 }) // makes .dsh/, the document, history/ and the journal
    await search.update({ limit: 3 }) // keeps the first version as a link
    // A second name of the document: the next version is kept as a copy (a link would share the other name).
    await link(file, join(home.dir, 'other-name.yaml'))
    await search.update({ limit: 4 })
    await eventually(() => expect(existsSync(join(folder, 'settings.schema.json'))).toBe(true))
    // The journal is noted a moment after the writes are answered; asking for the history does it at once.
    await probed.root.settings.history()
    const history = await readdir(join(folder, 'history'))
    expect(history.filter((name) => name.endsWith('.yaml'))).toHaveLength(2)
    expect(history).toContain('settings.journal.jsonl')
    const names = whileRenaming.map((owned) => basename(owned.path))
    expect(names).toContain('settings.yaml.lock')
    expect(names.some((name) => /^\.settings\.yaml\..*\.tmp$/.test(name))).toBe(true)
    expectAllTheUsers([...whileRenaming, ...(await ownersUnder(home.dir))])
  })

  it('makes a document asked for, and the folders on its way, for the owner of the folder it lands in', async () => {
    const file = join(home.dir, 'a', 'b', 'settings.yaml')
    const harness = await bootFile({ path: file, watch: false })
    running.push(harness)
    await harness.settings.prepareDocument()
    expect((await lstat(file)).mode & 0o777).toBe(0o600)
    const owned = await ownersUnder(home.dir)
    expect(owned.map((entry) => entry.path)).toEqual(expect.arrayContaining([join(home.dir, 'a'), join(home.dir, 'a', 'b'), file]))
    expectAllTheUsers(owned)
  })

  it('leaves the home so that the user\'s own host, as that user, writes after it and keeps history', async () => {
    const { harness, file, search } = await bootOverUserDocument()
    await search.update({ limit: 3 })
    await harness.dispose()
    running = running.filter((other) => other !== harness)
    const { code, result, stderr } = await home.run('history-probe.ts', [file, 'counter', '3'])
    expect(code, stderr).toBe(0)
    expect(result).toMatchObject({ uid: USER.uid, written: 3, failures: [], warnings: [], keepsHistory: true, history: 5 })
    expect(await readFile(file, 'utf8')).toContain('u2: 2')
    expectAllTheUsers(await ownersUnder(home.dir))
  })
})

describe('what a user plants in history/', () => {
  /** A file only root may read, outside the home (under a non-root run: a file of this user's, mode 0600). */
  let secret: string
  let secretDir: string
  beforeEach(async () => {
    secretDir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-root-only-')))
    secret = join(secretDir, 'secret.yaml')
    await writeFile(secret, 'search:\n  apiKey: root-only-secret\n', { mode: 0o600 })
  })
  afterEach(() => rm(secretDir, { recursive: true, force: true }))

  /** A name the history lists as a kept version. */
  const plantedName = () => join(home.dir, 'history', `settings.${historyStamp(new Date())}.deadbeef.yaml`)

  it('refuses a kept version that is a symlink to a root-only file: listing, reading for compare or restore, naming it, never its content', async () => {
    const { harness, file } = await bootOverUserDocument()
    const planted = plantedName()
    await symlink(secret, planted)
    const refused = await harness.settings.historyDocument(basename(planted)).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(SettingsUnsafeHistoryFileError)
    expect(refused).toMatchObject({ name: 'SettingsUnsafeHistoryFileError', code: 'SETTINGS_HISTORY_UNSAFE', file: planted, reason: 'symlink', refusal: 'rejected' })
    expect((refused as Error).message).toContain(planted)
    expect(JSON.stringify({ ...(refused as object), message: (refused as Error).message })).not.toContain('root-only-secret')
    await expect(harness.settings.history()).rejects.toMatchObject({ code: 'SETTINGS_HISTORY_UNSAFE', file: planted })
    expect(await readFile(file, 'utf8')).not.toContain('root-only-secret')
  })

  it(AS_ROOT ? 'refuses a kept version that is a root-owned file linked in, by its owner' : 'takes a kept version of the user\'s own as theirs (another owner\'s file cannot be planted without root)', async () => {
    const { harness } = await bootOverUserDocument()
    const planted = plantedName()
    await link(secret, planted)
    if (AS_ROOT) {
      await expect(harness.settings.historyDocument(basename(planted))).rejects.toMatchObject({ code: 'SETTINGS_HISTORY_UNSAFE', file: planted, reason: 'foreign owner' })
      await expect(harness.settings.history()).rejects.toMatchObject({ code: 'SETTINGS_HISTORY_UNSAFE', file: planted, reason: 'foreign owner' })
    } else {
      expect(await harness.settings.historyDocument(basename(planted))).toEqual({ search: { apiKey: 'root-only-secret' } })
    }
  })

  it('refuses a FIFO under a kept version\'s name at once, never waiting on it', async () => {
    const { harness } = await bootOverUserDocument()
    const planted = plantedName()
    execFileSync('mkfifo', [planted])
    await expect(harness.settings.historyDocument(basename(planted))).rejects.toMatchObject({ code: 'SETTINGS_HISTORY_UNSAFE', file: planted, reason: 'not a regular file' })
  })

  it('never appends through a journal that is a symlink: the write lands, the target keeps its bytes, and the refusal names the journal', async () => {
    const { harness, file, search } = await bootOverUserDocument()
    const journal = join(home.dir, 'history', 'settings.journal.jsonl')
    await rm(journal)
    await symlink(secret, journal)
    const before = await readFile(secret, 'utf8')
    await search.update({ limit: 9 })
    expect(await readFile(file, 'utf8')).toContain('limit: 9')
    expect(await readFile(secret, 'utf8')).toBe(before)
    expect((await lstat(journal)).isSymbolicLink()).toBe(true)
    // Asking for the history waits for the journal line the write left to note (refused here).
    await expect(harness.settings.history()).rejects.toMatchObject({ code: 'SETTINGS_HISTORY_UNSAFE', file: journal, reason: 'symlink' })
    expect(harness.logs.some((line) => line.includes('recording who wrote') && line.includes(journal) && line.includes('symlink'))).toBe(true)
    expect(await readFile(secret, 'utf8')).toBe(before)
  })

  it(AS_ROOT ? 'never appends to a journal that is a root-owned file linked in' : 'appends to a journal of the user\'s own (another owner\'s cannot be planted without root)', async () => {
    const { harness, search } = await bootOverUserDocument()
    const journal = join(home.dir, 'history', 'settings.journal.jsonl')
    await rm(journal)
    await link(secret, journal)
    const before = await readFile(secret, 'utf8')
    await search.update({ limit: 9 })
    // The journal line is noted once the write is answered; asking for the history waits for it.
    await harness.settings.history().catch(() => {})
    if (AS_ROOT) {
      expect(await readFile(secret, 'utf8')).toBe(before)
      expect(harness.logs.some((line) => line.includes(journal) && line.includes('belongs to uid 0'))).toBe(true)
    } else {
      expect((await readFile(secret, 'utf8')).startsWith(before)).toBe(true)
      expect(await readFile(secret, 'utf8')).toContain('"by":["plugin"]')
    }
  })
})

describe('history\'s own file operations', () => {
  it('copy a version only from a regular file, never through a symlink, and warn instead of keeping one', async () => {
    const document = join(home.dir, 'settings.yaml')
    const warnings: string[] = []
    const history = new DocumentHistory(document, { keep: 5, maxAgeDays: 30 }, { warn: (message) => warnings.push(message) })
    const outside = join(home.dir, 'outside.yaml')
    await writeFile(outside, 'search:\n  apiKey: not-for-history\n', { mode: 0o600 })
    const link = join(home.dir, '.witness')
    await symlink(outside, link)
    expect(await history.keep(link, new Date(), { copy: true })).toBeUndefined()
    expect((await readdir(history.directory)).filter((name) => name.endsWith('.yaml'))).toEqual([])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(history.directory)
  })

  it('seal a kept version through the open file, never changing the mode of what a symlink under its name points to', async () => {
    const history = new DocumentHistory(join(home.dir, 'settings.yaml'), { keep: 5, maxAgeDays: 30 })
    await mkdir(history.directory, { recursive: true })
    const target = join(home.dir, 'shared.yaml')
    await writeFile(target, 'x: 1\n', { mode: 0o644 })
    await chmod(target, 0o644)
    const planted = join(history.directory, `settings.${historyStamp(new Date())}.00000002.yaml`)
    await symlink(target, planted)
    history.seal(planted)
    expect((await lstat(target)).mode & 0o777).toBe(0o644)
  })

  it('prune by name, past a folder planted under a version\'s name, never failing the write that prunes', async () => {
    const document = join(home.dir, 'settings.yaml')
    await writeFile(document, 'x: 1\n')
    const history = new DocumentHistory(document, { keep: 1, maxAgeDays: 30 })
    await mkdir(join(history.directory, `settings.${historyStamp(new Date(Date.UTC(2020, 0, 1)))}.00000003.yaml`), { recursive: true })
    await history.keep(document, new Date(Date.UTC(2021, 0, 1)))
    await history.keep(document, new Date(Date.UTC(2022, 0, 1)))
    expect(history.prune(new Date(Date.UTC(2022, 0, 2)))).toBe(1)
    expect(history.list().map((entry) => entry.replacedAt.getUTCFullYear())).toEqual([2020, 2022])
  })
})

describe('the lock of a document in a user\'s home', () => {
  it.each(['flock', 'portable'] as const)('gives the %s lock, a takeover\'s claim and a waiter\'s next-turn reservation to the document\'s owner', async (kind) => {
    // The portable lock (forced) takes a stale lock over through a claim; the flock lock locks the stale file itself.
    const portableBefore = process.env.DSH_SETTINGS_PORTABLE_FS
    if (kind === 'portable') process.env.DSH_SETTINGS_PORTABLE_FS = '1'
    else delete process.env.DSH_SETTINGS_PORTABLE_FS
    onTestFinished(() => {
      if (portableBefore === undefined) delete process.env.DSH_SETTINGS_PORTABLE_FS
      else process.env.DSH_SETTINGS_PORTABLE_FS = portableBefore
    })
    const lockPath = join(home.dir, 'settings.yaml.lock')
    const give = AS_ROOT ? USER : undefined
    const file = join(home.dir, 'settings.yaml')
    // A stale lock (its owner judged gone) is taken over through a claim.
    await writeFile(lockPath, JSON.stringify({ pid: 1, hostname: 'elsewhere', nonce: 'ab12' }))
    const seen: Owned[] = []
    const first = await acquireLock(lockPath, {
      timeoutMs: 2000,
      file,
      give,
      isGone: () => true,
      step: async (step) => {
        // The stale lock itself is the test's until the takeover's rename replaces it.
        if ((step === 'verify' && kind === 'portable') || step === 'replace' || step === 'release') seen.push(...(await ownersUnder(home.dir)).filter((owned) => owned.path !== lockPath))
      },
    })
    if (kind === 'portable') expect(seen.map((owned) => basename(owned.path))).toContain('settings.yaml.lock.claim-ab12')
    expect(first.owner.lock).toBe(kind)
    seen.push(...(await ownersUnder(home.dir)))
    // A second writer waits on the live lock and reserves the next turn.
    const second = acquireLock(lockPath, { timeoutMs: 5000, file, give })
    await eventually(async () => expect(existsSync(`${lockPath}.next`)).toBe(true))
    seen.push(...(await ownersUnder(home.dir)))
    await first.release()
    const held = await second
    seen.push(...(await ownersUnder(home.dir)))
    await held.release()
    expect(seen.map((owned) => basename(owned.path))).toEqual(expect.arrayContaining(['settings.yaml.lock', 'settings.yaml.lock.next']))
    expectAllTheUsers(seen)
  })
})
