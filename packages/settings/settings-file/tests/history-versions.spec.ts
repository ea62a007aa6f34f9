import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it, vi } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { SettingsDocument } from 'dsh-settings'
import { plugWithSettings } from 'dsh-testing'
import { digest, DocumentHistory, historyStamp } from '../src/store/history.ts'
import { HistoryJournal } from '../src/store/history-journal.ts'
import { pruneEvery } from '../src/provider/provider.ts'
import { listVersions } from '../src/provider/versions.ts'
import { bootFile, fileFixture } from './file-harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google', 'ddg']).default('bing'),
  limit: Schema.number().default(10),
  apiKey: Schema.string().role('secret'),
})

const fixture = fileFixture()

async function boot(history?: false) {
  const path = join(fixture.dir, 'settings.yaml')
  await writeFile(path, 'search:\n  limit: 5\n')
  // Secrets inline (as before issue 37): these cases read kept versions' secrets as the document held them.
  fixture.harness = await bootFile({ path, watch: false, secrets: 'inline', ...(history === false ? { history: false } : {}) })
  const { value: handle } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Search))
  return { path, settings: fixture.harness.settings, handle }
}

describe('kept versions as history', () => {
  it('lists each kept version newest first, with who made it and which sections it changed', async () => {
    const { path, settings, handle } = await boot()
    await handle.update({ engine: 'google' }) // keeps the first text (written before any record: unknown)
    await settings.update('search', { limit: 6 }, undefined, undefined, 'wire') // keeps the plugin's version
    await handle.update({ apiKey: 'tok-1' }) // keeps the wire's version
    // An editor saves in place: the plugin's last version is overwritten where it stands, so it is never kept.
    await writeFile(path, (await readFile(path, 'utf8')).replace('limit: 6', 'limit: 7'))
    await handle.update({ engine: 'ddg' }) // keeps the outside edit
    const versions = await settings.history()
    expect(versions.map((version) => version.by)).toEqual([['outside'], ['wire'], ['plugin'], ['unknown']])
    expect(versions.every((version) => version.sections.length === 1 && version.sections[0]!.ns === 'search')).toBe(true)
    expect(new Set(versions.map((version) => version.id)).size).toBe(4)
    for (const version of versions) expect(Date.parse(version.replacedAt)).toBeGreaterThanOrEqual(Date.parse(version.writtenAt) - 1000)
    // Paging: the two before the newest.
    const page = await settings.history({ limit: 2, before: versions[0]!.id })
    expect(page.map((version) => version.id)).toEqual([versions[1]!.id, versions[2]!.id])
    expect(await settings.history({ limit: 1 })).toEqual([versions[0]])
  })

  it('reads a kept version whole, and diffs it against the current document with secrets as set, changed or unset only', async () => {
    const { settings, handle } = await boot()
    await handle.update({ apiKey: 'tok-old', engine: 'google' })
    await handle.update({ apiKey: 'tok-new', limit: 8 })
    const [newest] = await settings.history()
    const kept = await settings.historyDocument(newest!.id)
    expect(kept).toEqual({ search: { limit: 5, apiKey: 'tok-old', engine: 'google' } })
    const diff = settings.diff(kept)
    expect(diff).toEqual([
      {
        ns: 'search',
        fields: [
          { path: ['apiKey'], change: 'changed', secret: true },
          { path: ['limit'], change: 'changed', before: 5, after: 8 },
        ],
      },
    ])
    expect(JSON.stringify(diff)).not.toContain('tok-')
    expect(settings.diff({ search: { limit: 8, engine: 'google', apiKey: 'tok-new' }, other: { x: 1 } })).toEqual([
      { ns: 'other', fields: [], unregistered: true },
    ])
  })

  it('withholds every value of a kept version whose section its schema refuses (a secret may sit where no secret is expected)', async () => {
    const { path, settings, handle } = await boot()
    // An editor put the token where the schema expects a number: the section does not resolve.
    await writeFile(path, 'search:\n  limit: tok-in-the-wrong-place\n  apiKey: tok-real\n')
    await handle.update({ limit: 7 }) // keeps the edited text as a version
    await handle.update({ limit: 8 })
    const [, edited] = await settings.history()
    expect(await settings.historyDocument(edited!.id)).toEqual({ search: { limit: 'tok-in-the-wrong-place', apiKey: 'tok-real' } })
    const diff = settings.diff(await settings.historyDocument(edited!.id))
    expect(diff).toEqual([{ ns: 'search', fields: [{ path: [], change: 'changed', withheld: true }] }])
    expect(JSON.stringify(diff)).not.toContain('tok-')
  })

  it('refuses an unknown version id, and says it keeps no history when history is off', async () => {
    const { settings } = await boot()
    await expect(settings.historyDocument('settings.20990101T000000000Z.deadbeef.yaml')).rejects.toMatchObject({ code: 'SETTINGS_NO_VERSION' })
    await expect(settings.historyDocument('../settings.yaml')).rejects.toMatchObject({ code: 'SETTINGS_NO_VERSION' })
    await expect(settings.history({ before: 'nope' })).rejects.toMatchObject({ code: 'SETTINGS_NO_VERSION' })
    await expect(settings.history({ limit: 0 })).rejects.toBeInstanceOf(TypeError)
    expect(settings.keepsHistory).toBe(true)
    await fixture.harness!.dispose()
    const off = await boot(false)
    expect(off.settings.keepsHistory).toBe(false)
    await expect(off.settings.history()).rejects.toMatchObject({ code: 'SETTINGS_NO_HISTORY' })
  })
})

