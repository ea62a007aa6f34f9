/**
 * Builds the page's static assets with Vite, and tells whether a build on
 * disk is older than the sources it came from. `pnpm start` calls
 * {@link ensurePageBuilt} before it serves the default deployment.
 */
import { randomBytes } from 'node:crypto'
import { readdir, rename, rm, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { InlineConfig } from 'vite'

/** The package folder (this file lives in `src/`). */
export const PAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** Where `pnpm build` and `pnpm start` put the assets; `cordis.yml` points `dsh-remote`'s `static` here. */
export const PAGE_DIST = join(PAGE_ROOT, 'dist')

/** The Vite settings of the page, with the assets written to `outDir`. */
export function pageConfig(outDir: string = PAGE_DIST): InlineConfig {
  return {
    root: PAGE_ROOT,
    configFile: false,
    logLevel: 'warn',
    // Relative asset URLs, so the page works under any base path the server is reached by.
    base: './',
    // Workspace packages are read from their TypeScript sources, as in the tests.
    resolve: { conditions: ['source', 'browser', 'module', 'import', 'default'] },
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: true, reportCompressedSize: false },
  }
}

/**
 * Build the assets into `outDir`. The build goes to a sibling folder that then
 * takes `outDir`'s place, so a server reading `outDir` never sees half a build,
 * and two builds at once (two test runs) each install a whole one.
 */
export async function buildPage(outDir: string = PAGE_DIST): Promise<void> {
  const { build } = await import('vite')
  const tail = randomBytes(6).toString('hex')
  const staging = `${outDir}.build-${tail}`
  const retired = `${outDir}.old-${tail}`
  try {
    await build(pageConfig(staging))
    await rename(outDir, retired).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
    await rename(staging, outDir)
  } finally {
    await rm(staging, { recursive: true, force: true })
    await rm(retired, { recursive: true, force: true })
  }
}

/** The newest modification time under `path` (a file or a folder, recursively). */
async function newestMtime(path: string): Promise<number> {
  const info = await stat(path)
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, entry)))
  return newest
}

/** The inputs of a build: a change to any of them makes the assets stale. */
const INPUTS = ['index.html', 'src', 'package.json', '../../api/remote/src']

/** Whether `outDir` holds a build at least as new as every input. */
export async function isPageFresh(outDir: string = PAGE_DIST): Promise<boolean> {
  const built = await stat(join(outDir, 'index.html')).then((info) => info.mtimeMs, () => undefined)
  if (built === undefined) return false
  const inputs = await Promise.all(INPUTS.map((input) => newestMtime(join(PAGE_ROOT, input)).catch(() => 0)))
  return inputs.every((mtime) => mtime <= built)
}

/** Build the assets unless a fresh build is already there; answers whether it built. */
export async function ensurePageBuilt(outDir: string = PAGE_DIST): Promise<boolean> {
  if (await isPageFresh(outDir)) return false
  await buildPage(outDir)
  return true
}
