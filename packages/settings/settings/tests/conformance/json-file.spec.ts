import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { describeProviderConformance, type ConformanceStore } from 'dsh-settings/conformance'
import { JsonFileSettingsProvider } from '../providers/json-file-provider.ts'

interface JsonStore extends ConformanceStore {
  dir: string
}

// The persist-only provider from the docs: load() and persist() only, so no edit, restart or hosts.
describeProviderConformance<JsonStore>('a persist-only JSON file provider', {
  async create({ document, writable = true }) {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-json-provider-'))
    const path = join(dir, 'settings.json')
    if (document) await writeFile(path, JSON.stringify(document))
    return {
      dir,
      plug: (ctx: Context) => ctx.plugin(JsonFileSettingsProvider, { path, writable }),
      dispose: () => rm(dir, { recursive: true, force: true }),
    }
  },
  leftovers: async (store) => (await readdir(store.dir)).filter((name) => name !== 'settings.json'),
})
