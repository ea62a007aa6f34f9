/**
 * `dsh settings check` reads and judges; it starts nothing and writes nothing.
 * Over the deployment's own document (under `$DSH_HOME`), holding a section
 * that would migrate: the document keeps its bytes and its time, nothing
 * appears beside it (no editor schema, no history, no lock, no host record),
 * and no timer, watcher, socket or server outlives the check.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkSettings } from '../src/check/check.ts'
import { WORKSPACE } from './hosts.ts'

const FIXTURES = join(WORKSPACE, 'packages/tools/dsh/tests/fixtures')
const temps: string[] = []
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** What is in a folder, each entry with its size and modification time. */
function listing(dir: string): string[] {
  return readdirSync(dir).map((name) => {
    const stat = statSync(join(dir, name))
    return `${name} ${stat.size} ${stat.mtimeMs}`
  })
}

/** The kinds of what keeps the process alive (timers, handles), counted by kind. */
function resources(): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1
  return counts
}

describe('dsh settings check starts nothing', () => {
  it('leaves the document, its folder and the process as they were, a section that would migrate included', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-check-nothing-')))
    temps.push(home)
    copyFileSync(join(FIXTURES, 'versioned.yaml'), join(home, 'settings.yaml'))
    const before = listing(home)
    const bytes = readFileSync(join(home, 'settings.yaml'))
    const running = resources()

    const result = await checkSettings({ deployment: join(FIXTURES, 'versioned.cordis.yml'), env: { DSH_HOME: home }, conditions: ['source'] })
    expect(result.document).toBe(join(home, 'settings.yaml'))
    expect(result.warnings.map((warning) => warning.code)).toContain('would-migrate')
    expect(result.problems).toEqual([])

    expect(listing(home)).toEqual(before)
    expect(readFileSync(join(home, 'settings.yaml')).equals(bytes)).toBe(true)
    // Whatever the check started is gone once it answers, with nothing awaited after it.
    expect(resources()).toEqual(running)
  })
})
