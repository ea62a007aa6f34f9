/**
 * The kill storm's reader: a document set aside for a replace (by a running writer, or one killed then) is
 * waited for, while a document missing with nothing set aside fails the read, as a deleted document must.
 */
import { link, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { asideName, currentOwner, tempName } from 'dsh-settings-file/store'
import { sleep } from './harness.ts'
import { DocumentMonitor } from './monitor.ts'

let dir: string
let file: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-monitor-'))
  file = join(dir, 'settings.yaml')
  await writeFile(file, 'w-0:\n  k:\n    a: 1\n')
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** An aside name of the document by this (running) process, as a writer's replace makes it. */
function asideOfThisProcess(): string {
  return join(dir, asideName(tempName('settings.yaml', currentOwner())))
}

describe('DocumentMonitor', () => {
  it('waits for a document a running writer has set aside, however many reads find it missing', async () => {
    const monitor = new DocumentMonitor(file, new Map([['w-0/a', 1]]))
    monitor.start()
    await sleep(20)
    const aside = asideOfThisProcess()
    await rename(file, aside)
    // Far longer than the looks a read allows for a document missing with nothing aside.
    await sleep(50)
    await link(aside, file)
    await unlink(aside)
    await sleep(20)
    await monitor.stop()
    expect(monitor.parseFailures).toBe(0)
    expect(monitor.notes).toEqual([])
    expect(monitor.asideWaits).toBeGreaterThan(0)
  })

  it('fails a read that finds the document missing with nothing set aside', async () => {
    const monitor = new DocumentMonitor(file, new Map())
    monitor.start()
    await sleep(20)
    await unlink(file)
    await sleep(50)
    await monitor.stop()
    expect(monitor.parseFailures).toBeGreaterThan(0)
    expect(monitor.notes[0]).toBe('read failed: ENOENT')
  })
})
