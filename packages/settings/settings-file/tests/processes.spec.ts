/**
 * The file provider across real processes: child writers (tests/children/*.ts, run through tsx)
 * share one document with each other and with this process.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SettingsConflictError } from 'dsh-settings'
import FileSettingsProvider, { SettingsLockTimeoutError } from 'dsh-settings-file'
import { endChildren } from 'dsh-testing'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const childScript = (name: string) => fileURLToPath(new URL(`./children/${name}.ts`, import.meta.url))

/** A spawned child script speaking the `@@ready` / `go` / `@@result` protocol of children/protocol.ts. */
interface Child {
  process: ChildProcess
  pid: number
  ready: Promise<unknown>
  result: Promise<unknown>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  go(): void
}

let dir: string
let file: string
const spawned: ChildProcess[] = []
const fibers: Fiber[] = []

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-processes-')))
  file = join(dir, 'settings.yaml')
})

afterEach(async () => {
  await endChildren(spawned)
  for (const fiber of fibers.splice(0)) await fiber.dispose()
  await rm(dir, { recursive: true, force: true })
})

function startChild(script: string, args: string[]): Child {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', childScript(script), ...args], {
    cwd: PACKAGE_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  spawned.push(child)
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => void (stderr += chunk))
  // Writing `go` to a child that already died must not crash the test process.
  child.stdin!.on('error', () => {})
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  const messages = new Map<string, { resolve: (value: unknown) => void; promise: Promise<unknown> }>()
  for (const tag of ['ready', 'result']) {
    let resolve!: (value: unknown) => void
    const promise = new Promise<unknown>((r) => (resolve = r))
    messages.set(tag, { resolve, promise })
  }
  const lines = createInterface({ input: child.stdout! })
  lines.on('line', (line) => {
    const match = /^@@(ready|result)(?: (.*))?$/.exec(line)
    if (match) messages.get(match[1]!)!.resolve(match[2] === undefined ? undefined : JSON.parse(match[2]))
  })
  // Every line the child printed has been read once its stdout closed.
  const linesRead = new Promise<void>((resolve) => lines.once('close', resolve))
  const orFailure = (promise: Promise<unknown>, what: string) =>
    Promise.race([
      promise,
      Promise.all([exited, linesRead]).then(([{ code, signal }]) => {
        throw new Error(`child ${script} (pid ${child.pid}) exited (code ${code}, signal ${signal}) before ${what}:\n${stderr}`)
      }),
    ])
  const ready = orFailure(messages.get('ready')!.promise, 'ready')
  const result = orFailure(messages.get('result')!.promise, 'its result')
  // A settled race leaves the loser pending; keep unhandled-rejection noise out.
  ready.catch(() => {})
  result.catch(() => {})
  return {
    process: child,
    pid: child.pid!,
    ready,
    result,
    exited,
    go: () => void child.stdin!.end('go\n'),
  }
}

/** Start children, wait until all are set up, then release them together. */
async function startTogether(script: string, argsOf: (index: number) => string[], count: number): Promise<Child[]> {
  const children = Array.from({ length: count }, (_, index) => startChild(script, argsOf(index)))
  await Promise.all(children.map((child) => child.ready))
  for (const child of children) child.go()
  return children
}

/** Each child's result, after it exited by itself with code 0. */
async function resultsOf<T>(children: Child[]): Promise<T[]> {
  const results = (await Promise.all(children.map((child) => child.result))) as T[]
  const exits = await Promise.all(children.map((child) => child.exited))
  expect(exits).toEqual(children.map(() => ({ code: 0, signal: null })))
  return results
}

/** Boot the provider in this process and register `ns` with `schema`. */
async function bootHere<T>(ns: string, schema: Schema<T>, config: Partial<FileSettingsProvider.Config> = {}) {
  const root = new Context()
  const fiber = root.plugin(FileSettingsProvider, { path: file, watch: false, ...config })
  fibers.push(fiber)
  await fiber
  let ctx!: Context
  await root.inject(['settings'], (inner) => {
    ctx = inner
    inner.settings.register(ns, schema)
  })
  const revision = () => ctx.settings.describe().find((entry) => entry.ns === ns)!.revision
  const dispose = async () => {
    fibers.splice(fibers.indexOf(fiber), 1)
    await fiber.dispose()
  }
  return { ctx, fiber, revision, dispose }
}

async function readDocument(): Promise<Record<string, any>> {
  return parse(await readFile(file, 'utf8')) as Record<string, any>
}