describe('who made a kept version', () => {
  it('is the newest record of its text made by the time it was written, so a later restore of the same text does not take it over', async () => {
    const history = new DocumentHistory(join(fixture.dir, 'settings.yaml'), { keep: 10, maxAgeDays: 30 })
    const hourAgo = new Date(Date.now() - 3_600_000)
    // A version written an hour ago by hand, and one written by a plugin just now with a recorded text.
    await mkdir(history.directory, { recursive: true })
    const old = join(history.directory, `settings.${historyStamp(new Date(Date.now() - 60_000))}.00000001.yaml`)
    await writeFile(old, 'search:\n  limit: 1\n')
    await utimes(old, hourAgo, hourAgo)
    const recent = join(history.directory, `settings.${historyStamp(new Date())}.00000002.yaml`)
    await writeFile(recent, 'search:\n  limit: 2\n')
    await history.record('search:\n  limit: 2\n', ['plugin'])
    // A restore now writes the old text again, through the wire.
    await history.record('search:\n  limit: 1\n', ['wire'])
    const parse = (text: string) => parseYaml(text) as SettingsDocument
    const versions = await listVersions(history, parse)
    expect(versions.map((version) => [version.id.slice(-13), version.by])).toEqual([
      ['00000002.yaml', ['plugin']],
      // Written before the journal's first record, so nothing is known of it.
      ['00000001.yaml', ['unknown']],
    ])
  })
})

describe('the journal', () => {
  it('is trimmed to its newest records once past its bound in bytes, also by a second history on the same folder (another process)', async () => {
    const history = new DocumentHistory(join(fixture.dir, 'settings.yaml'), { keep: 2, maxAgeDays: 30 })
    const other = new DocumentHistory(join(fixture.dir, 'settings.yaml'), { keep: 2, maxAgeDays: 30 })
    const sizes: number[] = []
    for (let n = 1; n <= 1200; n++) {
      await (n % 2 ? history : other).record(`n: ${n}\n`, [n === 1200 ? 'wire' : 'plugin'])
      sizes.push((await stat(history.journal)).size)
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(history.journalLimit)
    expect(sizes.some((size, index) => index > 0 && size < sizes[index - 1]!)).toBe(true)
    const lines = (await readFile(history.journal, 'utf8')).trim().split('\n')
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ by: ['wire'] })
    expect(JSON.parse(lines[0]!)).toMatchObject({ by: ['plugin'] })
  })
})

