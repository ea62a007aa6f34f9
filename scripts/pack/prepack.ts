/**
 * `prepack` of every published package (run by `pnpm pack` / `pnpm publish` in the
 * package's folder): puts a copy of the repository's LICENSE beside the package's
 * package.json, where the packer picks it up. The copy is gitignored and left in
 * place afterwards, so two packs of one package at once never take it from each other.
 */
import { copyFileSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's LICENSE, two folders above this script. */
export const ROOT_LICENSE: string = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'LICENSE')

/** Copy the root LICENSE into `packageDir`, through a temp file and a rename, so a reader never sees half of it. */
export function placeLicense(packageDir: string): string {
  const target = join(packageDir, 'LICENSE')
  const temp = `${target}.${process.pid}.tmp`
  copyFileSync(ROOT_LICENSE, temp)
  renameSync(temp, target)
  return target
}

if (process.argv[1] === fileURLToPath(import.meta.url)) placeLicense(process.cwd())
