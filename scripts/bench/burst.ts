/**
 * Measurement 3: 1,000 concurrent `update()`s across 100 namespaces of one
 * YAML document (file provider, `watch: false`): the wall time until every
 * caller has its outcome, and how many file writes group commit used for them
 * (target ≤ 20 writes).
 *
 * Counting writes: every transaction that stores a document ends in exactly
 * one placement of a new file at the document's name: a `link` of its temp
 * file once the old document is set aside (`replaceIfSame` in
 * dsh-settings-file, a synchronous `linkSync`), or for a new document a
 * `link` through `fs/promises`. The bench counts successful links and renames
 * whose destination is the document, except those from a set-aside name (a
 * document put back, not written). It wraps those calls on the CommonJS `fs`
 * and `fs/promises` objects in-process and calls
 * `module.syncBuiltinESMExports()`, which updates the live bindings
 * (`import { renameSync } from 'node:fs'`) the provider holds. That counts
 * exactly, at the moment it happens, with no dependence on the timing or
 * coalescing of file system events (a watcher may merge two writes that land
 * close together). The spy proves itself: a burst that changed the document
 * but counted zero writes fails the bench instead of reporting a flattering
 * number.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module'
import type { linkSync as linkSyncType, renameSync as renameSyncType } from 'node:fs'
import type { link as linkType, rename as renameType } from 'node:fs/promises'
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import FileSettingsProvider from 'dsh-settings-file'
import type { SettingsScope } from 'dsh-settings'
import { bootProvider, mount, namespaces, PluginSchema, removeTemp, tempDir, yamlDocument, type Booted, type PluginSettings } from './harness.ts'
import { now } from './stats.ts'

export const UPDATES = 1000
export const NAMESPACES = 100

/** The CommonJS `fs/promises` and `fs` objects, whose properties are writable (the ESM namespaces' are not). */
const fsPromises = createRequire(import.meta.url)('node:fs/promises') as { rename: typeof renameType; link: typeof linkType }
const fsSync = createRequire(import.meta.url)('node:fs') as { renameSync: typeof renameSyncType; linkSync: typeof linkSyncType }

/** Count the new versions placed at `target` (see the module comment) until `restore()`. */
export function spyWrites(target: string): { count(): number; restore(): void } {
  const original = { rename: fsPromises.rename, link: fsPromises.link, renameSync: fsSync.renameSync, linkSync: fsSync.linkSync }
  let count = 0
  const path = (value: Parameters<typeof renameType>[1]) => resolve(value instanceof URL ? fileURLToPath(value) : String(value))
  const counts = (from: Parameters<typeof renameType>[0], to: Parameters<typeof renameType>[1]) => path(to) === target && !path(from).endsWith('.aside')
  fsPromises.rename = async (from, to) => {
    await original.rename(from, to)
    if (counts(from, to)) count++
  }
  fsPromises.link = async (from, to) => {
    await original.link(from, to)
    if (counts(from, to)) count++
  }
  fsSync.renameSync = (from, to) => {
    original.renameSync(from, to)
    if (counts(from, to)) count++
  }
  fsSync.linkSync = (from, to) => {
    original.linkSync(from, to)
    if (counts(from, to)) count++
  }
  syncBuiltinESMExports()
  return {
    count: () => count,
    restore() {
      Object.assign(fsPromises, { rename: original.rename, link: original.link })
      Object.assign(fsSync, { renameSync: original.renameSync, linkSync: original.linkSync })
      syncBuiltinESMExports()
    },
  }
}

/** The value update `j` of run `run` writes, and what each namespace must hold after the run. */
const valueOf = (run: number, j: number) => run * UPDATES + j + 1
const finalOf = (run: number, nsIndex: number) => valueOf(run, UPDATES - NAMESPACES + nsIndex)

export interface BurstRun {
  ms: number
  writes: number
}

/** Our side of the burst: one provider on one document, reused across runs. */
export class OursBurst {
  private dir!: string
  private file!: string
  private booted!: Booted
  private handles!: SettingsScope<PluginSettings>[]
  private spy!: ReturnType<typeof spyWrites>
  private readonly names = namespaces(NAMESPACES)
  private runs = 0

  async setup(): Promise<void> {
    this.dir = await tempDir('burst')
    this.file = resolve(this.dir, 'settings.yaml')
    await writeFile(this.file, yamlDocument(this.names), { mode: 0o600 })
    this.spy = spyWrites(this.file)
    this.booted = await bootProvider(FileSettingsProvider, { path: this.file, watch: false })
    const { value } = await mount(this.booted.root, (ctx) => this.names.map((ns) => ctx.settings.register(ns, PluginSchema)))
    this.handles = value
  }

  /** Fire 1,000 updates at once (update j goes to namespace j mod 100) and wait for every outcome. */
  async run(): Promise<BurstRun> {
    const run = this.runs++
    const before = this.spy.count()
    const start = now()
    const writes: Promise<void>[] = []
    for (let j = 0; j < UPDATES; j++) writes.push(this.handles[j % NAMESPACES]!.update({ counter: valueOf(run, j) }))
    await Promise.all(writes)
    const ms = now() - start
    const used = this.spy.count() - before
    this.handles.forEach((handle, index) => {
      if (handle.get().counter !== finalOf(run, index)) throw new Error(`burst run ${run}: ${this.names[index]} holds ${handle.get().counter}`)
    })
    if (used === 0) throw new Error('the write spy counted no document write for a burst that changed the document')
    return { ms, writes: used }
  }

  /** Check the document on disk with a fresh provider: the last run's values must all be there. */
  async verifyOnDisk(): Promise<void> {
    const run = this.runs - 1
    const fresh = await bootProvider(FileSettingsProvider, { path: this.file, watch: false })
    try {
      const { value } = await mount(fresh.root, (ctx) => this.names.map((ns) => ctx.settings.register(ns, PluginSchema)))
      value.forEach((handle, index) => {
        if (handle.get().counter !== finalOf(run, index)) throw new Error(`document on disk lost an update of ${this.names[index]}`)
      })
    } finally {
      await fresh.dispose()
    }
  }

  get warnings(): string[] {
    return this.booted?.warnings ?? []
  }

  async teardown(): Promise<void> {
    this.spy?.restore()
    await this.booted?.dispose()
    if (this.dir) await removeTemp(this.dir)
  }
}
