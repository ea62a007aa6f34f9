/**
 * No lost edit: a write replaces the document only if it still holds the version the write read,
 * and an editor's save that races a write (by rename, or in place) ends up in the document.
 * Each race is forced at an exact step of the write through the provider's step hook.
 */
import { execFileSync } from 'node:child_process'
import { link, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import { deferred } from 'dsh-testing'
import { eventually, tempDir } from './file-harness.ts'
import { bootProbed, editorSaves, truncateNow, type Probed, type StepHooks } from './probed.ts'
import { deadPid } from './processes-helpers.ts'
import { asideName, tempName } from '../src/store/leftovers.ts'
import { currentOwner } from '../src/store/owner.ts'

const sectionSchema = Schema.object({ n: Schema.natural().default(0), label: Schema.string().default('none'), token: Schema.string().role('secret') })

const START = [
  '# the user keeps notes here',
  'mine:',
  '  n: 1',
  'hand:',
  '  label: first # a comment',
  '  token: s3cret-hand',
  'other:',
  '  n: 7',
  '',
].join('\n')

let dir: string
let file: string
let cleanup: () => Promise<void>
let probed: Probed | undefined
let hooks: StepHooks

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  file = join(dir, 'settings.yaml')
  await writeFile(file, START)
  hooks = {}
})
afterEach(async () => {
  await probed?.dispose()
  probed = undefined
  await cleanup()
})

type Section = ReturnType<typeof sectionSchema>

async function boot(config: Record<string, unknown> = {}): Promise<Record<string, SettingsScope<Section>>> {
  probed = await bootProbed({ path: file, watch: false, ...config }, hooks)
  const scopes: Record<string, SettingsScope<Section>> = {}
  await probed.root.inject(['settings'], (ctx) => {
    for (const ns of ['mine', 'hand', 'other']) scopes[ns] = ctx.settings.register(ns, sectionSchema)
  })
  return scopes
}

const document = async () => parse(await readFile(file, 'utf8')) as Record<string, Record<string, unknown>>
const handEdit = (label: string) => START.replace('label: first', `label: ${label}`)

/** Run `edit` the first time the write reaches `step`, and no more. */
function once(step: keyof StepHooks, edit: () => Promise<void>): void {
  let done = false
  hooks[step] = async () => {
    if (done) return
    done = true
    await edit()
  }
}

describe('an editor saving by rename while a write runs', () => {
  it.each(['read', 'check', 'keep', 'rename'] as const)('keeps both the save and the write when the save lands at step %s', async (step) => {
    const scopes = await boot()
    once(step, () => editorSaves.rename(file, handEdit('by-rename')))
    await scopes.mine!.update({ n: 2 })
    const doc = await document()
    expect(doc.mine).toEqual({ n: 2 })
    expect(doc.hand).toEqual({ label: 'by-rename', token: 's3cret-hand' })
    expect(doc.other).toEqual({ n: 7 })
    // The user's bytes stay: the comments too.
    expect(await readFile(file, 'utf8')).toContain('label: by-rename # a comment')
    expect(await readFile(file, 'utf8')).toContain('# the user keeps notes here')
    // The seam saw the hand edit as an outside change.
    expect(scopes.hand!.get().label).toBe('by-rename')
  })

  it('retries a bounded number of times, then fails loud with nothing written', async () => {
    const scopes = await boot()
    let round = 0
    hooks.check = () => editorSaves.rename(file, handEdit(`round-${++round}`))
    const error = await scopes.mine!.update({ n: 2 }).catch((failure: unknown) => failure)
    expect(error).toMatchObject({ name: 'SettingsStoreError', code: 'SETTINGS_STORE_BUSY', store: file })
    expect((error as Error).message).toContain(file)
    expect((await document()).mine).toEqual({ n: 1 })
    expect(round).toBeGreaterThan(1)
  })
})

