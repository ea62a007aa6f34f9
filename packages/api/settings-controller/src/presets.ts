import { realpath, stat } from 'node:fs/promises'
import { join, relative, isAbsolute, sep } from 'node:path'
import type { ResolvedPresetRoot } from './config.ts'
import { rejected } from './errors.ts'

/** A preset directory found under one of the configured roots. */
export interface FoundPreset {
  /** The preset's real directory: symlinks resolved, inside its root. */
  directory: string
  /** Whether its root lets the user open it for editing. */
  writable: boolean
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

/** Whether `child` is `parent` itself or lies beneath it (both real, absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + sep))
}

/**
 * Find a preset by id in the roots, in order. The id has already passed the
 * id grammar, so `join` cannot climb out; the realpath check below is what
 * stops a symlink inside a root from pointing somewhere else. A root that does
 * not exist holds no presets; an entry that is not a directory is not a preset.
 * @throws {RemoteError} `settings/rejected` for a preset that resolves outside its
 *   root, or one found in no root.
 */
export async function findPreset(roots: readonly ResolvedPresetRoot[], presetId: string): Promise<FoundPreset> {
  for (const root of roots) {
    let realRoot: string
    try {
      realRoot = await realpath(root.path)
    } catch (error) {
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') continue
      throw error
    }
    let directory: string
    try {
      directory = await realpath(join(realRoot, presetId))
    } catch (error) {
      // ELOOP: a symlink cycle is not a preset either.
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR' || errnoOf(error) === 'ELOOP') continue
      throw error
    }
    if (directory === realRoot || !isInside(realRoot, directory)) {
      throw rejected(`agent preset ${JSON.stringify(presetId)} resolves outside its preset root; it is not opened`, { presetId, reason: 'outside-root' })
    }
    if (!(await stat(directory)).isDirectory()) continue
    return { directory, writable: root.writable }
  }
  throw rejected(`agent preset ${JSON.stringify(presetId)} was not found in any preset root`, { presetId, reason: 'not-found' })
}
