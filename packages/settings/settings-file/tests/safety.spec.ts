/**
 * The file provider's other guards: read-only documents and folders stay untouched, every replaced
 * version is kept (and bounded), leftovers of dead writers are removed, nothing stays behind.
 */
import { chmod, mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SettingsStoreError, type SettingsScope } from 'dsh-settings'
import { bootFile, fileFixture } from './file-harness.ts'
import { deadPid } from './processes-helpers.ts'
import { hostTag } from '../src/store/leftovers.ts'
import { hostFacts, processStartTime } from '../src/store/owner.ts'
import { historyStamp } from '../src/store/history.ts'
import { acquireLock } from '../src/store/lock.ts'

const schema = Schema.object({ n: Schema.natural().default(0) })

const fx = fileFixture()
let file: string

beforeEach(() => {
  file = join(fx.dir, 'settings.yaml')
})
afterEach(async () => {
  // Runs before the fixture's cleanup (after-hooks run last-registered first): a test may leave the folder read-only.
  await chmod(fx.dir, 0o700).catch(() => {})
})

async function boot(config: Record<string, unknown> = {}): Promise<SettingsScope<{ n: number }>> {
  fx.harness = await bootFile({ path: file, watch: false, ...config })
  let scope!: SettingsScope<{ n: number }>
  await fx.harness.root.inject(['settings'], (ctx) => {
    scope = ctx.settings.register('counter', schema)
  })
  return scope
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error)

/** Queue a write while another writer holds the lock, run `meanwhile`, then let the write reach the store. */
async function writeAfter(write: () => Promise<unknown>, meanwhile: () => Promise<void>): Promise<unknown> {
  const held = await acquireLock(`${file}.lock`, { timeoutMs: 1000, file })
  const outcome = failureOf(write())
  await meanwhile()
  await held.release()
  return outcome
}

describe('a read-only document', () => {
  it('refuses writes at once when it is read-only at the call, leaving bytes and mode (also as root)', async () => {
    const text = '# mine, hands off\ncounter:\n  n: 1\n'
    await writeFile(file, text)
    await chmod(file, 0o444)
    const scope = await boot()
    expect(fx.harness!.settings.writable).toBe(false)
    expect(await failureOf(scope.update({ n: 2 }))).toMatchObject({ name: 'SettingsUnavailableError', code: 'SETTINGS_READ_ONLY' })
    expect(await readFile(file, 'utf8')).toBe(text)
    expect((await stat(file)).mode & 0o777).toBe(0o444)
  })

  it('refuses a write that reaches the store after the document turned read-only, naming the file and why', async () => {
    await writeFile(file, 'counter:\n  n: 1\n')
    const scope = await boot()
    const text = await readFile(file, 'utf8')
    const error = await writeAfter(() => scope.update({ n: 2 }), () => chmod(file, 0o444))
    expect(error).toMatchObject({ name: 'SettingsStoreError', code: 'SETTINGS_READ_ONLY', store: file })
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toContain('0444')
    expect(await readFile(file, 'utf8')).toBe(text)
    expect((await stat(file)).mode & 0o777).toBe(0o444)
  })

  it('writes again once the owner may write, keeping the mode the user chose', async () => {
    await writeFile(file, 'counter:\n  n: 1\n')
    await chmod(file, 0o444)
    const scope = await boot()
    await expect(scope.update({ n: 2 })).rejects.toMatchObject({ code: 'SETTINGS_READ_ONLY' })
    await chmod(file, 0o640)
    expect(fx.harness!.settings.writable).toBe(true)
    await scope.update({ n: 2 })
    expect(await readFile(file, 'utf8')).toBe('counter:\n  n: 2\n')
    expect((await stat(file)).mode & 0o777).toBe(0o640)
  })

  it('refuses writes while its folder gives its owner no write permission, and recovers after', async () => {
    await writeFile(file, 'counter:\n  n: 1\n')
    const scope = await boot()
    const error = await writeAfter(() => scope.update({ n: 2 }), () => chmod(fx.dir, 0o555))
    expect(error).toMatchObject({ name: 'SettingsStoreError', code: 'SETTINGS_READ_ONLY' })
    expect((error as Error).message).toContain(`folder ${fx.dir}`)
    expect(fx.harness!.settings.writable).toBe(false)
    expect(await readFile(file, 'utf8')).toBe('counter:\n  n: 1\n')
    await chmod(fx.dir, 0o700)
    await scope.update({ n: 2 })
    expect(await readFile(file, 'utf8')).toBe('counter:\n  n: 2\n')
  })
})

