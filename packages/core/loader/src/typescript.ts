/**
 * TypeScript plugin entries (`./plugin.ts` in `cordis.yml`). Node 20 runs no
 * `.ts` file by itself, so before the first one is imported the loader makes
 * sure this process can: when it already does (started with `--import tsx`,
 * or a Node that strips types), nothing changes; otherwise it registers the
 * `tsx` the deployment's own project installed, found from the deployment
 * file's folder as an import there would find it. Without one, the entry
 * fails with {@link TypeScriptLoaderError}, which says what to install.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { moduleResolve } from 'import-meta-resolve'

/** The file names Node cannot run without a TypeScript loader. */
const TYPESCRIPT_FILE = /\.(?:[cm]?ts|tsx)$/i

/** A `.ts` entry that this process cannot load: no TypeScript support, and no `tsx` in the deployment's project. */
export class TypeScriptLoaderError extends Error {
  override readonly name = 'TypeScriptLoaderError'
  readonly code = 'DSH_TYPESCRIPT_LOADER_MISSING'

  /** @param file - the plugin file that could not be loaded. */
  constructor(readonly file: string) {
    super(
      `${file} is TypeScript, which Node ${process.versions.node} does not run by itself: ` +
        'install tsx in the project that holds cordis.yml (npm install --save-dev tsx), or compile the plugin to JavaScript',
    )
  }
}

/** How {@link prepareTypeScript} finds out and acts; tests replace parts of it. */
export interface TypeScriptSupport {
  /** Whether this process imports a `.ts` module already. */
  loadable(): Promise<boolean>
  /** Register the TypeScript loader found from `baseDir`; `false` when there is none to register. */
  register(baseDir: string): Promise<boolean>
}

/**
 * Whether this process imports TypeScript, tried on a throwaway module: a
 * failed import stays failed in Node's module map, so the plugin itself is
 * never the one tried.
 */
async function loadable(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-loader-ts-'))
  const probe = join(dir, 'probe.ts')
  writeFileSync(probe, 'export const probe: boolean = true\n')
  try {
    await import(pathToFileURL(probe).href)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_UNKNOWN_FILE_EXTENSION') return false
    throw error
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Register `tsx` for the whole process, resolved from `baseDir`; `false` when `baseDir` sees none. */
async function registerTsx(baseDir: string): Promise<boolean> {
  let api: URL
  try {
    api = moduleResolve('tsx/esm/api', pathToFileURL(join(baseDir, '/')), new Set(['node', 'import']), false)
  } catch {
    return false
  }
  const { register } = (await import(api.href)) as { register(): unknown }
  register()
  return true
}

/** The real way: a throwaway module tells whether TypeScript loads, and the project’s tsx is registered. */
export const DEFAULT_TYPESCRIPT_SUPPORT: TypeScriptSupport = { loadable, register: registerTsx }

/** Per way of finding out (one per process in use): whether TypeScript entries load, once settled. */
const settled = new WeakMap<TypeScriptSupport, Promise<void>>()

/**
 * Make sure `file` can be imported when it is TypeScript (see the module's
 * doc); other files need nothing. Settled once per process; a failure is not
 * kept, so installing tsx and editing the deployment file tries again.
 * @throws {TypeScriptLoaderError} when it cannot be loaded.
 */
export async function prepareTypeScript(file: string, baseDir: string, support: TypeScriptSupport = DEFAULT_TYPESCRIPT_SUPPORT): Promise<void> {
  if (!TYPESCRIPT_FILE.test(file)) return
  let ready = settled.get(support)
  if (!ready) {
    ready = (async () => {
      if (await support.loadable()) return
      if (!(await support.register(baseDir))) throw new TypeScriptLoaderError(file)
    })()
    settled.set(support, ready)
  }
  try {
    await ready
  } catch (error) {
    settled.delete(support)
    // Entries waiting on another entry's attempt are named in their own error.
    throw error instanceof TypeScriptLoaderError && error.file !== file ? new TypeScriptLoaderError(file) : error
  }
}
