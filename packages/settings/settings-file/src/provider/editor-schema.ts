import { lchown, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import type { SettingsSchema } from 'dsh-settings'
import { settingsJsonSchema } from 'dsh-settings/json-schema'
import { tempName } from '../store/leftovers.ts'
import { makeFolder, type FileOwnerIds, type LockOwner } from '../store/owner.ts'
import { readDocumentText } from '../store/version.ts'

/** The first line that points the YAML language server (VS Code, Neovim, JetBrains, Helix) at the editor schema. */
export function schemaModeline(document: string): string {
  return `# yaml-language-server: $schema=./${basename(editorSchemaPath(document))}`
}

/** Whether `text` already names a schema for the YAML language server in a modeline. */
export function hasSchemaModeline(text: string): boolean {
  return /^#\s*yaml-language-server:\s*\$schema=/m.test(text)
}

/** `settings.yaml` → `settings.schema.json`, beside it. */
export function editorSchemaPath(document: string): string {
  return join(dirname(document), `${basename(document, extname(document))}.schema.json`)
}

/** The editor schema's text for these kinds: JSON Schema 2020-12, two-space indented. */
export function editorSchemaText(kinds: readonly { ns: string; schema: SettingsSchema<unknown> }[], locale?: string): string {
  const schemas = kinds.map(({ ns, schema }) => ({ ns, schema: schema as never }))
  return `${JSON.stringify(settingsJsonSchema(schemas, locale === undefined ? {} : { locale }), null, 2)}\n`
}

/** Options of {@link EditorSchemaWriter}. */
export interface EditorSchemaWriterOptions {
  /** Who writes (named in the temp file's name). */
  owner: LockOwner
  /** Whether the host is stopping: a kind that leaves then stays in the schema. */
  stopping(): boolean
  /** Whom the file (and a folder made for it) is given to: the document's owner, when a root process writes it. */
  give?(): FileOwnerIds | undefined
  /** The locale the schema's descriptions are written in, where a plugin gives them per locale. Default `en-US`. */
  locale?: string
  /** How long changes are gathered before a write (many plugins register at start). Default 50 ms. */
  delayMs?: number
  /**
   * How long a kind that left stays in the schema before it is taken out, while
   * the host keeps running (its plugin was removed). Default 10 s.
   */
  leaveGraceMs?: number
}

/** Default of {@link EditorSchemaWriterOptions.leaveGraceMs}. */
export const LEAVE_GRACE_MS = 10_000

/**
 * Keeps `<document stem>.schema.json` beside the document in step with the
 * kinds the deployment mounts. A kind that arrives is written after `delayMs`
 * (many plugins register at start); one that leaves stays until it has been
 * gone for `leaveGraceMs` while the host keeps running. A host that stops
 * disposes its plugins, before or after the provider, and so takes every kind
 * away: those leaves are never written, so the editor still knows every
 * section while the host is down. The file is written whole through a temp
 * file and a rename, and only when its text changed.
 */
export class EditorSchemaWriter {
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<void> = Promise.resolve()
  private closed = false
  /** A comparison of the kinds is queued (see {@link schedule}). */
  private comparing = false
  /** The kinds the schema describes (or will at the next write), in the order they first arrived. */
  private readonly shown = new Map<string, SettingsSchema<unknown>>()
  /** Kinds that left and are still shown, with the timer that takes each out. */
  private readonly leaving = new Map<string, ReturnType<typeof setTimeout>>()
  private readonly delayMs: number
  private readonly leaveGraceMs: number
  readonly path: string

  constructor(
    document: string,
    private readonly kinds: () => readonly { ns: string; schema: SettingsSchema<unknown> }[],
    private readonly failed: (error: unknown) => void,
    private readonly options: EditorSchemaWriterOptions,
  ) {
    this.path = editorSchemaPath(document)
    this.delayMs = options.delayMs ?? 50
    this.leaveGraceMs = options.leaveGraceMs ?? LEAVE_GRACE_MS
  }

  /**
   * The registered kinds changed: compare them with what the schema shows once
   * the current burst is over (a microtask later: a deployment registers
   * thousands of kinds in one go, and comparing after each would cost O(n²)),
   * then write arrivals once they settle and start the grace of those that left.
   */
  schedule(): void {
    if (this.closed || this.comparing) return
    this.comparing = true
    queueMicrotask(() => this.compare())
  }

  /** Compare the registered kinds with the shown ones (see {@link schedule}). */
  private compare(): void {
    if (!this.comparing) return
    this.comparing = false
    if (this.closed) return
    const current = new Map(this.kinds().map(({ ns, schema }) => [ns, schema]))
    let arrived = false
    for (const [ns, schema] of current) {
      clearTimeout(this.leaving.get(ns))
      this.leaving.delete(ns)
      if (this.shown.get(ns) === schema) continue
      this.shown.set(ns, schema)
      arrived = true
    }
    for (const ns of this.shown.keys()) {
      if (current.has(ns) || this.leaving.has(ns)) continue
      const timer = setTimeout(() => this.leave(ns), this.leaveGraceMs)
      timer.unref?.()
      this.leaving.set(ns, timer)
    }
    if (arrived) this.writeSoon()
  }

  /** A kind's grace ran out: take it out, unless it came back or the host is stopping. */
  private leave(ns: string): void {
    this.leaving.delete(ns)
    if (this.closed || this.options.stopping() || this.kinds().some((kind) => kind.ns === ns)) return
    this.shown.delete(ns)
    this.writeSoon()
  }

  private writeSoon(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.flush(), this.delayMs)
    this.timer.unref?.()
  }

  /** Write now what is pending (and wait for a write under way). */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    this.writing = this.writing.then(() => this.write()).catch((error: unknown) => this.failed(error))
    return this.writing
  }

  private async write(): Promise<void> {
    if (this.closed) return
    const text = editorSchemaText([...this.shown].map(([ns, schema]) => ({ ns, schema })), this.options.locale)
    // Read without blocking: something other than a file there (a FIFO) is replaced like a stale schema.
    const current = await readDocumentText(this.path).catch(() => undefined)
    if (current === text) return
    const give = this.options.give?.()
    makeFolder(dirname(this.path), give)
    // Named like the document's temps, so the sweep before each write removes one a killed writer left.
    const temp = join(dirname(this.path), tempName(basename(this.path), this.options.owner))
    try {
      await writeFile(temp, text, { mode: 0o644, flag: 'wx' })
      // `lchown`: a temp swapped for a symlink meanwhile changes only that link.
      if (give) await lchown(temp, give.uid, give.gid)
      await rename(temp, this.path)
    } finally {
      await rm(temp, { force: true })
    }
  }

  /**
   * Stop: arrivals still pending are written before this resolves; kinds that
   * left are kept (a stopping host takes them all away).
   */
  async close(): Promise<void> {
    this.compare()
    for (const timer of this.leaving.values()) clearTimeout(timer)
    this.leaving.clear()
    if (this.timer) await this.flush()
    this.closed = true
    await this.writing
  }
}
