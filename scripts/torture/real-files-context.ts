/**
 * What a stage of the real-files torture works with: its own temp folder, its
 * hosts (booted, called and stopped with deadlines, every hang counted as a
 * wedge), the shared counts and notes, and the checks every stage makes the
 * same way (a write that must land, a link that must stay, a leak scan).
 */
import { lstatSync, readlinkSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { removeTemp, tempDir } from './harness.ts'
import { FilesHost, type CallResult, type HostOptions } from './real-files-host.ts'
import type { Counts, Sentinels } from './real-files-judge.ts'

/** The figures the whole scenario reports. */
export interface Tally {
  counts: Counts
  notes: string[]
  sentinels: Sentinels
  /** Wire writes tried. */
  writes: number
  /** Hosts SIGKILLed because they did not stop. */
  kills: number
  /** Hand edits and swaps made to documents. */
  edits: number
  /** Hosts started. */
  hosts: number
  /** Runs per stage id. */
  runs: Record<string, number>
  /** Things the machine could not stage (mknod refused, say). */
  unstaged: Set<string>
}

/** At most this many notes are kept for the report. */
const MAX_NOTES = 40

/** One run of one stage. */
export class StageContext {
  private readonly hosts: FilesHost[] = []
  /** What this run of the stage varies (a FIFO or a socket, say), named in its notes. */
  variant: string | undefined

  private constructor(
    readonly stage: string,
    readonly tally: Tally,
    /** 0 on the first pass (the stage's canonical run), random after. */
    readonly variation: number,
    readonly dir: string,
  ) {}

  /** A context with a fresh temp folder; {@link StageContext.finish} removes it. */
  static async open(stage: string, tally: Tally, variation: number): Promise<StageContext> {
    return new StageContext(stage, tally, variation, await tempDir(`real-files-${stage}`))
  }

  get counts(): Counts {
    return this.tally.counts
  }

  /** One of `options`: the first on the canonical run, else one picked by the variation. */
  pick<T>(options: readonly T[]): T {
    return options[this.variation === 0 ? 0 : this.variation % options.length]!
  }

  /** Keep a note for the report (the first {@link MAX_NOTES} are kept). */
  note(text: string): void {
    if (this.tally.notes.length < MAX_NOTES) this.tally.notes.push(`${this.stage}${this.variant ? ` (${this.variant})` : ''}: ${text}`)
  }

  /** Count one wrong outcome, with a note. */
  wrong(text: string): void {
    this.counts.wrongOutcomes++
    this.note(text)
  }

  /**
   * A deployment folder (`deploy/`, the hosts' home) and its document path,
   * holding `text` (mode 0600) unless it is `undefined`.
   */
  async deployment(text: string | undefined): Promise<{ deploy: string; file: string }> {
    const deploy = join(this.dir, 'deploy')
    await mkdir(deploy, { mode: 0o700 })
    const file = join(deploy, 'settings.yaml')
    if (text !== undefined) await writeFile(file, text, { mode: 0o600 })
    return { deploy, file }
  }

  /** Start a host and wait for its boot; a boot that hangs is a wedge (the host is then killed). */
  async host(options: HostOptions): Promise<FilesHost> {
    const host = new FilesHost(options)
    this.hosts.push(host)
    this.tally.hosts++
    const booted = await host.booted()
    if (booted === 'wedged') {
      this.counts.wedges++
      this.note(`a host on ${options.file} did not finish booting in time (provider: ${JSON.stringify(host.provider ?? 'no word')})`)
      if (await host.kill()) this.tally.kills++
    } else if (booted === 'exited') this.note(`a host on ${options.file} exited while booting: ${host.stderr().trim().slice(-400)}`)
    return host
  }

  /** Whether `host` booted with its provider and both example plugins up; a note and a wrong outcome otherwise. */
  upright(host: FilesHost): boolean {
    if (!host.alive()) return false
    if (host.provider?.ok !== true) {
      this.wrong(`the provider failed to boot: ${JSON.stringify(host.provider)}`)
      return false
    }
    const down = ['web-search', 'assistant'].filter((name) => host.plugins.get(name)?.state !== 'ok')
    if (down.length) this.wrong(`example plugins did not start: ${down.map((name) => `${name} ${JSON.stringify(host.plugins.get(name))}`).join(', ')}`)
    return down.length === 0
  }

  /** A wire call; one left unanswered is a wedge. */
  async call(host: FilesHost, method: string, args: unknown[]): Promise<CallResult> {
    if (!host.alive()) return { kind: 'unreachable', message: 'the host is gone' }
    const result = await host.call(method, args)
    if (result.kind === 'wedged') {
      this.counts.wedges++
      this.note(`settings.${method} got no answer in time`)
    }
    return result
  }

  /** A write through the wire (`mutate`); counted as a write tried. */
  async mutate(host: FilesHost, ns: string, ops: unknown[]): Promise<CallResult> {
    this.tally.writes++
    return this.call(host, 'mutate', [ns, ops, null])
  }

  /** Set `web-search.limit`; a write that must land: a refusal is a wrong outcome. Resolves whether it landed. */
  async setLimit(host: FilesHost, limit: number, extra: unknown[] = []): Promise<boolean> {
    const result = await this.mutate(host, 'web-search', [{ op: 'set', path: ['limit'], value: limit }, ...extra])
    if (result.kind === 'value') return true
    if (result.kind === 'error') this.wrong(`a write that must land was refused: ${result.code} ${result.message}`)
    else if (result.kind === 'unreachable') this.wrong(`a write that must land found no server: ${result.message}`)
    return false
  }

  /** Stop a host by a signal; one still running at the deadline is a wedge (and is killed). */
  async stop(host: FilesHost, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<void> {
    if ((await host.stop(signal)) === 'wedged') {
      this.counts.wedges++
      this.tally.kills++
      this.note(`a host ignored ${signal} (killed)`)
    }
  }

  /** The document path must still be a symlink reading `target`; a broken link otherwise. */
  checkLink(link: string, target: string): void {
    const stat = lstatSync(link, { throwIfNoEntry: false })
    const now = stat?.isSymbolicLink() ? readlinkSync(link) : undefined
    if (now !== target) {
      this.counts.brokenLinks++
      this.note(`the document path is ${now === undefined ? `no longer a symlink (${stat ? 'a file of mode ' + (stat.mode & 0o7777).toString(8) : 'gone'})` : `a symlink to ${now}`}, not the symlink to ${target}`)
    }
  }

  /** Replace `file` the way an editor saves: a temp file renamed over it. */
  async save(file: string, text: string): Promise<void> {
    const temp = join(file, '..', `.real-files-edit-${process.pid}.tmp`)
    await writeFile(temp, text, { mode: 0o600 })
    await rename(temp, file)
    this.tally.edits++
  }

  /**
   * End the stage: stop the hosts still running, scan every answer and log
   * line they gave for a planted secret, and remove the temp folder.
   */
  async finish(): Promise<void> {
    for (const host of this.hosts) if (host.alive()) await this.stop(host)
    for (const host of this.hosts) {
      for (const [place, texts] of [['wire answer', host.answers], ['log line', host.logs]] as const) {
        for (const text of texts) {
          for (const secret of this.tally.sentinels.foundIn(text)) {
            this.counts.leakedValues++
            this.note(`a secret (${secret.split('-').slice(1, -1).join('-')}) in a ${place}: ${JSON.stringify(text.slice(0, 160))}`)
          }
        }
      }
    }
    await removeTemp(this.dir)
  }
}
