/**
 * Real files at the document path that are not a plain file of its own: a symlink into a dotfiles
 * folder (whose file may not exist yet, or is retargeted while the host runs), a document on
 * another file system than its history, and a document with a second hard link. Everything here
 * is staged with real symlinks, hard links and a second file system (/dev/shm, a tmpfs).
 */
import { closeSync, lstatSync, openSync, readdirSync, statSync, writeSync } from 'node:fs'
import { chmod, link, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { parse } from 'yaml'
import { afterEach, describe, expect, it } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import FileSettingsProvider, { SettingsLockTimeoutError, type FileStep } from 'dsh-settings-file'
import { deferred } from 'dsh-testing'
import { bootFile, eventually, fileFixture, type FileHarness } from './file-harness.ts'

const schema = () => Schema.object({ engine: Schema.string().default('bing'), limit: Schema.number().default(5), apiKey: Schema.string().role('secret') })
type Search = SettingsScope<ReturnType<ReturnType<typeof schema>>>

const fx = fileFixture()

async function register(h: FileHarness, ns = 'web-search'): Promise<Search> {
  let scope!: Search
  await h.root.inject(['settings'], (ctx) => {
    scope = ctx.settings.register(ns, schema())
  })
  return scope
}

const mode = (path: string) => statSync(path).mode & 0o777
/** Names in a folder that a write leaves only while it runs: its temp files and its lock. */
const writerFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))
/** The kept versions of `settings.yaml` in `dir/history`, if any. */
const keptIn = (dir: string) => {
  try {
    return readdirSync(join(dir, 'history')).filter((name) => /^settings\.\d{8}T\d{9}Z\.[0-9a-f]{8}\.yaml$/.test(name))
  } catch {
    return []
  }
}

/** A provider that records, right before its rename, which temp and lock files stand in each watched folder. */
function recordingProvider(folders: string[], seen: Map<string, string[]>[]): typeof FileSettingsProvider {
  return class extends FileSettingsProvider {
    protected override async step(step: FileStep): Promise<void> {
      if (step === 'rename') seen.push(new Map(folders.map((folder) => [folder, writerFiles(folder)])))
    }
  }
}

/** Two dotfiles folders `first` and `second`, each with a settings.yaml, and `document`: a symlink to the first one. */
async function twoFolders(firstText: string, secondText: string): Promise<{ first: string; second: string; document: string }> {
  const first = join(fx.dir, 'first')
  const second = join(fx.dir, 'second')
  await mkdir(first)
  await mkdir(second)
  await writeFile(join(first, 'settings.yaml'), firstText)
  await writeFile(join(second, 'settings.yaml'), secondText)
  const document = join(fx.dir, 'settings.yaml')
  await symlink(join(first, 'settings.yaml'), document)
  return { first, second, document }
}

describe('a symlinked document whose file does not exist yet', () => {
  it('creates the file through the link (mode 0600, in a new folder) and keeps the link a link', async () => {
    const dots = join(fx.dir, 'dotfiles', 'dsh')
    const document = join(fx.dir, 'settings.yaml')
    await symlink(join(dots, 'settings.yaml'), document)
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false })
    const search = await register(fx.harness)
    expect(search.get()).toEqual({ engine: 'bing', limit: 5 })

    await search.update({ limit: 7 })
    expect(lstatSync(document).isSymbolicLink()).toBe(true)
    expect(await readFile(join(dots, 'settings.yaml'), 'utf8')).toBe('web-search:\n  limit: 7\n')
    expect(mode(join(dots, 'settings.yaml'))).toBe(0o600)
    expect(search.get().limit).toBe(7)

    // A second write replaces a version, kept beside the link, never in the dotfiles folder.
    await search.update({ limit: 8 })
    expect(lstatSync(document).isSymbolicLink()).toBe(true)
    expect(await readFile(document, 'utf8')).toBe('web-search:\n  limit: 8\n')
    expect(keptIn(fx.dir)).toHaveLength(1)
    expect(readdirSync(dots).sort()).toEqual(['settings.yaml'])
    expect(writerFiles(fx.dir)).toEqual([])
  })

  it('creates the file through the link when the page asks for the document to open it', async () => {
    const dots = join(fx.dir, 'dotfiles')
    const document = join(fx.dir, 'settings.yaml')
    await symlink(join(dots, 'settings.yaml'), document)
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false })
    expect(await fx.harness.settings.prepareDocument()).toBe(document)
    expect(lstatSync(document).isSymbolicLink()).toBe(true)
    expect(statSync(join(dots, 'settings.yaml')).isFile()).toBe(true)
    expect(mode(join(dots, 'settings.yaml'))).toBe(0o600)
  })

  it('refuses a symlink loop at once, naming the document', async () => {
    const document = join(fx.dir, 'settings.yaml')
    await symlink(join(fx.dir, 'other.yaml'), document)
    await symlink(document, join(fx.dir, 'other.yaml'))
    await expect(bootFile({ path: document, watch: false, editorSchema: false })).rejects.toThrow(/leads back to itself/)
  })
})

