/**
 * A migration on the file provider: a normal write under the document's lock
 * that keeps the version it replaces, is recorded as made by `migration`, and
 * never loses a hand edit that lands while it runs. Restoring the version
 * before it brings the old text back, and the next registration migrates it again.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context, Fiber } from 'cordis'
import Schema from 'schemastery'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SECTION_VERSION_KEY, type SettingsMigration, type SettingsScope } from 'dsh-settings'
import { plugWithSettings } from 'dsh-testing'
import { eventually, tempDir } from './file-harness.ts'
import { bootProbed, editorSaves, type Probed, type StepHooks } from './probed.ts'

const SECRET = 'sk-file-secret-0c9e44'

const START = ['# search settings, written by hand', 'search:', `  apiKey: ${SECRET}`, '  limit: 5 # five is enough', 'other:', '  n: 1', ''].join('\n')

const Search = Schema.object({ token: Schema.string().role('secret'), limit: Schema.natural().default(10), engine: Schema.string().default('bing') })
const RENAME: SettingsMigration[] = [{ op: 'move', from: 'apiKey', to: 'token' }]
type SearchValue = ReturnType<typeof Search>

let dir: string
let file: string
let cleanup: () => Promise<void>
let probed: Probed | undefined
let hooks: StepHooks

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  file = join(dir, 'settings.yaml')
  await writeFile(file, START)
  hooks = {}
})
afterEach(async () => {
  await probed?.dispose()
  probed = undefined
  await cleanup()
})

/** Resolves once the search section's migration was written back `count` times in all (its log line). */
async function migratedTimes(logs: string[], count: number): Promise<void> {
  await eventually(() => expect(logs.filter((line) => line.includes('"search": the stored section was migrated')).length).toBeGreaterThanOrEqual(count))
}

/** Register the new version of the plugin; resolves with its handle and fiber once the migration was written back. */
async function registerNewVersion(root: Context, migrations = 1): Promise<{ handle: SettingsScope<SearchValue>; fiber: Fiber }> {
  const { value: handle, fiber } = await plugWithSettings(root, (ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
  await migratedTimes(probed!.logs, migrations)
  return { handle, fiber }
}

const document = async () => parse(await readFile(file, 'utf8')) as Record<string, Record<string, unknown>>

/** Run `edit` the first time the write reaches `step`, and no more. */
function once(step: keyof StepHooks, edit: () => Promise<void>): void {
  let done = false
  hooks[step] = async () => {
    if (done) return
    done = true
    await edit()
  }
}

describe('a hand edit racing a migration', () => {
  it.each(['read', 'check', 'keep', 'rename'] as const)('keeps the edit, migrated, when the editor saves at step %s', async (step) => {
    probed = await bootProbed({ path: file, watch: false, secrets: 'inline' }, hooks)
    // The user adds a field to the old section (and changes another's value) while the migration is under way.
    once(step, () => editorSaves.rename(file, START.replace('limit: 5', 'limit: 9').replace('other:', '  engine: google\nother:')))
    const { handle } = await registerNewVersion(probed.root)
    expect(await document()).toEqual({ search: { [SECTION_VERSION_KEY]: 1, token: SECRET, limit: 9, engine: 'google' }, other: { n: 1 } })
    expect(handle.get()).toEqual({ token: SECRET, limit: 9, engine: 'google' })
    const text = await readFile(file, 'utf8')
    expect(text).toContain('# search settings, written by hand')
    expect(text).toContain('limit: 9 # five is enough')
    expect(text).not.toContain('apiKey')
    expect(probed.logs.join('\n')).not.toContain(SECRET)
  })
})

describe('the migration as a kept version', () => {
  it('keeps the text it replaced, says it was made by migration, and a restore brings the old text back to be migrated again', async () => {
    probed = await bootProbed({ path: file, watch: false, secrets: 'inline' }, hooks)
    const { settings } = probed
    const { handle, fiber } = await registerNewVersion(probed.root)
    await handle.update({ limit: 6 })
    const [migration, before] = await settings.history()
    expect(migration!.by).toEqual(['migration'])
    expect(migration!.sections).toEqual([{ ns: 'search' }])
    expect(before!.by).toEqual(['unknown'])
    // The version before the migration, against now: the old key left and the secret arrived, neither with a value.
    const kept = await settings.historyDocument(before!.id)
    const [difference] = settings.diff(kept)
    expect(difference).toEqual({
      ns: 'search',
      fields: [
        { path: ['apiKey'], change: 'unset', undeclared: true },
        { path: ['limit'], change: 'changed', before: 5, after: 6 },
        { path: ['token'], change: 'set', secret: true },
      ],
      version: { before: 0, after: 1, steps: ['rename $.apiKey to $.token'], changes: [[{ op: 'move', from: ['apiKey'], to: ['token'] }]] },
    })
    expect(JSON.stringify(difference)).not.toContain(SECRET)

    // A restore names the version the kept section was at (0): the old text comes back as it was.
    await settings.replace('search', { ...(kept.search as object), [SECTION_VERSION_KEY]: 0 })
    expect(await document()).toEqual({ search: { apiKey: SECRET, limit: 5 }, other: { n: 1 } })
    // Meanwhile it reads migrated; the next registration of the plugin writes the migration back again.
    expect(handle.get().token).toBe(SECRET)
    await fiber.dispose()
    await registerNewVersion(probed.root, 2)
    expect(await document()).toEqual({ search: { [SECTION_VERSION_KEY]: 1, token: SECRET, limit: 5 }, other: { n: 1 } })
  })
})
