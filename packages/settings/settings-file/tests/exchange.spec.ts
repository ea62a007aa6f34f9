/**
 * Replace by exchange: a write swaps its new version and the document in one
 * step (`renameat2(RENAME_EXCHANGE)`), so a reader of the path always finds a
 * whole document; what comes back is the replaced version, sealed and kept
 * before the write answers, and an editor's rename save that came in between
 * is put back and kept. The portable path (`DSH_SETTINGS_PORTABLE_FS=1`, as on
 * exFAT or NFS) keeps every promise but the reader's, also without hard links.
 */
import fs from 'node:fs'
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import Schema from 'schemastery'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import { tempDir } from './file-harness.ts'
import { bootProbed, editorSaves, type Probed, type StepHooks } from './probed.ts'
import { kernelCallsAvailable } from '../src/store/kernel.ts'
import { lastReplaceWay } from '../src/store/replace.ts'

const section = Schema.object({ n: Schema.natural().default(0), label: Schema.string().default('none') })
type Section = ReturnType<typeof section>

const START = '# start\nmine:\n  n: 0\nhand:\n  label: first\n# end\n'

let dir: string
let file: string
let cleanup: () => Promise<void>
let probed: Probed | undefined
let hooks: StepHooks

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  file = join(dir, 'settings.yaml')
  await writeFile(file, START, { mode: 0o644 })
  hooks = {}
})
afterEach(async () => {
  await probed?.dispose()
  probed = undefined
  delete process.env.DSH_SETTINGS_PORTABLE_FS
  await cleanup()
})

async function boot(): Promise<Record<'mine' | 'hand', SettingsScope<Section>>> {
  probed = await bootProbed({ path: file, watch: false }, hooks)
  let scopes!: Record<'mine' | 'hand', SettingsScope<Section>>
  await probed.root.inject(['settings'], (ctx) => {
    scopes = { mine: ctx.settings.register('mine', section), hand: ctx.settings.register('hand', section) }
  })
  return scopes
}

/** The kept versions in history/, oldest first. */
async function keptVersions(): Promise<string[]> {
  const names = (await readdir(join(dir, 'history'))).filter((name) => /^settings\.\d{8}T\d{9}Z\.[0-9a-f]{8}\.yaml$/.test(name))
  return names.sort().map((name) => join(dir, 'history', name))
}

/**
 * A reader in another thread reading the document with `readFileSync` in a tight loop until told to stop,
 * counting reads that found it missing and reads of anything but a whole document.
 */
const READER = `
const { readFileSync } = require('node:fs')
const { workerData, parentPort } = require('node:worker_threads')
const stop = new Int32Array(workerData.stop)
let reads = 0, missing = 0, partial = 0
const counts = new Int32Array(workerData.counts)
while (Atomics.load(stop, 0) === 0) {
  let text
  try { text = readFileSync(workerData.file, 'utf8') } catch (error) { if (error.code === 'ENOENT') missing++; else throw error; continue }
  reads++
  if (!text.startsWith('# start\\n') || !text.endsWith('# end\\n')) partial++
  Atomics.store(counts, 0, reads)
}
parentPort.postMessage({ reads, missing, partial })
`

describe('replace by exchange', () => {
  it('is what this system does (the kernel calls are reachable here)', async () => {
    expect(kernelCallsAvailable()).toBe(true)
    const scopes = await boot()
    await scopes.mine.update({ n: 1 })
    expect(lastReplaceWay()).toBe('exchange')
  })

  it('never lets a reader in a tight loop find the document missing or partial while writes replace it', { timeout: 60_000 }, async () => {
    const scopes = await boot()
    const stop = new SharedArrayBuffer(4)
    const counts = new SharedArrayBuffer(4)
    const reader = new Worker(READER, { eval: true, workerData: { file, stop, counts } })
    const result = new Promise<{ reads: number; missing: number; partial: number }>((resolve, reject) => {
      reader.once('message', resolve)
      reader.once('error', reject)
    })
    try {
      let writes = 0
      // At least 300 writes and 5,000 reads beside them: counts, not time.
      while (writes < 300 || Atomics.load(new Int32Array(counts), 0) < 5000) await scopes.mine.update({ n: ++writes })
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1)
    }
    const { reads, missing, partial } = await result
    await reader.terminate()
    expect(reads).toBeGreaterThanOrEqual(5000)
    expect({ missing, partial }).toEqual({ missing: 0, partial: 0 })
    expect(lastReplaceWay()).toBe('exchange')
  })
})

describe.each([
  ['by exchange', false, false],
  ['on the portable path', true, false],
  ['on the portable path of a file system without hard links (exFAT)', true, true],
])('a write %s', (_way, portable, noLinks) => {
  beforeEach(() => {
    if (portable) process.env.DSH_SETTINGS_PORTABLE_FS = '1'
    // Every link refused with EPERM, as exFAT does: the replace, the lock and history must do without.
    if (noLinks) {
      vi.spyOn(fs, 'linkSync').mockImplementation(() => {
        throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' })
      })
    }
  })
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('puts back and keeps an editor\'s rename save that lands between the last check and the replace', async () => {
    const scopes = await boot()
    const saved = START.replace('label: first', 'label: by-rename')
    let editorIno: bigint | undefined
    hooks.rename = async () => {
      delete hooks.rename
      await editorSaves.rename(file, saved)
      editorIno = (await stat(file, { bigint: true })).ino
    }
    await scopes.mine.update({ n: 2 })
    expect(lastReplaceWay()).toBe(portable ? 'aside' : 'exchange')
    expect(await readFile(file, 'utf8')).toBe(START.replace('label: first', 'label: by-rename').replace('n: 0', 'n: 2'))
    expect(scopes.hand.get().label).toBe('by-rename')
    // The editor's very file went back to the path and is the version the write then replaced.
    const kept = await keptVersions()
    expect(kept).toHaveLength(1)
    expect(await readFile(kept[0]!, 'utf8')).toBe(saved)
    expect((await stat(kept[0]!, { bigint: true })).ino).toBe(editorIno)
  })

  it('has the kept version sealed owner-only the moment the write answers, the document keeping its mode', async () => {
    const scopes = await boot()
    for (let n = 1; n <= 3; n++) {
      await scopes.mine.update({ n })
      const kept = await keptVersions()
      expect(kept).toHaveLength(n)
      expect((await stat(kept.at(-1)!)).mode & 0o777).toBe(0o600)
    }
    expect((await stat(file)).mode & 0o777).toBe(0o644)
    // Nothing of the writes stays beside the document (the editor schema's writer runs on its own).
    expect((await readdir(dir)).filter((name) => name.startsWith('.settings.yaml.'))).toEqual([])
  })

  it('with history off, leaves nothing of the replaced version once disposed', async () => {
    probed = await bootProbed({ path: file, watch: false, history: false }, hooks)
    let scope!: SettingsScope<Section>
    await probed.root.inject(['settings'], (ctx) => {
      scope = ctx.settings.register('mine', section)
    })
    await scope.update({ n: 5 })
    await probed.dispose()
    probed = undefined
    expect(await readFile(file, 'utf8')).toContain('n: 5')
    expect((await readdir(dir)).sort()).toEqual(['settings.schema.json', 'settings.yaml'])
  })
})
