/**
 * Page assets: served at `/` without a token, with the right content types,
 * `index.html` for a directory, and nothing outside the directory reachable:
 * not through `..` (plain, percent-encoded, with encoded slashes or
 * backslashes), not through a symlink, not as a dotfile.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, startServer, tempDir, type LiveServer } from './harness.ts'

const OUTSIDE = 'outside-the-page-directory'

let dir: string
let live: LiveServer

beforeAll(async () => {
  dir = await tempDir('dsh-remote-static-')
  const page = join(dir, 'page')
  await mkdir(join(page, 'sub'), { recursive: true })
  await writeFile(join(page, 'index.html'), '<!doctype html><title>settings</title>')
  await writeFile(join(page, 'app.js'), 'export const ok = true\n')
  await writeFile(join(page, 'style.css'), 'body { margin: 0 }\n')
  await writeFile(join(page, 'data.json'), '{"ok":true}\n')
  await writeFile(join(page, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  await writeFile(join(page, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]))
  await writeFile(join(page, 'blob.xyz'), 'opaque')
  await writeFile(join(page, 'with space.txt'), 'spaced')
  await writeFile(join(page, '.env'), `SECRET=${OUTSIDE}`)
  await writeFile(join(page, 'sub', 'index.html'), '<p>sub</p>')
  await writeFile(join(dir, 'secret.txt'), OUTSIDE)
  await symlink(join(dir, 'secret.txt'), join(page, 'linked.txt'))
  await symlink(dir, join(page, 'up'))
  await symlink(join(page, 'app.js'), join(page, 'alias.js'))
  live = await startServer({ static: page })
})

afterAll(async () => {
  await live.cleanup()
  await rm(dir, { recursive: true, force: true })
})

describe('static assets', () => {
  it('are announced in the start line, which names no service', () => {
    const start = live.logs.filter((line) => line.text.includes('#token='))
    expect(start).toEqual([{ type: 'info', text: `page and API: ${live.url}/#token=${live.token}` }])
    expect(start[0]!.text).not.toMatch(/settings/i)
  })

  it.each([
    ['/', 'text/html; charset=utf-8', '<!doctype html><title>settings</title>'],
    ['/index.html', 'text/html; charset=utf-8', '<!doctype html><title>settings</title>'],
    ['/app.js', 'text/javascript; charset=utf-8', 'export const ok = true\n'],
    ['/style.css', 'text/css; charset=utf-8', 'body { margin: 0 }\n'],
    ['/data.json', 'application/json; charset=utf-8', '{"ok":true}\n'],
    ['/icon.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['/blob.xyz', 'application/octet-stream', 'opaque'],
    ['/with%20space.txt', 'text/plain; charset=utf-8', 'spaced'],
    ['/sub/', 'text/html; charset=utf-8', '<p>sub</p>'],
    ['/sub', 'text/html; charset=utf-8', '<p>sub</p>'],
    ['/alias.js', 'text/javascript; charset=utf-8', 'export const ok = true\n'],
    ['/app.js?v=3', 'text/javascript; charset=utf-8', 'export const ok = true\n'],
  ])('serves %s as %s without a token, with the common headers', async (path, type, body) => {
    const answer = await raw(live, path)
    expect(answer.status).toBe(200)
    expect(answer.headers['content-type']).toBe(type)
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    expect(answer.body).toBe(body)
  })

  it('serves binary files byte for byte', async () => {
    const answer = await raw(live, '/logo.png')
    expect(answer.headers['content-type']).toBe('image/png')
    expect(answer.headers['content-length']).toBe('4')
  })

  it('answers HEAD with the headers only', async () => {
    const answer = await raw(live, '/app.js', { method: 'HEAD' })
    expect(answer.status).toBe(200)
    expect(answer.headers['content-length']).toBe(String('export const ok = true\n'.length))
    expect(answer.body).toBe('')
  })

  it('answers 404 for a missing asset and 405 for other methods', async () => {
    const missing = await raw(live, '/nope.js')
    expect(missing.status).toBe(404)
    expect(JSON.parse(missing.body).error.code).toBe('remote/not-found')
    const posted = await raw(live, '/index.html', { method: 'POST', body: 'x' })
    expect(posted.status).toBe(405)
    expect(posted.headers.allow).toBe('GET, HEAD')
  })

  it('still checks Host for pages', async () => {
    const answer = await raw(live, '/', { headers: { host: 'rebound.evil.example' } })
    expect(answer.status).toBe(403)
    expect(answer.body).not.toContain('settings')
  })

  it.each([
    '/../secret.txt',
    '/sub/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/secret.txt',
    '/..%2fsecret.txt',
    '/sub/..%2f..%2fsecret.txt',
    '/%2e%2e%2fsecret.txt',
    '/..%5csecret.txt',
    '/..\\secret.txt',
    '/sub/%2e%2e/%2e%2e/secret.txt',
    '/./index.html',
    '//secret.txt',
    '/linked.txt',
    '/up/secret.txt',
    '/.env',
    '/%2eenv',
    '/index.html%00.js',
    '/%E0%A4%A',
  ])('refuses %s without revealing anything outside the directory', async (path) => {
    const answer = await raw(live, path)
    expect([403, 404], `${path}: ${answer.status}`).toContain(answer.status)
    expect(answer.body).not.toContain(OUTSIDE)
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
  })
})

describe('a static directory that does not exist', () => {
  it('is reported at start, and every page answers 404', async () => {
    const missing = await startServer({ static: join(dir, 'not-there') })
    try {
      expect(missing.logs.some((line) => line.type === 'warn' && line.text.includes('does not exist'))).toBe(true)
      const answer = await raw(missing, '/')
      expect(answer.status).toBe(404)
    } finally {
      await missing.cleanup()
    }
  })
})
