import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import {
  resolveReference,
  SECRET_FILE_LIMIT,
  SecretReferenceError,
  type SecretReference,
  type SecretStore,
  SecretStoreUnavailableError,
} from '../src/index.ts'

const VALUE = 'sk-live-7f3a9c'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-secrets-resolve-')))
  dirs.push(dir)
  return dir
}

/** The error `promise` rejects with, checked to be a SecretReferenceError that quotes no value. */
async function refusal(promise: Promise<unknown>, ...values: string[]): Promise<SecretReferenceError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(error).toBeInstanceOf(SecretReferenceError)
  const refused = error as SecretReferenceError
  expect(refused).toMatchObject({ name: 'SecretReferenceError', code: 'SECRET_REFERENCE_UNRESOLVED' })
  for (const value of [VALUE, ...values]) expect(JSON.stringify({ ...refused, message: refused.message, stack: refused.stack })).not.toContain(value)
  return refused
}

function fileRef(name: string): SecretReference {
  return { kind: 'file', name }
}

class MapStore implements SecretStore {
  readonly kind = 'file' as const
  readonly values = new Map<string, string>()
  async get(name: string) {
    return this.values.get(name)
  }
  async set(name: string, value: string) {
    this.values.set(name, value)
  }
  async delete(name: string) {
    return this.values.delete(name)
  }
}

describe('resolveReference: !env', () => {
  it('takes the variable of the given environment', async () => {
    await expect(resolveReference({ kind: 'env', name: 'SEARCH_API_KEY' }, { env: { SEARCH_API_KEY: VALUE } })).resolves.toBe(VALUE)
  })

  it('refuses an unset or empty variable, and never reads names off the prototype', async () => {
    for (const name of ['SEARCH_API_KEY', 'EMPTY', 'toString', '__proto__', 'constructor']) {
      const error = await refusal(resolveReference({ kind: 'env', name }, { env: { EMPTY: '' } }))
      expect(error).toMatchObject({ reason: 'unset-variable', reference: { kind: 'env', name } })
      expect(error.message).toContain(name)
    }
  })

  it('reads process.env itself', async () => {
    const name = `DSH_SECRETS_TEST_${process.pid}_${Math.random().toString(36).slice(2)}`
    process.env[name] = VALUE
    try {
      await expect(resolveReference({ kind: 'env', name }, { env: process.env })).resolves.toBe(VALUE)
    } finally {
      delete process.env[name]
    }
    expect((await refusal(resolveReference({ kind: 'env', name }, { env: process.env }))).reason).toBe('unset-variable')
  })
})

