/**
 * The token: from config, else `<home>/remote-token`, else generated (32
 * random bytes, base64url) and written there owner-only; reused across
 * starts; printed once in the page line.
 */
import { chmod, chown, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HOST_FILE } from '../src/host-record.ts'
import { loadToken, TOKEN_FILE } from '../src/token.ts'
import { authorized, raw, startServer, tempDir } from './harness.ts'

let dir: string

beforeEach(async () => {
  dir = await tempDir('dsh-remote-token-')
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const mode = async (path: string) => (await stat(path)).mode & 0o777

describe('the token file', () => {
  it('is generated with mode 0600 in a home created with mode 0700, and printed in the start line', async () => {
    const home = join(dir, 'fresh', 'home')
    const live = await startServer({ home })
    try {
      const file = join(home, TOKEN_FILE)
      const token = (await readFile(file, 'utf8')).trim()
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(token, 'base64url')).toHaveLength(32)
      expect(await mode(file)).toBe(0o600)
      expect(await mode(home)).toBe(0o700)
      expect(live.token).toBe(token)
      const startLines = live.logs.filter((line) => line.text.includes('#token='))
      expect(startLines).toEqual([{ type: 'info', text: `API: http://127.0.0.1:${live.port}/#token=${token}` }])
      expect(live.url).toBe(`http://127.0.0.1:${live.port}`)
      // No temp file is left behind; beside the token lies the record that says where this server runs.
      expect((await readdir(home)).sort()).toEqual([HOST_FILE, TOKEN_FILE])
    } finally {
      await live.cleanup()
    }
  })

  it('is reused by the next start', async () => {
    const first = await startServer({ home: dir })
    await first.cleanup()
    const second = await startServer({ home: dir })
    try {
      expect(second.token).toBe(first.token)
      expect((await raw(second, '/remote/events', { headers: authorized(first.token), method: 'POST' })).status).toBe(405)
    } finally {
      await second.cleanup()
    }
  })

  it('is left alone when config gives a token, and that token is the one checked', async () => {
    const live = await startServer({ home: dir, token: 'configured-token-value' })
    try {
      expect(live.token).toBe('configured-token-value')
      // No token file: only the record of where this server runs.
      expect(await readdir(dir)).toEqual([HOST_FILE])
      await live.expose('echo', { say: (args) => args[0] })
      const body = '{"args":["hi"]}'
      expect((await raw(live, '/remote/echo/say', { method: 'POST', headers: authorized('configured-token-value'), body })).status).toBe(200)
    } finally {
      await live.cleanup()
    }
  })

  it('keeps an existing token, narrowing a file others could read to 0600 with a warning', async () => {
    const file = join(dir, TOKEN_FILE)
    await writeFile(file, 'hand-written-token\n')
    await chmod(file, 0o644)
    const live = await startServer({ home: dir })
    try {
      expect(live.token).toBe('hand-written-token')
      expect(await mode(file)).toBe(0o600)
      expect(live.logs.some((line) => line.type === 'warn' && line.text.includes('mode is now 0600'))).toBe(true)
      expect(live.logs.filter((line) => line.type === 'warn').every((line) => !line.text.includes('hand-written-token'))).toBe(true)
    } finally {
      await live.cleanup()
    }
  })

  it('replaces a blank file with a generated token', async () => {
    const file = join(dir, TOKEN_FILE)
    await writeFile(file, '  \n', { mode: 0o600 })
    const loaded = await loadToken(undefined, dir)
    expect(loaded.source).toBe('generated')
    expect((await readFile(file, 'utf8')).trim()).toBe(loaded.token)
    expect(loaded.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await mode(file)).toBe(0o600)
  })

  it('ends up with one token when several starts race to create it', async () => {
    const home = join(dir, 'race')
    await mkdir(home)
    const loaded = await Promise.all(Array.from({ length: 8 }, () => loadToken(undefined, home)))
    const tokens = new Set(loaded.map((entry) => entry.token))
    expect(tokens.size).toBe(1)
    expect((await readFile(join(home, TOKEN_FILE), 'utf8')).trim()).toBe([...tokens][0])
    expect(await readdir(home)).toEqual([TOKEN_FILE])
  })

  it('treats a blank configured token as absent', async () => {
    const loaded = await loadToken('   ', dir)
    expect(loaded.source).toBe('generated')
  })

  it('belongs to the owner of the folder it lands in, with the folders created for it, when the server runs as root', async () => {
    // As root (sudo over a user's home) the files go to that user; as anyone else they are simply this process's.
    const asRoot = process.getuid!() === 0
    const user = asRoot ? { uid: 65534, gid: 65534 } : { uid: process.getuid!(), gid: process.getgid!() }
    const users = join(dir, 'users-home')
    await mkdir(users, { mode: 0o700 })
    if (asRoot) await chown(users, user.uid, user.gid)
    const home = join(users, 'project', '.dsh')
    const loaded = await loadToken(undefined, home)
    for (const path of [join(users, 'project'), home, join(home, TOKEN_FILE)]) {
      const found = await stat(path)
      expect({ path, uid: found.uid, gid: found.gid }).toEqual({ path, ...user })
    }
    expect(await mode(join(home, TOKEN_FILE))).toBe(0o600)
    expect(await mode(home)).toBe(0o700)
    expect(await readdir(home)).toEqual([TOKEN_FILE])
    // The same token is read back from the file on the next start.
    expect((await loadToken(undefined, home)).token).toBe(loaded.token)
  })

  it('stays root-owned where root owns the folder it lands in', async () => {
    const home = join(dir, 'roots', '.dsh')
    await loadToken(undefined, home)
    const found = await stat(join(home, TOKEN_FILE))
    expect([found.uid, found.gid]).toEqual([process.getuid!(), process.getgid!()])
  })
})
