/**
 * What the file provider must do on any file system a user may keep the
 * document on, run through the public API on a mounted folder: start, several
 * writes, a hand edit reloaded, history kept and read back, a second provider
 * process writing beside this one, and nothing left beside the document.
 * Used by exfat.spec.ts and tmpfs.spec.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import Schema from 'schemastery'
import { expect } from 'vitest'
import { load } from 'js-yaml'
import { plugWithSettings } from 'dsh-testing'
import { bootFile, eventually, type FileHarness } from './file-harness.ts'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const WRITER = fileURLToPath(new URL('./children/writer.ts', import.meta.url))

const Search = Schema.object({
  engine: Schema.union(['bing', 'google', 'ddg']).default('bing'),
  limit: Schema.number().default(10),
})

/** Writes the second process makes. */
const OTHER_WRITES = 5

/** The document's data as any YAML reader sees it. */
const documentAt = async (path: string) => load(await readFile(path, 'utf8')) as Record<string, any>

/**
 * Start tests/children/writer.ts on `path` (namespace `other`, {@link OTHER_WRITES} updates);
 * resolves with its result once it wrote, rejects with its stderr when it failed.
 */
function otherProcess(path: string, started: ChildProcess[]): { go(): void; ready: Promise<void>; result: Promise<{ written: number }> } {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', WRITER, path, 'other', String(OTHER_WRITES)], { cwd: PACKAGE_DIR, stdio: ['pipe', 'pipe', 'pipe'] })
  started.push(child)
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => void (stderr += chunk))
  child.stdin!.on('error', () => {})
  const lines = createInterface({ input: child.stdout! })
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the second process exited (code ${code}): ${stderr.trim().split('\n').slice(-5).join(' / ')}`))))
  const line = (tag: string) => Promise.race([new Promise<string>((resolve) => lines.on('line', (text) => text.startsWith(`@@${tag}`) && resolve(text.slice(tag.length + 2).trim()))), exited])
  return {
    go: () => child.stdin!.write('go\n'),
    ready: line('ready').then(() => undefined),
    result: line('result').then((text) => JSON.parse(text) as { written: number }),
  }
}

/** Kill what {@link providerJourney} started and dispose its provider; safe to call twice. */
export interface JourneyTrash {
  harness?: FileHarness
  children: ChildProcess[]
}

/** End the journey's provider and child processes (by pid); call before unmounting. */
export async function endJourney(trash: JourneyTrash): Promise<void> {
  for (const child of trash.children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await gone
    }
  }
  await trash.harness?.dispose()
  trash.harness = undefined
}

/** Run the journey in `dir` (see the module comment); `trash` collects what to end if it throws. */
export async function providerJourney(dir: string, trash: JourneyTrash): Promise<void> {
  const path = join(dir, 'settings.yaml')
  await writeFile(path, '# kept by hand\nsearch:\n  limit: 5\n')
  trash.harness = await bootFile({ path, debounceMs: 20, recheckMs: 200, lockTimeoutMs: 15_000 })
  const { settings, root } = trash.harness
  const { value: handle } = await plugWithSettings(root, (ctx) => ctx.settings.register('search', Search))
  expect(handle.get().limit).toBe(5)

  // Several writes, each replacing the document (and keeping the one it replaced).
  for (const limit of [6, 7, 8]) await handle.update({ limit })
  await handle.update({ engine: 'google' })
  expect(await documentAt(path)).toMatchObject({ search: { limit: 8, engine: 'google' } })
  expect(await readFile(path, 'utf8')).toContain('# kept by hand')

  // A hand edit saved the way editors do (a temp file renamed over the document) is reloaded.
  const edited = (await readFile(path, 'utf8')).replace('limit: 8', 'limit: 42')
  await writeFile(join(dir, '.settings.yaml.swp'), edited)
  await rename(join(dir, '.settings.yaml.swp'), path)
  await eventually(() => expect(handle.get().limit).toBe(42))

  // The next write keeps the hand-edited version; history lists and reads it back.
  await handle.update({ engine: 'ddg' })
  const versions = await settings.history()
  expect(versions.length).toBeGreaterThanOrEqual(5)
  expect(versions[0]!.by).toEqual(['outside'])
  expect(await settings.historyDocument(versions[0]!.id)).toEqual({ search: { limit: 42, engine: 'google' } })

  // A second provider process writes its own section while this one writes too: both sets of writes land.
  const other = otherProcess(path, trash.children)
  await other.ready
  other.go()
  for (const limit of [43, 44, 45]) await handle.update({ limit })
  expect((await other.result).written).toBe(OTHER_WRITES)
  const document = await documentAt(path)
  expect(document.search).toEqual({ limit: 45, engine: 'ddg' })
  expect(document.other).toEqual({ values: Object.fromEntries(Array.from({ length: OTHER_WRITES }, (_, i) => [`u${i}`, i])) })
  await eventually(() => expect(handle.get()).toMatchObject({ limit: 45, engine: 'ddg' }))

  // Once every provider has stopped, nothing but the document, its editor schema and history/ is left.
  await endJourney(trash)
  expect((await readdir(dir)).filter((name) => !['settings.yaml', 'settings.schema.json', 'history'].includes(name))).toEqual([])
  expect((await readdir(join(dir, 'history'))).filter((name) => /\.tmp$|\.lock|\.claim-|\.aside/.test(name))).toEqual([])
}