describe('how refusals read to a caller', () => {
  it('refuses a write while the document does not parse as rejected, with the position and no document text', async () => {
    await writeFile(file, 'counter:\n  n: 1\n')
    const scope = await boot()
    await writeFile(file, 'counter:\n  n: 1\n   token: s3cret\n')
    const error = await failureOf(scope.update({ n: 2 }))
    expect(error).toBeInstanceOf(SettingsStoreError)
    expect(error).toMatchObject({ name: 'SettingsDocumentError', code: 'SETTINGS_DOCUMENT', refusal: 'rejected', store: file, position: { line: 2 } })
    expect((error as Error).message).not.toContain('s3cret')
  })

  it('refuses a write while another live process holds the lock as unavailable, naming its pid', async () => {
    await writeFile(file, 'counter:\n  n: 1\n')
    const scope = await boot({ lockTimeoutMs: 50 })
    const held = await acquireLock(`${file}.lock`, { timeoutMs: 1000, file })
    try {
      const error = await failureOf(scope.update({ n: 2 }))
      expect(error).toBeInstanceOf(SettingsStoreError)
      expect(error).toMatchObject({ name: 'SettingsLockTimeoutError', code: 'SETTINGS_LOCK_TIMEOUT', refusal: 'unavailable' })
      expect((error as Error).message).toContain(`pid ${process.pid}`)
    } finally {
      await held.release()
    }
  })
})

describe('history', () => {
  it('keeps every replaced version, owner-only, named by time', async () => {
    await writeFile(file, '# v0\ncounter:\n  n: 0\n', { mode: 0o644 })
    const scope = await boot()
    for (let n = 1; n <= 3; n++) await scope.update({ n })
    // A kept version is sealed once its write is answered; asking for the history waits for that.
    await fx.harness!.settings.history()
    const listed = await readdir(join(fx.dir, 'history'))
    // Beside the versions and the journal, nothing hidden but a lock record this writer may keep standing while the host runs.
    for (const name of listed.filter((name) => name.startsWith('.'))) expect(name).toMatch(/^\.settings\.yaml\.lock\.[0-9a-f]{8}\.\d+\.(\d+|x)\.[0-9a-f]{12}\.tmp$/)
    const names = listed.filter((name) => !name.endsWith('.journal.jsonl') && !name.startsWith('.')).sort()
    expect(names).toHaveLength(3)
    for (const name of names) expect(name).toMatch(/^settings\.\d{8}T\d{9}Z\.[0-9a-f]{8}\.yaml$/)
    const texts = await Promise.all(names.map((name) => readFile(join(fx.dir, 'history', name), 'utf8')))
    expect(texts).toEqual(['# v0\ncounter:\n  n: 0\n', '# v0\ncounter:\n  n: 1\n', '# v0\ncounter:\n  n: 2\n'])
    for (const name of names) expect((await stat(join(fx.dir, 'history', name))).mode & 0o777).toBe(0o600)
    expect((await stat(join(fx.dir, 'history'))).mode & 0o777).toBe(0o700)
    // The document keeps its own mode.
    expect((await stat(file)).mode & 0o777).toBe(0o644)
  })

  it('keeps only the newest versions and none older than maxAgeDays', async () => {
    await writeFile(file, 'counter:\n  n: 0\n')
    await mkdir(join(fx.dir, 'history'), { mode: 0o700 })
    const ancient = join(fx.dir, 'history', `settings.${historyStamp(new Date(Date.now() - 40 * 86_400_000))}.0badc0de.yaml`)
    await writeFile(ancient, 'counter:\n  n: -1\n')
    const unrelated = join(fx.dir, 'history', 'notes.txt')
    await writeFile(unrelated, 'mine')
    const scope = await boot({ history: { keep: 2, maxAgeDays: 30 } })
    for (let n = 1; n <= 5; n++) await scope.update({ n })
    // Pruning follows each answered write at once; asking for the history waits for it.
    await fx.harness!.settings.history()
    const names = (await readdir(join(fx.dir, 'history'))).filter((name) => name !== 'notes.txt' && !name.endsWith('.journal.jsonl') && !name.startsWith('.')).sort()
    expect(names).toHaveLength(2)
    expect(await Promise.all(names.map((name) => readFile(join(fx.dir, 'history', name), 'utf8')))).toEqual(['counter:\n  n: 3\n', 'counter:\n  n: 4\n'])
    expect(await readFile(unrelated, 'utf8')).toBe('mine')
  })

  it('finishes sealing, pruning and the journal before disposal settles, for writes answered just before it', async () => {
    await writeFile(file, 'counter:\n  n: 0\n', { mode: 0o644 })
    const scope = await boot({ history: { keep: 2, maxAgeDays: 30 } })
    for (let n = 1; n <= 4; n++) await scope.update({ n })
    await fx.harness!.dispose()
    fx.harness = undefined
    const names = (await readdir(join(fx.dir, 'history'))).sort()
    const kept = names.filter((name) => !name.endsWith('.journal.jsonl'))
    expect(kept).toHaveLength(2)
    for (const name of kept) expect((await stat(join(fx.dir, 'history', name))).mode & 0o777).toBe(0o600)
    const journal = (await readFile(join(fx.dir, 'history', 'settings.journal.jsonl'), 'utf8')).trimEnd().split('\n')
    expect(journal).toHaveLength(4)
  })

  it('keeps nothing with history: false, and leaves no witness behind after disposal', async () => {
    await writeFile(file, 'counter:\n  n: 0\n')
    const scope = await boot({ history: false })
    await scope.update({ n: 1 })
    await fx.harness!.dispose()
    fx.harness = undefined
    expect((await readdir(fx.dir)).sort()).toEqual(['settings.schema.json', 'settings.yaml'])
  })
})