describe('a symlink to an existing file', () => {
  it('writes through the link: the target keeps its other bytes, temp file and lock stand beside the target, kept versions beside the link', async () => {
    const dots = join(fx.dir, 'dotfiles')
    await mkdir(dots)
    const target = join(dots, 'settings.yaml')
    const document = join(fx.dir, 'settings.yaml')
    await writeFile(target, '# my dotfiles\nweb-search:\n  engine: google   # chosen by hand\n  limit: 1\n  apiKey: sk-secret-kept\n', { mode: 0o640 })
    await symlink(target, document)
    const seen: Map<string, string[]>[] = []
    // Secrets inline (as before issue 37): this case is about the bytes a write keeps.
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false, secrets: 'inline' }, recordingProvider([fx.dir, dots], seen))
    const search = await register(fx.harness)

    await search.update({ limit: 2 })
    expect(lstatSync(document).isSymbolicLink()).toBe(true)
    expect(await readFile(target, 'utf8')).toBe('# my dotfiles\nweb-search:\n  engine: google   # chosen by hand\n  limit: 2\n  apiKey: sk-secret-kept\n')
    expect(mode(target)).toBe(0o640)
    // While the write ran: its temp file and the lock beside the file it replaced, nothing beside the link.
    expect(seen).toHaveLength(1)
    expect(seen[0]!.get(fx.dir)).toEqual([])
    expect(seen[0]!.get(dots)!.sort()).toEqual([expect.stringMatching(/^\.settings\.yaml\..*\.tmp$/), 'settings.yaml.lock'])
    // The replaced version (with its secret) is kept in the deployment's history, not in the dotfiles folder.
    expect(keptIn(fx.dir)).toHaveLength(1)
    expect(await readFile(join(fx.dir, 'history', keptIn(fx.dir)[0]!), 'utf8')).toContain('limit: 1')
    expect(readdirSync(dots)).toEqual(['settings.yaml'])
    expect(writerFiles(fx.dir)).toEqual([])
  })

  it('follows a retargeted link at the next write: the new file is written, the old one left alone, history stays beside the link', async () => {
    const { first, second, document } = await twoFolders('web-search:\n  limit: 1\n', '# second\nweb-search:\n  engine: google\n')
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false })
    const search = await register(fx.harness)
    await search.update({ limit: 2 })
    expect(await readFile(join(first, 'settings.yaml'), 'utf8')).toBe('web-search:\n  limit: 2\n')

    // `ln -sfn`: a new link renamed over the old one.
    await symlink(join(second, 'settings.yaml'), join(fx.dir, 'next-link'))
    await rename(join(fx.dir, 'next-link'), document)
    await search.update({ limit: 3 })
    expect(await readFile(join(second, 'settings.yaml'), 'utf8')).toBe('# second\nweb-search:\n  engine: google\n  limit: 3\n')
    expect(await readFile(join(first, 'settings.yaml'), 'utf8')).toBe('web-search:\n  limit: 2\n')
    expect(lstatSync(document).isSymbolicLink()).toBe(true)
    // Both replaced versions are in the deployment's history; neither dotfiles folder got one.
    const kept = keptIn(fx.dir)
    expect(kept).toHaveLength(2)
    const texts = await Promise.all(kept.map((name) => readFile(join(fx.dir, 'history', name), 'utf8')))
    expect(texts.sort()).toEqual(['# second\nweb-search:\n  engine: google\n', 'web-search:\n  limit: 1\n'])
    expect(readdirSync(first)).toEqual(['settings.yaml'])
    expect(readdirSync(second)).toEqual(['settings.yaml'])
  })

  it('starts a write over at the new file when the link is retargeted between its lock and its replace', async () => {
    const { first, second, document } = await twoFolders('web-search:\n  limit: 1\n', '# second\nweb-search:\n  engine: google\n')
    let retargets = 0
    class Retargeting extends FileSettingsProvider {
      protected override async step(step: FileStep): Promise<void> {
        // Once, right before the replace: the write has read and written its temp file beside the first target.
        if (step !== 'rename' || retargets++ > 0) return
        await symlink(join(second, 'settings.yaml'), join(fx.dir, 'next-link'))
        await rename(join(fx.dir, 'next-link'), document)
      }
    }
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false }, Retargeting)
    const search = await register(fx.harness)
    await search.update({ limit: 2 })
    expect(retargets).toBeGreaterThan(1)
    expect(await readFile(join(second, 'settings.yaml'), 'utf8')).toBe('# second\nweb-search:\n  engine: google\n  limit: 2\n')
    expect(await readFile(join(first, 'settings.yaml'), 'utf8')).toBe('web-search:\n  limit: 1\n')
    expect(search.get()).toMatchObject({ engine: 'google', limit: 2 })
    expect(writerFiles(first)).toEqual([])
    expect(writerFiles(second)).toEqual([])
  })

  it('follows a retargeted link while running: the watcher publishes the new file, then its edits, and no longer the old file', async () => {
    const { first, second, document } = await twoFolders('web-search:\n  limit: 1\n', 'web-search:\n  limit: 20\n')
    // No periodic re-check: only the watcher's events can tell.
    fx.harness = await bootFile({ path: document, debounceMs: 20, recheckMs: 0, editorSchema: false })
    const search = await register(fx.harness)
    const limits: number[] = []
    search.watch((next) => void limits.push(next.limit))

    await symlink(join(second, 'settings.yaml'), join(fx.dir, 'next-link'))
    await rename(join(fx.dir, 'next-link'), document)
    await eventually(() => expect(search.get().limit).toBe(20))
    await writeFile(join(second, 'settings.yaml'), 'web-search:\n  limit: 21\n')
    await eventually(() => expect(search.get().limit).toBe(21))
    // The old file is no longer the document: its edit is not published. A later edit of the new one is, after it.
    await writeFile(join(first, 'settings.yaml'), 'web-search:\n  limit: 99\n')
    await writeFile(join(second, 'settings.yaml'), 'web-search:\n  limit: 22\n')
    await eventually(() => expect(search.get().limit).toBe(22))
    expect(limits).not.toContain(99)
  })

  it('takes one lock per real file: two deployments linking the same file exclude each other', async () => {
    const target = join(fx.dir, 'shared.yaml')
    await writeFile(target, 'web-search:\n  limit: 1\n')
    await symlink(target, join(fx.dir, 'a.yaml'))
    await symlink(target, join(fx.dir, 'b.yaml'))
    const inside = deferred()
    const release = deferred()
    class Holding extends FileSettingsProvider {
      protected override async step(step: FileStep): Promise<void> {
        if (step !== 'check') return
        inside.resolve()
        await release.promise
      }
    }
    const holder = await bootFile({ path: join(fx.dir, 'a.yaml'), watch: false, editorSchema: false }, Holding)
    try {
      fx.harness = await bootFile({ path: join(fx.dir, 'b.yaml'), watch: false, editorSchema: false, lockTimeoutMs: 200 })
      const held = (await register(holder)).update({ limit: 2 })
      await inside.promise
      await expect((await register(fx.harness, 'other')).update({ limit: 3 })).rejects.toBeInstanceOf(SettingsLockTimeoutError)
      release.resolve()
      await held
      expect(await readFile(target, 'utf8')).toBe('web-search:\n  limit: 2\n')
    } finally {
      release.resolve()
      await holder.dispose()
    }
  })
})

