/**
 * Measurement 3: 1,000 concurrent `update()`s across 100 namespaces of one
 * YAML document (file provider, `watch: false`): the wall time until every
 * caller has its outcome, and how many file writes group commit used for them
 * (target ≤ 20 writes).
 *
 * Counting writes: every transaction that stores a document ends in exactly
 * one replace by the file provider's store (`DocumentStore.replace` from
 * `dsh-settings-file/store`, which places the new version at the document's
 * path by `renameat2` exchange, or by the portable path where the kernel has
 * none). The bench wraps that method in-process and counts the replaces that
 * answer `written` for the document's path: exact, at the moment it happens,
 * with no dependence on the timing or coalescing of file system events, nor
 * on which system call placed the file. The spy proves itself: a burst that
 * changed the document but counted zero writes fails the bench instead of
 * reporting a flattering number.
 */
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import FileSettingsProvider from 'dsh-settings-file'
import { DocumentStore } from 'dsh-settings-file/store'
import type { SettingsScope } from 'dsh-settings'
import { bootProvider, mount, namespaces, PluginSchema, removeTemp, tempDir, yamlDocument, type Booted, type PluginSettings } from './harness.ts'
import { now } from './stats.ts'

export const UPDATES = 1000
export const NAMESPACES = 100

/** Count the new versions placed at `target` (see the module comment) until `restore()`. */
export function spyWrites(target: string): { count(): number; restore(): void } {
  const file = resolve(target)
  const original = DocumentStore.prototype.replace
  let count = 0
  DocumentStore.prototype.replace = async function (this: DocumentStore<unknown>, ...args: Parameters<typeof original>) {
    const outcome = await original.apply(this, args)
    if (outcome === 'written' && resolve(args[1]) === file) count++
    return outcome
  }
  return {
    count: () => count,
    restore() {
      DocumentStore.prototype.replace = original
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
