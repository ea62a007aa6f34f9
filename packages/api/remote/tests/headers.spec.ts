/**
 * The headers a browser is told to enforce: the page at `/` and its assets
 * (and a page path that is missing) carry a Content-Security-Policy that
 * allows only the page's own assets and no framing (the settings page's own
 * `<meta>` policy, plus `frame-ancestors 'none'`); every answer, the API's
 * included, says `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`,
 * `nosniff` and `no-store`, and API answers a policy that loads nothing.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, startServer, tempDir, type LiveServer, type RawResponse } from './harness.ts'

/** The settings page's source document, whose `<meta>` policy the header must keep (a drift check: read as text). */
const PAGE_HTML = new URL('../../../client/settings-page/index.html', import.meta.url)

let dir: string
let live: LiveServer

beforeAll(async () => {
  dir = await tempDir('dsh-remote-headers-')
  await mkdir(join(dir, 'page', 'assets'), { recursive: true })
  await writeFile(join(dir, 'page', 'index.html'), '<!doctype html><title>page</title>')
  await writeFile(join(dir, 'page', 'assets', 'app.js'), 'export {}\n')
  live = await startServer({ static: join(dir, 'page') })
})

afterAll(async () => {
  await live.cleanup()
  await rm(dir, { recursive: true, force: true })
})

/** A policy as its directives: name → value. */
function directives(policy: string): Map<string, string> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name, ...values] = part.split(/\s+/)
        return [name!, values.join(' ')]
      }),
  )
}

function expectEveryAnswerHeaders(answer: RawResponse): void {
  expect(answer.headers['x-frame-options']).toBe('DENY')
  expect(answer.headers['referrer-policy']).toBe('no-referrer')
  expect(answer.headers['x-content-type-options']).toBe('nosniff')
  expect(answer.headers['cache-control']).toBe('no-store')
}

describe('response headers', () => {
  it.each(['/', '/index.html', '/assets/app.js', '/assets/missing.js'])('%s carries the page policy: its own assets only, no framing', async (path) => {
    const answer = await raw(live, path)
    expectEveryAnswerHeaders(answer)
    const policy = directives(String(answer.headers['content-security-policy']))
    expect(policy.get('default-src')).toBe("'none'")
    expect(policy.get('script-src')).toBe("'self'")
    expect(policy.get('frame-ancestors')).toBe("'none'")
    expect(policy.get('base-uri')).toBe("'none'")
    expect(policy.get('form-action')).toBe("'none'")
    // Nothing inline, nothing from elsewhere.
    expect(String(answer.headers['content-security-policy'])).not.toMatch(/unsafe-|\*|https?:/)
  })

  it("keeps every directive of the settings page's own <meta> policy, so the header never blocks what the page needs", async () => {
    const html = await readFile(PAGE_HTML, 'utf8')
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1]
    expect(meta).toBeDefined()
    const header = directives(String((await raw(live, '/')).headers['content-security-policy']))
    for (const [name, value] of directives(meta!)) expect([name, header.get(name)]).toEqual([name, value])
  })

  it('a request Node cannot parse is answered with the same headers', async () => {
    const text = await new Promise<string>((done, fail) => {
      let answer = ''
      const socket = createConnection(live.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'))
      socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk))
      socket.on('end', () => done(answer))
      socket.on('error', fail)
    })
    expect(text).toMatch(/^HTTP\/1\.1 400 /)
    for (const header of ['X-Frame-Options: DENY', 'Referrer-Policy: no-referrer', 'X-Content-Type-Options: nosniff', 'Cache-Control: no-store', "Content-Security-Policy: default-src 'none'"]) {
      expect(text).toContain(`\r\n${header}`)
    }
  })

  it.each([
    ['an API call without the token', '/remote/x/y', 'POST'],
    ['the event stream without the token', '/remote/events', 'GET'],
    ['the hello', '/remote/hello', 'POST'],
  ])('%s answers the common headers and a policy that loads nothing', async (_what, path, method) => {
    const answer = await raw(live, path, { method, headers: { 'content-type': 'application/json' }, body: path.endsWith('hello') ? '{}' : '' })
    expectEveryAnswerHeaders(answer)
    expect(directives(String(answer.headers['content-security-policy']))).toEqual(
      new Map([
        ['default-src', "'none'"],
        ['base-uri', "'none'"],
        ['form-action', "'none'"],
        ['frame-ancestors', "'none'"],
      ]),
    )
  })
})
