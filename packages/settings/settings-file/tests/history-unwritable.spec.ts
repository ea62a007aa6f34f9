/**
 * A `history/` folder the host cannot use (mode 0555, a symlink, or root-owned under the user's
 * own host): writes still land, with one warning naming the folder and why; no version is kept;
 * `keepsHistory` answers false and listing is refused with a typed error until the folder is
 * usable again. An editor's late write is still folded in, watched through a hidden witness link.
 */
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Schema from 'schemastery'
import { parse } from 'yaml'
import { afterEach, describe, expect, it } from 'vitest'
import { plugWithSettings } from 'dsh-testing'
import { SettingsHistoryUnavailableError } from '../src/provider/errors.ts'
import { bootFile, eventually, fileFixture } from './file-harness.ts'
import { bootProbed, editorSaves, type Probed } from './probed.ts'
import { AS_ROOT, USER, userHome } from './user-home.ts'

const Search = Schema.object({ limit: Schema.number().default(1), label: Schema.string().default('none') })

const fixture = fileFixture()
const versionsIn = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith('.yaml'))

async function boot() {
  const path = join(fixture.dir, 'settings.yaml')
  await writeFile(path, 'search:\n  limit: 1\n')
  fixture.harness = await bootFile({ path, watch: false })
  const { value: search } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Search))
  return { path, search, settings: fixture.harness.settings, logs: fixture.harness.logs, history: join(fixture.dir, 'history') }
}

describe('a history folder the host cannot write', () => {
  it('lands each write with one warning naming the folder and why, keeps no version, says history is unavailable, and recovers once fixed', async () => {
    const { path, search, settings, logs, history } = await boot()
    await search.update({ limit: 2 })
    expect(await versionsIn(history)).toHaveLength(1)
    await chmod(history, 0o555)
    try {
      expect(settings.keepsHistory).toBe(false)
      await search.update({ limit: 3 })
      await search.update({ limit: 4 })
      expect(parse(await readFile(path, 'utf8'))).toEqual({ search: { limit: 4 } })
      const warnings = logs.filter((line) => line.includes(history))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('mode 0555')
      expect(await versionsIn(history)).toHaveLength(1)
      const refused = await settings.history().catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(SettingsHistoryUnavailableError)
      expect(refused).toMatchObject({ code: 'SETTINGS_HISTORY_UNAVAILABLE', directory: history, refusal: 'rejected' })
      await expect(settings.historyDocument('settings.20260101T000000000Z.00000000.yaml')).rejects.toMatchObject({ code: 'SETTINGS_HISTORY_UNAVAILABLE' })
    } finally {
      await chmod(history, 0o700)
    }
    expect(settings.keepsHistory).toBe(true)
    await search.update({ limit: 5 })
    expect(await settings.history()).toHaveLength(2)
    // No witness link of a write without a kept version is left beside the document once the provider is gone.
    await fixture.harness!.dispose()
    fixture.harness = undefined
    expect((await readdir(fixture.dir)).sort()).toEqual(['history', 'settings.schema.json', 'settings.yaml'])
  })

  it('never keeps versions through a history/ that is a symlink (into a folder of someone else\'s)', async () => {
    const elsewhere = await realpath(await mkdtemp(join(tmpdir(), 'dsh-elsewhere-')))
    try {
      await symlink(elsewhere, join(fixture.dir, 'history'))
      const { path, search, settings, logs } = await boot()
      await search.update({ limit: 2 })
      expect(parse(await readFile(path, 'utf8'))).toEqual({ search: { limit: 2 } })
      expect(await readdir(elsewhere)).toEqual([])
      expect(settings.keepsHistory).toBe(false)
      expect(logs.some((line) => line.includes(join(fixture.dir, 'history')) && line.includes('symlink'))).toBe(true)
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })
})

describe('a history/ that is not a folder', () => {
  it('lands the write, warning that history/ is not a folder, and keeps the file as it was', async () => {
    await writeFile(join(fixture.dir, 'history'), 'my notes\n')
    const { path, search, settings, logs, history } = await boot()
    await search.update({ limit: 2 })
    expect(parse(await readFile(path, 'utf8'))).toEqual({ search: { limit: 2 } })
    expect(await readFile(history, 'utf8')).toBe('my notes\n')
    expect(settings.keepsHistory).toBe(false)
    expect(logs.some((line) => line.includes(history) && line.includes('not a folder'))).toBe(true)
  })
})

describe('a write without a kept version', () => {
  let probed: Probed | undefined
  afterEach(async () => {
    await probed?.dispose()
    probed = undefined
  })

  it('still folds in an editor\'s save that lands in the replaced file, watched through a witness link', async () => {
    const path = join(fixture.dir, 'settings.yaml')
    await writeFile(path, 'search:\n  limit: 1\nhand:\n  label: first\n')
    await mkdir(join(fixture.dir, 'history'), { mode: 0o555 })
    let raced = false
    probed = await bootProbed(
      { path, watch: false, settleMs: 30 },
      {
        // Between the last check and the replace: an in-place save lands in the file being replaced.
        rename: async () => {
          if (raced) return
          raced = true
          await editorSaves.inPlace(path, 'search:\n  limit: 1\nhand:\n  label: late\n')
        },
      },
    )
    const handles = await plugWithSettings(probed.root, (ctx) => ({ search: ctx.settings.register('search', Search), hand: ctx.settings.register('hand', Search) }))
    expect(probed.settings.keepsHistory).toBe(false)
    await handles.value.search.update({ limit: 2 })
    await eventually(async () => expect(parse(await readFile(path, 'utf8'))).toEqual({ search: { limit: 2 }, hand: { label: 'late' } }))
    expect(probed.logs.join('\n')).toContain('folded in')
    expect(await readdir(join(fixture.dir, 'history'))).toEqual([])
  })
})

describe('a root-owned history/ under the user\'s own host', () => {
  const home = userHome()

  it(AS_ROOT ? 'lets the user\'s host write under a history/ an earlier root run left root-owned, warning once and saying history is unavailable' : 'lets the user\'s host write under a history/ of mode 0555 (a non-root run cannot stage a root-owned folder)', async () => {
    const file = join(home.dir, 'settings.yaml')
    await writeFile(file, 'counter:\n  values: {}\n', { mode: 0o600 })
    await chown(file, USER.uid, USER.gid)
    const history = join(home.dir, 'history')
    // What a root run of an older version left: history/ and a kept version, root's alone.
    await mkdir(history, { mode: AS_ROOT ? 0o700 : 0o555 })
    if (AS_ROOT) await writeFile(join(history, 'settings.20260101T000000000Z.0badf00d.yaml'), 'counter:\n  values: {}\n', { mode: 0o600 })
    const { code, result, stderr } = await home.run('history-probe.ts', [file, 'counter', '2'])
    expect(code, stderr).toBe(0)
    expect(result).toMatchObject({ uid: USER.uid, written: 2, failures: [], keepsHistory: false, history: 'SETTINGS_HISTORY_UNAVAILABLE' })
    const warnings = result!.warnings as string[]
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(history)
    expect(warnings[0]).toContain(AS_ROOT ? 'belongs to uid 0' : 'mode 0555')
    expect(parse(await readFile(file, 'utf8'))).toEqual({ counter: { values: { u0: 0, u1: 1 } } })
    await chmod(history, 0o700)
  })
})
