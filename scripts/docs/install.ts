/**
 * The install commands the docs give (`npm install a b c`, `npm install
 * --save-dev x`), read as package lists: the consumer test installs exactly the
 * ones `docs/settings.md` gives in its install section, and the docs test holds
 * every other install command to that list.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../pack/workspace.ts'
import { docBlocks, type DocBlock } from './blocks.ts'
import { blockCommands } from './compare.ts'

/** The `## ` heading of `docs/settings.md` that says what a consumer installs. */
export const INSTALL_SECTION = 'Installing'
/** The `## ` heading of `docs/settings.md` on plugins written in TypeScript. */
export const TYPESCRIPT_SECTION = 'Plugins in TypeScript'

/** One `npm install` command: the packages it names, as written and by name, and whether they are development dependencies. */
export interface InstallCommand {
  dev: boolean
  /** The arguments as written (`cordis@4.0.0-rc.10`, `tsx`). */
  specs: string[]
  /** The package names alone. */
  packages: string[]
}

/** The package a spec names: `cordis` of `cordis@4.0.0-rc.10`, `@types/node` of `@types/node@20`. */
export function specName(spec: string): string {
  const at = spec.indexOf('@', 1)
  return at < 0 ? spec : spec.slice(0, at)
}

/** The block's commands as installs, or `undefined` when one of them is anything else. */
export function installCommands(block: DocBlock): InstallCommand[] | undefined {
  if (block.kind !== 'command') return undefined
  const commands = blockCommands(block)
  const installs: InstallCommand[] = []
  for (const { line } of commands) {
    const words = line.replace(/\s+#.*$/, '').trim().split(/\s+/)
    if (words[0] !== 'npm' || !['install', 'i'].includes(words[1] ?? '')) return undefined
    const flags = words.slice(2).filter((word) => word.startsWith('-'))
    if (flags.some((flag) => !['--save-dev', '-D'].includes(flag))) return undefined
    const specs = words.slice(2).filter((word) => !word.startsWith('-'))
    installs.push({ dev: flags.length > 0, specs, packages: specs.map(specName) })
  }
  return installs.length > 0 ? installs : undefined
}

/** The install commands of one section of `docs/settings.md`. */
export function documentedInstalls(section: string): InstallCommand[] {
  const blocks = docBlocks(readFileSync(join(ROOT, 'docs', 'settings.md'), 'utf8'), 'docs/settings.md')
  return blocks.filter((block) => block.section === section).flatMap((block) => installCommands(block) ?? [])
}