describe('an editor saving in place (truncate, then write) while a write runs', () => {
  it('waits for the save to finish when the write reads the truncated file, and keeps both', async () => {
    const scopes = await boot({ settleMs: 200 })
    const seen: string[] = []
    scopes.hand!.watch((next) => void seen.push(next.label))
    const editor = await truncateNow(file)
    const written = scopes.mine!.update({ n: 2 })
    // The write is waiting for the empty file to settle; the editor finishes its save meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 30))
    await editor.finish(handEdit('in-place'))
    await written
    const doc = await document()
    expect(doc).toEqual({ mine: { n: 2 }, hand: { label: 'in-place', token: 's3cret-hand' }, other: { n: 7 } })
    expect(await readFile(file, 'utf8')).toContain('# the user keeps notes here')
    // The hand section never went back to its defaults on the way.
    expect(seen).toEqual(['in-place'])
  })

  it('keeps a same-size save in place that leaves the signature as it was (a rewrite within one clock tick)', async () => {
    const scopes = await boot()
    const sameSize = handEdit('fresh')
    expect(sameSize.length).toBe(START.length)
    once('keep', async () => {
      const before = await stat(file, { bigint: true })
      await editorSaves.inPlace(file, sameSize)
      // What a rewrite in the same tick of the file system's clock looks like: same inode, size and mtime to the nanosecond.
      const ns = before.mtimeNs % 1_000_000_000n
      execFileSync('touch', ['-m', '-d', `@${before.mtimeNs / 1_000_000_000n}.${ns.toString().padStart(9, '0')}`, file])
      const after = await stat(file, { bigint: true })
      expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs])
    })
    await scopes.mine!.update({ n: 2 })
    expect(await document()).toEqual({ mine: { n: 2 }, hand: { label: 'fresh', token: 's3cret-hand' }, other: { n: 7 } })
    expect(scopes.hand!.get().label).toBe('fresh')
  })

  it('folds in a save that lands in the old file between the last check and the replace', async () => {
    const scopes = await boot({ settleMs: 30 })
    // At the replace step, the version read is linked in history: an in-place save now writes into that file.
    once('rename', () => editorSaves.inPlace(file, handEdit('raced-rename')))
    await scopes.mine!.update({ n: 2 })
    await eventually(async () => expect(await document()).toEqual({ mine: { n: 2 }, hand: { label: 'raced-rename', token: 's3cret-hand' }, other: { n: 7 } }))
    await eventually(() => expect(scopes.hand!.get().label).toBe('raced-rename'))
    expect(probed!.logs.join('\n')).toContain('folded in')
  })

  it('folds in a save that finishes into the old file after the replace (a late write)', async () => {
    const scopes = await boot({ settleMs: 30 })
    const late = deferred<{ finish(text: string): Promise<void> }>()
    // The editor opened (and truncated) the document just before the rename; its bytes arrive after it.
    once('rename', async () => late.resolve(await truncateNow(file)))
    await scopes.mine!.update({ n: 2 })
    await (await late.promise).finish(handEdit('late'))
    await eventually(async () => expect(await document()).toEqual({ mine: { n: 2 }, hand: { label: 'late', token: 's3cret-hand' }, other: { n: 7 } }))
    await eventually(() => expect(scopes.hand!.get().label).toBe('late'))
    expect(scopes.mine!.get().n).toBe(2)
  })

  it('ignores a late write that leaves no sections (a save that died after its truncate)', async () => {
    const scopes = await boot({ settleMs: 20 })
    const late = deferred<{ finish(text: string): Promise<void> }>()
    once('rename', async () => late.resolve(await truncateNow(file)))
    await scopes.mine!.update({ n: 2 })
    await (await late.promise).finish('')
    // The late-edit timer's next look at the finished save reads the document like a write does; the
    // write after it queues behind that look, so both had their chance to lose something.
    const looked = deferred()
    hooks.read = () => looked.resolve()
    await looked.promise
    delete hooks.read
    await scopes.other!.update({ n: 8 })
    expect(await document()).toEqual({ mine: { n: 2 }, hand: { label: 'first', token: 's3cret-hand' }, other: { n: 8 } })
  })
})

