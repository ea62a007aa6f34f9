import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import type { SettingsSchema } from 'dsh-settings'
import { settingsJsonSchema } from 'dsh-settings/json-schema'
import { tempName } from './leftovers.ts'
import type { LockOwner } from './owner.ts'

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
export function editorSchemaText(kinds: readonly { ns: string; schema: SettingsSchema<unknown> }[]): string {
  return `${JSON.stringify(settingsJsonSchema(kinds.map(({ ns, schema }) => ({ ns, schema: schema as never }))), null, 2)}\n`
}

/**
 * Keeps `<document stem>.schema.json` beside the document in step with the
 * registered kinds: a change is gathered for `delayMs` (many plugins register
 * at start), then the file is written whole through a temp file and a rename,
 * and only when its text changed.
 */
export class EditorSchemaWriter {
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<void> = Promise.resolve()
  private closed = false
  readonly path: string

  constructor(
    document: string,
    private readonly kinds: () => readonly { ns: string; schema: SettingsSchema<unknown> }[],
    private readonly failed: (error: unknown) => void,
    private readonly owner: LockOwner,
    private readonly delayMs = 50,
  ) {
    this.path = editorSchemaPath(document)
  }

  /** The kinds changed: write the schema once they settle. */
  schedule(): void {
    if (this.closed) return
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
    const text = editorSchemaText(this.kinds())
    const current = await readFile(this.path, 'utf8').catch(() => undefined)
    if (current === text) return
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
    // Named like the document's temps, so the sweep before each write removes one a killed writer left.
    const temp = join(dirname(this.path), tempName(basename(this.path), this.owner))
    try {
      await writeFile(temp, text, { mode: 0o644 })
      await rename(temp, this.path)
    } finally {
      await rm(temp, { force: true })
    }
  }

  /** Stop scheduling; a pending change is written before this resolves. */
  async close(): Promise<void> {
    if (this.timer) await this.flush()
    this.closed = true
    await this.writing
  }
}
