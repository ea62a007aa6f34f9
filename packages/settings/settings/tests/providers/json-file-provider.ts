import { randomUUID } from 'node:crypto'
import { readFile, rename, writeFile } from 'node:fs/promises'
import type { Context } from 'cordis'
import Schema from 'schemastery'
import { SettingsProvider, SettingsStoreError, type SettingsDocument } from 'dsh-settings'

/**
 * The persist-only provider of `docs/settings.md` ("Writing a provider"), as
 * written there: a JSON file that only this process writes. It implements
 * `load()` and `persist()`; the base runs the writes.
 */
export class JsonFileSettingsProvider extends SettingsProvider {
  static readonly Config: Schema<JsonFileSettingsProvider.Config> = Schema.object({
    path: Schema.string().required().description('The JSON document.'),
    writable: Schema.boolean().default(true).description('Whether writes are accepted.'),
  })

  constructor(ctx: Context, private readonly config: JsonFileSettingsProvider.Config) {
    super(ctx)
  }

  override get writable(): boolean {
    return this.config.writable !== false
  }

  protected async load(): Promise<SettingsDocument> {
    try {
      return JSON.parse(await readFile(this.config.path, 'utf8')) as SettingsDocument
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw error
    }
  }

  protected override async persist(document: SettingsDocument): Promise<void> {
    // Write beside the file, then rename over it: a reader never sees half a document.
    const temp = `${this.config.path}.${randomUUID()}.tmp`
    try {
      await writeFile(temp, JSON.stringify(document, null, 2), { mode: 0o600 })
      await rename(temp, this.config.path)
    } catch (error) {
      throw new SettingsStoreError('SETTINGS_JSON_WRITE', `could not write ${this.config.path}`, this.config.path, { cause: error })
    }
  }
}

export namespace JsonFileSettingsProvider {
  export interface Config {
    path: string
    writable?: boolean
  }
}