/** Files a writer or a lock could have left behind: temp siblings, documents set aside, lock files, moved-aside stale locks. */
async function leftovers(): Promise<string[]> {
  const beside = (await readdir(dir)).filter((name) => /\.(tmp|aside|lock|stale)$/.test(name) || name.includes('.lock.'))
  // A writer's standing lock record lives in history/ (hidden, named like its temps).
  const inHistory = existsSync(join(dir, 'history')) ? (await readdir(join(dir, 'history'))).filter((name) => name.startsWith('.')) : []
  return [...beside, ...inHistory.map((name) => `history/${name}`)]
}

/** Start a writer that SIGKILLs itself at `step` of its first write; what it leaves is a whole document, old or new, never a mix. */
async function killedAt(step: string): Promise<void> {
  const child = startChild('step-killer', [file, 'victim', step])
  await child.ready
  child.go()
  expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' })
  const after = await readDocument()
  expect(after.other).toEqual({ n: 5 })
  expect([0, 1]).toContain(after.victim.n)
}

/** The next writer gets through with no manual step, keeps the document's other bytes, and leaves nothing behind once disposed. */
async function nextWriterGetsThrough(): Promise<void> {
  const here = await bootHere('victim', Schema.object({ n: Schema.natural().default(0) }), { lockTimeoutMs: 2000 })
  await here.ctx.settings.update('victim', { n: 2 })
  await here.dispose()
  expect(await readDocument()).toEqual({ victim: { n: 2 }, other: { n: 5 } })
  expect(await readFile(file, 'utf8')).toContain('# kept')
  expect(await leftovers()).toEqual([])
}

const WRITERS = 4
const UPDATES = 25