describe('a document on another file system than its history', () => {
  let shm: string | undefined
  afterEach(async () => {
    if (shm) await rm(shm, { recursive: true, force: true })
    shm = undefined
  })

  it('keeps a copy in history, and still folds in an editor\'s late write into the replaced file', async () => {
    shm = await mkdtemp(join('/dev/shm', 'dsh-settings-file-'))
    // A real second file system: a hard link from the document into history cannot cross it.
    expect(statSync(shm).dev).not.toBe(statSync(fx.dir).dev)
    const target = join(shm, 'settings.yaml')
    await writeFile(target, 'web-search:\n  limit: 1\n', { mode: 0o644 })
    const document = join(fx.dir, 'settings.yaml')
    await symlink(target, document)
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false, settleMs: 10 })
    const search = await register(fx.harness)
    const other = await register(fx.harness, 'other')
    // An editor that opened the file before the write and saves into it in place after.
    const editor = openSync(target, 'r+')
    try {
      await search.update({ engine: 'google' })
      const kept = keptIn(fx.dir)
      expect(kept).toHaveLength(1)
      const entry = join(fx.dir, 'history', kept[0]!)
      expect(await readFile(entry, 'utf8')).toBe('web-search:\n  limit: 1\n')
      expect(statSync(entry).nlink).toBe(1)
      expect(mode(entry)).toBe(0o600)
      writeSync(editor, 'web-search:\n  limit: 1\nother:\n  limit: 4\n', 0)
    } finally {
      closeSync(editor)
    }
    // The section the editor changed is folded in; the write made meanwhile stays.
    await eventually(() => expect(other.get().limit).toBe(4))
    expect(search.get()).toEqual({ engine: 'google', limit: 1 })
    expect(parse(await readFile(target, 'utf8'))).toEqual({ 'web-search': { limit: 1, engine: 'google' }, other: { limit: 4 } })
    // Nothing of the write is left beside the file once the provider stops.
    await fx.harness.dispose()
    fx.harness = undefined
    expect(writerFiles(shm)).toEqual([])
  })
})