describe('leftovers of writers that died', () => {
  it('are removed by the next writer; a live writer\'s temp file is left alone', async () => {
    await writeFile(file, 'counter:\n  n: 0\n')
    const facts = hostFacts()
    const dead = await deadPid((child) => child)
    const deadTemp = `.settings.yaml.${hostTag(facts)}.${dead}.x.0123456789ab.tmp`
    const deadLockTemp = `.settings.yaml.lock.${hostTag(facts)}.${dead}.x.0123456789ab.tmp`
    const liveTemp = `.settings.yaml.${hostTag(facts)}.${process.pid}.${processStartTime(process.pid)}.0123456789ab.tmp`
    const oldAnonymous = `.settings.yaml.${'ab'.repeat(8)}.tmp`
    for (const name of [deadTemp, deadLockTemp, liveTemp, oldAnonymous]) await writeFile(join(fx.dir, name), 'counter:\n  n: 99\n  token: a copy of a secret\n')
    const old = new Date(Date.now() - 3600_000)
    await utimes(join(fx.dir, oldAnonymous), old, old)
    await writeFile(`${file}.lock.claim-abc`, '{}')
    const scope = await boot()
    await scope.update({ n: 1 })
    expect((await readdir(fx.dir)).sort()).toEqual([liveTemp, 'history', 'settings.yaml'].sort())
  })

  it('are looked for again by a writer that takes over a dead owner\'s lock, and within a second otherwise', async () => {
    await writeFile(file, 'counter:\n  n: 0\n')
    const scope = await boot()
    await scope.update({ n: 1 })
    const facts = hostFacts()
    const dead = await deadPid((child) => child)
    const deadTemp = (random: string) => `.settings.yaml.${hostTag(facts)}.${dead}.x.${random}.tmp`
    const listing = async () => (await readdir(fx.dir)).filter((name) => name !== 'settings.schema.json').sort()

    // A writer that died holding the lock, with its temp beside it: the next write takes the lock over and sweeps.
    await writeFile(join(fx.dir, deadTemp('0123456789ab')), 'counter:\n  n: 99\n')
    await writeFile(`${file}.lock`, JSON.stringify({ ...facts, pid: dead, startTime: '1', nonce: 'dead0001' }))
    await scope.update({ n: 2 })
    expect(await listing()).toEqual(['history', 'settings.yaml'])

    // One that died before it held the lock (its record's temp only): swept by a write a second later.
    await writeFile(join(fx.dir, `.settings.yaml.lock.${hostTag(facts)}.${dead}.x.ba9876543210.tmp`), '{}')
    await new Promise((resolve) => setTimeout(resolve, 1100))
    await scope.update({ n: 3 })
    expect(await listing()).toEqual(['history', 'settings.yaml'])
    expect(await readFile(file, 'utf8')).toBe('counter:\n  n: 3\n')
  })
})