describe('history kept by a busy writer', () => {
  /** The kept versions standing in history/ now, by name. */
  const standing = async () => (await readdir(join(fixture.dir, 'history'))).filter((name) => name.endsWith('.yaml'))

  it('prunes in batches of a fifth of keep: never more than keep + pruneEvery - 1 stand, and the listing shows the newest keep', async () => {
    const path = join(fixture.dir, 'settings.yaml')
    await writeFile(path, 'search:\n  limit: 0\n')
    fixture.harness = await bootFile({ path, watch: false, history: { keep: 10, maxAgeDays: 30 } })
    const { value: handle } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Search))
    expect(pruneEvery(10)).toBe(2)
    const counts: number[] = []
    for (let limit = 1; limit <= 25; limit++) {
      await handle.update({ limit })
      counts.push((await standing()).length)
    }
    // The first write prunes; then every second one: 10 or 11 stand once there are 10 to keep.
    expect(Math.max(...counts)).toBe(11)
    expect(counts.slice(10)).toEqual(expect.arrayContaining([10, 11]))
    const versions = await fixture.harness.settings.history({ limit: 100 })
    expect(versions).toHaveLength(10)
    // The newest ten: the versions written by limits 15..24 (each replaced by the write after it).
    const limits = await Promise.all(versions.map(async (version) => ((await fixture.harness!.settings.historyDocument(version.id)).search as { limit: number }).limit))
    expect(limits).toEqual([24, 23, 22, 21, 20, 19, 18, 17, 16, 15])
  })

  it('keeps exactly keep when keep is under ten (a prune at every write)', async () => {
    expect(pruneEvery(1)).toBe(1)
    expect(pruneEvery(9)).toBe(1)
    const path = join(fixture.dir, 'settings.yaml')
    await writeFile(path, 'search:\n  limit: 0\n')
    fixture.harness = await bootFile({ path, watch: false, history: { keep: 3, maxAgeDays: 30 } })
    const { value: handle } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Search))
    for (let limit = 1; limit <= 6; limit++) {
      await handle.update({ limit })
      expect((await standing()).length).toBe(Math.min(limit, 3))
    }
  })

  it('notes a burst of writes in one journal append, every write\'s line there once the history is asked for', async () => {
    const noteAll = vi.spyOn(DocumentHistory.prototype, 'noteAll')
    try {
      const { handle, settings } = await boot()
      for (let limit = 1; limit <= 8; limit++) await handle.update({ limit })
      // Answered writes only gathered their notes: nothing is appended until the pause ends or the history is asked for.
      expect(noteAll).not.toHaveBeenCalled()
      await settings.history()
      expect(noteAll).toHaveBeenCalledTimes(1)
      expect(noteAll.mock.calls[0]![0]).toHaveLength(8)
      const journal = join(fixture.dir, 'history', 'settings.journal.jsonl')
      const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { at: string; by: string[] })
      expect(lines).toHaveLength(8)
      expect(lines.every((line) => line.by[0] === 'plugin')).toBe(true)
      // Each line keeps the time of its own write, in order.
      const times = lines.map((line) => Date.parse(line.at))
      expect(times).toEqual([...times].sort((a, b) => a - b))
    } finally {
      noteAll.mockRestore()
    }
  })

  it('splits a large batch of notes into appends of at most 100 lines, every line kept in order', async () => {
    const history = new DocumentHistory(join(fixture.dir, 'settings.yaml'), { keep: 50, maxAgeDays: 30 })
    const append = vi.spyOn(HistoryJournal.prototype, 'append')
    try {
      const notes = Array.from({ length: 250 }, (_, n) => ({ text: `n: ${n}\n`, by: ['plugin'], at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)) }))
      history.noteAll(notes)
      expect(append.mock.calls.map(([batch]) => batch.length)).toEqual([100, 100, 50])
      const lines = (await readFile(history.journal, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { at: string; sha256: string })
      expect(lines.map((line) => line.at)).toEqual(notes.map((note) => note.at.toISOString()))
      expect(lines.map((line) => line.sha256)).toEqual(notes.map((note) => digest(note.text)))
    } finally {
      append.mockRestore()
    }
  })

  it('notes gathered writes on its own after a short pause, and at close', async () => {
    const noteAll = vi.spyOn(DocumentHistory.prototype, 'noteAll')
    try {
      const { handle } = await boot()
      await handle.update({ limit: 1 })
      await handle.update({ limit: 2 })
      await vi.waitFor(() => expect(noteAll).toHaveBeenCalledTimes(1), { timeout: 2000, interval: 5 })
      await handle.update({ limit: 3 })
      await fixture.harness!.dispose()
      fixture.harness = undefined
      expect(noteAll).toHaveBeenCalledTimes(2)
      const journal = join(fixture.dir, 'history', 'settings.journal.jsonl')
      expect((await readFile(journal, 'utf8')).trim().split('\n')).toHaveLength(3)
    } finally {
      noteAll.mockRestore()
    }
  })
})

describe('a journal that cannot be written', () => {
  it('costs only its record: the write is stored and resolves, and the failure is warned', async () => {
    const note = vi.spyOn(DocumentHistory.prototype, 'noteAll').mockImplementation(() => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })
    })
    try {
      const { path, handle } = await boot()
      await handle.update({ limit: 9 })
      expect(await readFile(path, 'utf8')).toContain('limit: 9')
      // The journal line is written once the write is answered; asking for the history waits for it.
      await fixture.harness!.settings.history()
      expect(note).toHaveBeenCalledTimes(1)
      expect(fixture.harness!.logs.some((line) => line.includes('recording who wrote') && line.includes('no space left'))).toBe(true)
    } finally {
      note.mockRestore()
    }
  })

  it('a tidying that fails is warned, and neither a history listing nor disposal fails with it', async () => {
    // A journal over its bound is trimmed under the lock after the write is answered: that trim fails here.
    const note = vi.spyOn(DocumentHistory.prototype, 'noteAll').mockImplementation(() => true)
    const trim = vi.spyOn(DocumentHistory.prototype, 'trimJournal').mockRejectedValue(Object.assign(new Error('permission denied'), { code: 'EACCES' }))
    try {
      const { path, handle } = await boot()
      await handle.update({ limit: 9 })
      await handle.update({ limit: 10 })
      expect(await readFile(path, 'utf8')).toContain('limit: 10')
      await expect(fixture.harness!.settings.history()).resolves.toBeInstanceOf(Array)
      expect(trim).toHaveBeenCalled()
      expect(fixture.harness!.logs.some((line) => line.includes('trimming the history journal') && line.includes('permission denied'))).toBe(true)
      await fixture.harness!.dispose()
      fixture.harness = undefined
    } finally {
      note.mockRestore()
      trim.mockRestore()
    }
  })
})
