/**
 * A reader that keeps reading and parsing the document while writers run, as
 * any other program reading the user's settings would: every read must parse,
 * and must show every value acknowledged before the read began.
 */
import { readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { asideState } from 'dsh-settings-file/store'
import { sleep } from './harness.ts'
import { parseSettingsText } from './yaml.ts'

/** `ns/key` → the value at `doc[ns].k[key]`. */
export function valueAt(document: Record<string, any>, id: string): number | undefined {
  const [ns, key] = id.split('/') as [string, string]
  const value = document[ns]?.k?.[key]
  return typeof value === 'number' ? value : undefined
}

/** Looks in a row (1 ms apart) that must find the document missing with nothing set aside before a read fails. */
export const UNEXPLAINED_LOOKS = 3

/** The continuous reader; see the module comment. */
export class DocumentMonitor {
  reads = 0
  /** Reads that found no document with none set aside, or one that is not valid YAML with a map at its root. */
  parseFailures = 0
  /** Reads that found the document set aside for a writer's replace (or by a writer killed meanwhile) and read it once back. */
  asideWaits = 0
  /** Distinct acknowledged values (`key=value`) a later read did not show. */
  readonly regressions = new Set<string>()
  readonly notes: string[] = []
  private running = false
  private loop: Promise<void> = Promise.resolve()

  /** @param acked - the highest acknowledged value per key, read live. */
  constructor(
    private readonly file: string,
    private readonly acked: ReadonlyMap<string, number>,
  ) {}

  start(): void {
    this.running = true
    this.loop = this.run()
  }

  async stop(): Promise<void> {
    this.running = false
    await this.loop
  }

  private async run(): Promise<void> {
    while (this.running) {
      // Only acks received before the read starts must show in it.
      const before = new Map(this.acked)
      let text: string | undefined
      try {
        text = await this.read()
      } catch (error) {
        this.fail(`read failed: ${(error as NodeJS.ErrnoException).code}`)
      }
      this.reads++
      if (text !== undefined) {
        const document = parseSettingsText(text)
        if (!document) this.fail(`unparsable document (${text.length} bytes): ${JSON.stringify(text.slice(0, 200))}`)
        else this.check(document, before)
      }
      await sleep(1)
    }
  }

  /**
   * One read as a careful program does it: a document missing while a writer has it set aside (the microseconds
   * of its replace, longer when that writer is preempted, or until the next writer when it was killed then) is
   * read again once it is back. A read and a look at the folder are two calls, and a replace can end between
   * them: missing with nothing set aside is a failure only when {@link UNEXPLAINED_LOOKS} looks in a row find it so.
   */
  private async read(): Promise<string | undefined> {
    let waited = false
    let unexplained = 0
    for (;;) {
      try {
        const text = await readFile(this.file, 'utf8')
        if (waited) this.asideWaits++
        return text
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        unexplained = asideState(dirname(this.file), basename(this.file)) === 'none' ? unexplained + 1 : 0
        if (unexplained >= UNEXPLAINED_LOOKS) throw error
        if (!this.running) return undefined
        waited = true
        await sleep(1)
      }
    }
  }

  private check(document: Record<string, any>, before: ReadonlyMap<string, number>): void {
    for (const [id, value] of before) {
      const found = valueAt(document, id)
      if (found !== undefined && found >= value) continue
      const key = `${id}=${value}`
      if (!this.regressions.has(key) && this.notes.length < 20) this.notes.push(`a read showed ${id} = ${found} after ${value} was acknowledged`)
      this.regressions.add(key)
    }
  }

  private fail(note: string): void {
    this.parseFailures++
    if (this.notes.length < 20) this.notes.push(note)
  }
}
