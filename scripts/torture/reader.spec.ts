/**
 * The external readers' reader child: how it counts a read that finds the
 * document missing, one that finds it partial, and one taken while the
 * editor's in-place save was under way (excused), in each of its modes.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seedDocument } from './whole-document.ts'

const READER = fileURLToPath(new URL('./children/reader.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const WRITERS = 2

interface Counts {
  reads: number
  missing: number
  partial: number
  excused: number
  errors: number
}

let dir: string
let file: string
let marker: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-reader-'))
  file = join(dir, 'settings.yaml')
  marker = join(dir, 'in-place-saves')
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** Run the reader child for `ms` in `mode`; `during` runs while it reads. Resolves with its counts. */
function read(mode: 'loop' | 'cat' | 'watch', ms: number, during: () => Promise<void> = async () => {}): Promise<Counts> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', READER, mode, file, String(WRITERS), String(ms), marker, '30000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  let started = false
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      // `during` acts once the child reads (or watches), however long it took to load.
      if (!started && out.startsWith('ready\n')) {
        started = true
        void during().catch(reject)
      }
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (err += chunk))
    child.once('error', reject)
    child.once('exit', (code) => {
      const line = out.split('\n').find((text) => text.startsWith('result '))
      if (code !== 0 || !line) return reject(new Error(`reader exited ${code}: ${err}`))
      resolve(JSON.parse(line.slice('result '.length)) as Counts)
    })
  })
}

const seed = seedDocument(WRITERS, 2)
const partial = seed.slice(0, Math.floor(seed.length / 2))

describe('the external readers reader', () => {
  it('counts whole reads as neither missing nor partial', async () => {
    await writeFile(file, seed)
    const counts = await read('loop', 300)
    expect(counts.reads).toBeGreaterThan(0)
    expect(counts).toMatchObject({ missing: 0, partial: 0, excused: 0, errors: 0 })
  })

  it('counts every read of a missing document as missing, with readFileSync and with cat', async () => {
    for (const mode of ['loop', 'cat'] as const) {
      const counts = await read(mode, 300)
      expect(counts.reads).toBeGreaterThan(0)
      expect(counts).toMatchObject({ missing: counts.reads, partial: 0, errors: 0 })
    }
  })

  it('counts a partial document as partial, unless an in-place save was under way', async () => {
    await writeFile(file, partial)
    await writeFile(marker, '2')
    const settled = await read('loop', 300)
    expect(settled).toMatchObject({ partial: settled.reads, excused: 0 })
    await writeFile(marker, '3')
    const saving = await read('loop', 300)
    expect(saving).toMatchObject({ partial: 0, excused: saving.reads })
  })

  it('reads on each change when watching, and judges what it read', async () => {
    await writeFile(file, seed)
    const counts = await read('watch', 2500, async () => {
      await writeFile(file, seed.replace('seq: 0', 'seq: 1'))
      await new Promise((resolve) => setTimeout(resolve, 100))
      await writeFile(file, partial)
    })
    expect(counts.reads).toBeGreaterThanOrEqual(2)
    expect(counts.partial).toBeGreaterThanOrEqual(1)
    expect(counts.missing).toBe(0)
  })
})