describe('resolveReference: !file', () => {
  it('drops one trailing newline, and only one, LF or CRLF', async () => {
    const dir = folder()
    const cases: [string, string][] = [
      ['plain', VALUE],
      ['lf', `${VALUE}\n`],
      ['crlf', `${VALUE}\r\n`],
      ['two', `${VALUE}\n\n`],
      ['crlf-two', `${VALUE}\r\n\r\n`],
      ['inner', `a\nb\n`],
      ['empty', ''],
      ['only-newline', '\n'],
    ]
    for (const [name, text] of cases) writeFileSync(join(dir, name), text)
    const read = async (name: string) => resolveReference(fileRef(join(dir, name)), { env: {} })
    expect(await read('plain')).toBe(VALUE)
    expect(await read('lf')).toBe(VALUE)
    expect(await read('crlf')).toBe(VALUE)
    expect(await read('two')).toBe(`${VALUE}\n`)
    expect(await read('crlf-two')).toBe(`${VALUE}\r\n`)
    expect(await read('inner')).toBe('a\nb')
    expect(await read('empty')).toBe('')
    expect(await read('only-newline')).toBe('')
  })

  it('takes a relative path from baseDir and follows a symlink to a regular file', async () => {
    const dir = folder()
    mkdirSync(join(dir, 'data'))
    writeFileSync(join(dir, 'data', 'key'), `${VALUE}\n`)
    execFileSync('ln', ['-s', 'data/key', join(dir, 'link')])
    await expect(resolveReference(fileRef('data/key'), { env: {}, baseDir: dir })).resolves.toBe(VALUE)
    await expect(resolveReference(fileRef(join(dir, 'link')), { env: {} })).resolves.toBe(VALUE)
  })

  it('refuses a folder and a FIFO without waiting for a writer', async () => {
    const dir = folder()
    execFileSync('mkfifo', [join(dir, 'fifo')])
    const fifo = await refusal(resolveReference(fileRef(join(dir, 'fifo')), { env: {} }))
    expect(fifo).toMatchObject({ reason: 'not-a-file', reference: { kind: 'file', name: join(dir, 'fifo') } })
    expect(fifo.message).toContain(join(dir, 'fifo'))
    expect((await refusal(resolveReference(fileRef(dir), { env: {} }))).reason).toBe('not-a-file')
  })

  it('takes a file of exactly 64 KiB and refuses one byte more, quoting none of it', async () => {
    const dir = folder()
    const fill = 'k'.repeat(SECRET_FILE_LIMIT - VALUE.length)
    writeFileSync(join(dir, 'limit'), VALUE + fill)
    writeFileSync(join(dir, 'over'), VALUE + fill + 'x')
    expect(await resolveReference(fileRef(join(dir, 'limit')), { env: {} })).toHaveLength(SECRET_FILE_LIMIT)
    expect((await refusal(resolveReference(fileRef(join(dir, 'over')), { env: {} }), fill.slice(0, 32))).reason).toBe('too-large')
  })

  it('refuses a missing file and one that is not UTF-8 as unreadable', async () => {
    const dir = folder()
    writeFileSync(join(dir, 'binary'), Buffer.from([0xff, 0xfe, 0x00, 0xc3]))
    expect((await refusal(resolveReference(fileRef(join(dir, 'none')), { env: {} }))).reason).toBe('unreadable-file')
    expect((await refusal(resolveReference(fileRef(join(dir, 'binary')), { env: {} }))).reason).toBe('unreadable-file')
  })

  it('refuses a file this process may not read (mode 000; run as root, read as user nobody)', async () => {
    const dir = folder()
    const file = join(dir, 'locked')
    writeFileSync(file, VALUE)
    chmodSync(file, 0o000)
    if (process.getuid?.() !== 0) {
      const error = await refusal(resolveReference(fileRef(file), { env: {} }))
      expect(error.reason).toBe('unreadable-file')
      expect(error.message).toContain('EACCES')
      return
    }
    // Root reads any file, so the reading runs in a child process as nobody, who may enter the folder but not read the file.
    chmodSync(dir, 0o755)
    chownSync(file, 0, 0)
    // tsx keeps its cache under TMPDIR: a folder of nobody's inside this test's folder, removed with it.
    const scratch = join(dir, 'tmp')
    mkdirSync(scratch)
    chownSync(scratch, 65534, 65534)
    const child = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', fileURLToPath(new URL('children/read-as.ts', import.meta.url)), file], {
      uid: 65534,
      gid: 65534,
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, TMPDIR: scratch },
    })
    expect(child.stderr).toBe('')
    const outcome = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}')
    expect(outcome).toMatchObject({ name: 'SecretReferenceError', reason: 'unreadable-file' })
    expect(outcome.message).toContain('EACCES')
    expect(outcome.message).not.toContain(VALUE)
  })

  it('reads through readFile when given one, keeping its refusal and hiding other failures', async () => {
    const paths: string[] = []
    const readFile = async (path: string) => {
      paths.push(path)
      if (path.endsWith('boom')) throw new Error(`cannot read: content was ${VALUE}`)
      if (path.endsWith('big')) throw new SecretReferenceError(fileRef(path), 'too-large', 'too big')
      return VALUE
    }
    await expect(resolveReference(fileRef('rel/key'), { env: {}, baseDir: '/base', readFile })).resolves.toBe(VALUE)
    expect(paths).toEqual(['/base/rel/key'])
    const boom = await refusal(resolveReference(fileRef('/x/boom'), { env: {}, readFile }))
    expect([boom.reason, boom.cause]).toEqual(['unreadable-file', undefined])
    expect(await refusal(resolveReference(fileRef('big'), { env: {}, baseDir: '/b', readFile }))).toMatchObject({
      reason: 'too-large',
      reference: { kind: 'file', name: 'big' },
    })
  })
})

describe('resolveReference: !secret', () => {
  it('takes the store\'s value and says which name the store lacks', async () => {
    const store = new MapStore()
    await store.set('web-search.apiKey', VALUE)
    await expect(resolveReference({ kind: 'secret', name: 'web-search.apiKey' }, { store, env: {} })).resolves.toBe(VALUE)
    const missing = await refusal(resolveReference({ kind: 'secret', name: 'web-search.other' }, { store, env: {} }))
    expect(missing).toMatchObject({ reason: 'missing-name', reference: { kind: 'secret', name: 'web-search.other' } })
    expect(missing.message).toContain('!secret web-search.other')
  })

  it('refuses when there is no store or the store cannot answer, keeping only our own errors as the cause', async () => {
    const ref: SecretReference = { kind: 'secret', name: 'web-search.apiKey' }
    expect((await refusal(resolveReference(ref, { env: {} }))).reason).toBe('store-unavailable')
    const unavailable = new SecretStoreUnavailableError('dsh-settings:/x', 'locked')
    const locked = Object.assign(new MapStore(), { get: async () => Promise.reject(unavailable) })
    expect(await refusal(resolveReference(ref, { store: locked, env: {} }))).toMatchObject({ reason: 'store-unavailable', cause: unavailable })
    const leaky = Object.assign(new MapStore(), { get: async () => Promise.reject(new Error(`bad yaml near apiKey: ${VALUE}`)) })
    const leaked = await refusal(resolveReference(ref, { store: leaky, env: {} }))
    expect([leaked.reason, leaked.cause]).toEqual(['store-unavailable', undefined])
  })
})