describe('several processes writing one document', () => {
  it('keeps every update of writers on distinct namespaces of one YAML file (no update lost)', { timeout: 60_000 }, async () => {
    await writeFile(file, '# shared by several writers\nuntouched:\n  keep: me # a comment\n')
    const children = await startTogether('writer', (i) => [file, `writer-${i}`, String(UPDATES)], WRITERS)
    const results = await resultsOf<{ pid: number; written: number }>(children)
    expect(results.map((result) => result.written)).toEqual(children.map(() => UPDATES))

    const document = await readDocument()
    const expected = Object.fromEntries(Array.from({ length: UPDATES }, (_, i) => [`u${i}`, i]))
    for (let i = 0; i < WRITERS; i++) expect(document[`writer-${i}`]).toEqual({ values: expected })
    expect(document.untouched).toEqual({ keep: 'me' })
    const text = await readFile(file, 'utf8')
    expect(text.startsWith('# shared by several writers\nuntouched:\n  keep: me # a comment\n')).toBe(true)
    expect(await leftovers()).toEqual([])
  })

  it('refuses every stale write on one namespace and loses no increment', { timeout: 60_000 }, async () => {
    const SUCCESSES = 15
    const children = await startTogether('counter', () => [file, 'counter', String(SUCCESSES)], WRITERS)
    const results = await resultsOf<{ pid: number; written: number[]; conflicts: number }>(children)
    const written = results.flatMap((result) => result.written)
    expect(written).toHaveLength(WRITERS * SUCCESSES)
    // A stale write that slipped through would store a value some other write already stored.
    expect([...written].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS * SUCCESSES }, (_, i) => i + 1))
    // Each writer's own values only ever grow.
    for (const result of results) expect(result.written).toEqual([...result.written].sort((a, b) => a - b))
    expect((await readDocument()).counter).toEqual({ n: WRITERS * SUCCESSES })
    expect(await leftovers()).toEqual([])
  })

  it('refuses a write whose expectedRevision predates another process write', { timeout: 30_000 }, async () => {
    const here = await bootHere('counter', Schema.object({ n: Schema.natural().default(0) }))
    await here.ctx.settings.update('counter', { n: 1 })
    const stale = here.revision()

    const [child] = await startTogether('counter', () => [file, 'counter', '1'], 1)
    expect(((await resultsOf<{ written: number[] }>([child!]))[0]!).written).toEqual([2])

    const error = await here.ctx.settings.update('counter', { n: 100 }, stale).then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(SettingsConflictError)
    expect(error).toMatchObject({ code: 'SETTINGS_CONFLICT', ns: 'counter', expected: stale })
    expect((await readDocument()).counter).toEqual({ n: 2 })
    // The refused write folded in the other process's value: a retry on the fresh revision succeeds.
    expect(here.ctx.settings.get('counter')).toEqual({ n: 2 })
    await here.ctx.settings.update('counter', { n: 3 }, here.revision())
    expect((await readDocument()).counter).toEqual({ n: 3 })
  })

  it('lets the next writer through once the process holding the lock is SIGKILLed, with no manual step', { timeout: 30_000 }, async () => {
    await writeFile(file, 'victim:\n  n: 0\n')
    const lockPath = `${await realpath(file)}.lock`
    const holder = startChild('lock-holder', [lockPath, file])
    expect(await holder.ready).toEqual({ pid: holder.pid })
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid: holder.pid })

    const here = await bootHere('victim', Schema.object({ n: Schema.natural().default(0) }), { lockTimeoutMs: 2000 })
    // While the holder lives, its lock is respected.
    const error = await here.ctx.settings.update('victim', { n: 1 }).then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(SettingsLockTimeoutError)
    expect(error).toMatchObject({ code: 'SETTINGS_LOCK_TIMEOUT', file, owner: { pid: holder.pid } })
    expect(await readFile(file, 'utf8')).toBe('victim:\n  n: 0\n')

    holder.process.kill('SIGKILL')
    expect(await holder.exited).toEqual({ code: null, signal: 'SIGKILL' })
    // The dead holder's lock file is still there: nothing but the next writer clears it.
    expect(existsSync(lockPath)).toBe(true)

    await here.ctx.settings.update('victim', { n: 2 })
    expect(await readFile(file, 'utf8')).toBe('victim:\n  n: 2\n')
    // The caller hears its outcome at commit, inside the critical section; the lock is released
    // just after, and disposal waits for that.
    await here.dispose()
    expect(existsSync(lockPath)).toBe(false)
    expect((await readdir(dir)).sort()).toEqual(['history', 'settings.schema.json', 'settings.yaml'])
  })

  it.each([
    'lock:open',
    'lock:flock',
    'lock:verify',
    'lock:write-record',
    'read',
    'check',
    'keep',
    'rename',
    'renamed',
    'lock:release',
  ])('recovers from a writer SIGKILLed at step %s: the document parses, the next writer gets through, nothing stays behind', { timeout: 30_000 }, async (step) => {
    await writeFile(file, '# kept\nvictim:\n  n: 0\nother:\n  n: 5\n')
    await killedAt(step)
    await nextWriterGetsThrough()
  })

  it('puts back the document a writer SIGKILLed inside its replace had set aside: the next host reads it, the next write keeps it', { timeout: 30_000 }, async () => {
    const original = '# kept\nvictim:\n  n: 3\nother:\n  n: 5\n'
    await writeFile(file, original)
    const child = startChild('step-killer', [file, 'victim', 'aside'])
    await child.ready
    child.go()
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' })
    // Killed with the document set aside and the new version not yet linked: no document, one aside holding the old text.
    expect(existsSync(file)).toBe(false)
    const asides = (await readdir(dir)).filter((name) => name.endsWith('.aside'))
    expect(asides).toHaveLength(1)
    expect(await readFile(join(dir, asides[0]!), 'utf8')).toBe(original)
    // A host starting now reads the document, not an empty one: its read takes the dead writer's lock over and puts the document back.
    const here = await bootHere('victim', Schema.object({ n: Schema.natural().default(0) }), { lockTimeoutMs: 2000 })
    expect(here.ctx.settings.get('victim')).toEqual({ n: 3 })
    expect(await readFile(file, 'utf8')).toBe(original)
    await here.dispose()
    await nextWriterGetsThrough()
  })

  it('leaves no temp or lock files once all writers have finished and the providers are disposed', { timeout: 60_000 }, async () => {
    const here = await bootHere('local', Schema.object({ values: Schema.dict(Schema.natural()) }))
    const children = await startTogether('writer', (i) => [file, `writer-${i}`, '15'], 3)
    // This process writes alongside them: sequential writes and a burst that group-commits.
    for (let i = 0; i < 10; i++) await here.ctx.settings.update('local', { values: { [`s${i}`]: i } })
    await Promise.all(Array.from({ length: 10 }, (_, i) => here.ctx.settings.update('local', { values: { [`b${i}`]: i } })))
    await resultsOf(children)
    await here.dispose()

    expect((await readdir(dir)).sort()).toEqual(['history', 'settings.schema.json', 'settings.yaml'])
    const document = await readDocument()
    expect(Object.keys(document).sort()).toEqual(['local', 'writer-0', 'writer-1', 'writer-2'])
    expect(Object.keys(document.local.values)).toHaveLength(20)
    for (let i = 0; i < 3; i++) expect(Object.keys(document[`writer-${i}`].values)).toHaveLength(15)
  })
})
