import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { describeProviderConformance, type ConformanceStore } from 'dsh-settings/conformance'
import { stringify } from 'yaml'
import FileSettingsProvider from 'dsh-settings-file'

interface FileStore extends ConformanceStore {
  dir: string
  path: string
}

// The file provider has no store versions (its revisions are process-unique), so the cross-host cases do not apply.
describeProviderConformance<FileStore>('FileSettingsProvider', {
  async create({ document, writable = true }) {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-file-conformance-'))
    const path = join(dir, 'settings.yaml')
    if (document) await writeFile(path, stringify(document), { mode: 0o600 })
    // A document without its owner's write bit is read-only to the provider.
    if (!writable) await chmod(path, 0o400)
    return {
      dir,
      path,
      // A short re-check runs inside the suite's quiet window, so a second delivery of one edit would show.
      plug: (ctx: Context) => ctx.plugin(FileSettingsProvider, { path, debounceMs: 20, recheckMs: 100 }),
      dispose: () => rm(dir, { recursive: true, force: true }),
    }
  },
  // An editor saving in place.
  edit: (store, document) => writeFile(store.path, stringify(document)),
  // The document, its kept versions and its editor schema are the store's own; anything else is left over.
  leftovers: async (store) => (await readdir(store.dir)).filter((name) => !['settings.yaml', 'history', 'settings.schema.json'].includes(name)),
})