describe('a document with a second hard link', () => {
  it('never changes the other name: it keeps its bytes and its mode 0644; history keeps a copy of its own', async () => {
    const document = join(fx.dir, 'settings.yaml')
    const other = join(fx.dir, 'backup.yaml')
    const before = 'web-search:\n  limit: 1\n  apiKey: sk-secret-kept\n'
    await writeFile(document, before)
    await chmod(document, 0o644)
    await link(document, other)
    fx.harness = await bootFile({ path: document, watch: false, editorSchema: false, secrets: 'inline' })
    const search = await register(fx.harness)

    await search.update({ limit: 2 })
    await search.update({ limit: 3 })
    // The write replaced the document's name by a rename: the other name still holds the old file, untouched.
    expect(await readFile(other, 'utf8')).toBe(before)
    expect(mode(other)).toBe(0o644)
    expect(await readFile(document, 'utf8')).toBe('web-search:\n  limit: 3\n  apiKey: sk-secret-kept\n')
    expect(mode(document)).toBe(0o644)
    expect(statSync(document).ino).not.toBe(statSync(other).ino)
    // Kept versions are files of history's own, owner-only (sealed a moment after the write is answered,
    // at once when the history is asked for), never another name of a user's file.
    await fx.harness.settings.history()
    const kept = keptIn(fx.dir)
    expect(kept).toHaveLength(2)
    for (const name of kept) {
      const entry = join(fx.dir, 'history', name)
      expect(mode(entry)).toBe(0o600)
      expect(statSync(entry).ino).not.toBe(statSync(other).ino)
    }
    await fx.harness.dispose()
    fx.harness = undefined
    // Once the late-edit window closed (dispose closes it), the other name is the old file's only name again.
    expect(statSync(other).nlink).toBe(1)
    expect(await readdir(fx.dir)).toEqual(expect.not.arrayContaining([expect.stringMatching(/\.tmp$/)]))
  })
})
