/**
 * The torture's leftover check: what a writer or a lock left beside the
 * document and in `history/`, but never the lock record a provider still
 * running in this process keeps standing there.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { strayFiles } from './harness.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-stray-'))
  await mkdir(join(dir, 'history'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const record = (pid: number) => `.settings.yaml.lock.d67aa5c5.${pid}.5454711.b94933689041.tmp`

describe('strayFiles', () => {
  it('spares only the standing lock record of the writer named live, never another pid\'s or another temp', async () => {
    const live = record(4242)
    const dead = record(4243)
    const temp = '.settings.yaml.d67aa5c5.4242.5454711.0123456789ab.tmp'
    for (const name of [live, dead, temp, 'settings.20261204T133336056Z.ed1d29d4.yaml', 'settings.journal.jsonl']) await writeFile(join(dir, 'history', name), 'x')
    await writeFile(join(dir, 'settings.yaml'), 'a: 1\n')
    await writeFile(join(dir, 'settings.yaml.lock'), '{}')
    expect((await strayFiles(dir, ['settings.yaml', 'history'], 4242)).sort()).toEqual(['history/' + dead, 'history/' + temp, 'settings.yaml.lock'].sort())
    // Without a live writer, every record is a leftover.
    expect((await strayFiles(dir, ['settings.yaml', 'history'])).sort()).toEqual(['history/' + dead, 'history/' + live, 'history/' + temp, 'settings.yaml.lock'].sort())
  })
})
