/**
 * The host record: a running server says where it runs (`<home>/remote-host.json`,
 * its URL and process id, mode 0600), so a command finds it; stopping removes
 * the record, unless a newer server of the same home has written its own.
 */
import { readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HOST_FILE, type HostRecord } from '../src/host-record.ts'
import { startServer, tempDir } from './harness.ts'

let dir: string

beforeEach(async () => {
  dir = await tempDir('dsh-remote-record-')
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const record = async (): Promise<HostRecord | undefined> =>
  readFile(join(dir, HOST_FILE), 'utf8').then(
    (text) => JSON.parse(text) as HostRecord,
    () => undefined,
  )

describe('the host record', () => {
  it('names the bound URL and this process, owner-only, and goes when the server stops', async () => {
    const live = await startServer({ home: dir })
    try {
      expect(await record()).toEqual({ url: live.url, pid: process.pid })
      expect((await stat(join(dir, HOST_FILE))).mode & 0o777).toBe(0o600)
      expect(JSON.stringify(await record())).not.toContain(live.token)
    } finally {
      await live.cleanup()
    }
    expect(await record()).toBeUndefined()
  })

  it('names the newest server of a home, and an older one stopping leaves it', async () => {
    const first = await startServer({ home: dir })
    const second = await startServer({ home: dir })
    try {
      expect((await record())?.url).toBe(second.url)
      await first.cleanup()
      expect((await record())?.url).toBe(second.url)
    } finally {
      await second.cleanup()
    }
    expect(await record()).toBeUndefined()
  })
})