describe('reloads', () => {
  it('never publish the truncated file an in-place save passes through', async () => {
    const scopes = await boot({ watch: true, debounceMs: 10, recheckMs: 0, settleMs: 300 })
    const seen: string[] = []
    scopes.hand!.watch((next) => void seen.push(next.label))
    const editor = await truncateNow(file)
    // The watcher sees the truncate, debounces, reads an empty file that is younger than settleMs, and waits.
    await new Promise((resolve) => setTimeout(resolve, 80))
    await editor.finish(handEdit('saved'))
    await eventually(() => expect(scopes.hand!.get().label).toBe('saved'))
    expect(seen).toEqual(['saved'])
    expect(scopes.other!.get().n).toBe(7)
  })
})

describe('reloads while the document is set aside', () => {
  const asideOf = (pid: number, startTime?: string) => join(dir, asideName(tempName('settings.yaml', { ...currentOwner(), pid, ...(startTime ? { startTime } : {}) })))

  it('wait for a running writer that has the document aside, up to a lock wait, and never publish it as deleted', async () => {
    const scopes = await boot({ watch: true, debounceMs: 10, recheckMs: 0, settleMs: 20 })
    const seen: number[] = []
    scopes.mine!.watch((next) => void seen.push(next.n))
    // This process stands for the writer: an aside of a running pid. It holds the document aside for far longer than settleMs
    // (and than the 100 ms in which chokidar takes a deletion and a re-creation for one change).
    const aside = asideOf(process.pid)
    await rename(file, aside)
    await new Promise((resolve) => setTimeout(resolve, 500))
    await writeFile(join(dir, 'next.tmp~'), START.replace('n: 1', 'n: 2'))
    await link(join(dir, 'next.tmp~'), file)
    await unlink(join(dir, 'next.tmp~'))
    await unlink(aside)
    await eventually(() => expect(scopes.mine!.get().n).toBe(2))
    expect(seen).toEqual([2])
    expect(scopes.other!.get().n).toBe(7)
  })

  it('wait no longer than a lock wait for a writer that never puts the document back: the host starts, without it', async () => {
    // A running pid (this process) holds the document aside and never links it back.
    await rename(file, asideOf(process.pid))
    const started = Date.now()
    const scopes = await boot({ lockTimeoutMs: 150 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(scopes.mine!.get().n).toBe(0)
  })

  it('put back the document a dead writer left aside, and keep publishing it', async () => {
    const scopes = await boot({ watch: true, debounceMs: 10, recheckMs: 0, settleMs: 20 })
    const seen: number[] = []
    scopes.other!.watch((next) => void seen.push(next.n))
    const aside = asideOf(await deadPid((child) => child), '1')
    await rename(file, aside)
    await eventually(async () => expect(await readFile(file, 'utf8')).toBe(START))
    expect((await readdir(dir)).filter((name) => name.endsWith('.aside'))).toEqual([])
    // Give a wrong reload time to publish defaults: none may come.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(scopes.other!.get().n).toBe(7)
    expect(seen).toEqual([])
  })
})

describe('what a write leaves behind', () => {
  it('releases the lock before the awaited write resolves', async () => {
    const scopes = await boot()
    for (let i = 2; i < 6; i++) {
      await scopes.mine!.update({ n: i })
      expect((await readdir(dir)).filter((name) => name.endsWith('.lock'))).toEqual([])
    }
  })

  it('keeps the mode the user gave the document', async () => {
    const { chmod } = await import('node:fs/promises')
    await chmod(file, 0o640)
    const scopes = await boot()
    await scopes.mine!.update({ n: 2 })
    expect((await stat(file)).mode & 0o777).toBe(0o640)
  })
})
