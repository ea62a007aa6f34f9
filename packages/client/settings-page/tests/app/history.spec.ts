/**
 * The history view against the real file provider (which keeps replaced
 * versions) and controller, through the same JSON-round-tripping remote as
 * the session tests.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import Schema from 'schemastery'
import { createScope } from 'dsh-scope'
import type { SettingsProvider } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { SettingsController } from 'dsh-settings-controller'
import { FileSettingsProvider } from 'dsh-settings-file'
import { drainMicrotasks } from 'dsh-testing'
import { HISTORY_PAGE, sectionName, whoMadeIt, type HistoryState } from '../../src/app/history.ts'
import { SettingsSession, type SessionState } from '../../src/app/session.ts'
import { serviceOf } from '../e2e/harness/deployment.ts'
import { expectNotKept, expectSecretInStore, readSecretStore } from '../e2e/harness/stored-secrets.ts'
import { FakeRemote } from './fake-remote.ts'
import { until } from './stack.ts'

const Demo = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  limit: Schema.natural().default(10),
  apiKey: Schema.string().role('secret'),
})

const OLD_SECRET = 'sk-old-NEVER-IN-STATE-1111'
const NEW_SECRET = 'sk-new-NEVER-IN-STATE-2222'

interface Handle {
  update(patch: Record<string, unknown>): Promise<unknown>
}

interface Booted {
  settings: SettingsProvider
  remote: FakeRemote
  session: SettingsSession
  /** Writes as the registering plugin (`by: plugin`). */
  plugin: Handle
  file: string
}

const disposers: (() => Promise<unknown> | void)[] = []

afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

/**
 * Boot the file provider (history on, no watcher: every write goes through
 * the seam; secrets written go to `secrets` — `secrets.yaml` by default) on a
 * temp document, the controller, `demo` globally and in `preset/coder`, and a
 * started session.
 */
async function boot(document = `demo:\n  limit: 5\n  apiKey: ${OLD_SECRET}\n`, secrets: 'file' | 'inline' = 'file'): Promise<Booted> {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'dsh-page-history-')))
  disposers.push(() => rm(home, { recursive: true, force: true }))
  const file = join(home, 'settings.yaml')
  await writeFile(file, document, { mode: 0o600 })
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const providerFiber = root.plugin(FileSettingsProvider, { path: file, watch: false, editorSchema: false, secrets })
  await providerFiber
  disposers.push(() => providerFiber.dispose())
  const settings = await serviceOf(root, 'settings')
  const controllerFiber = root.plugin(SettingsController, { opener: false })
  await controllerFiber
  disposers.push(() => controllerFiber.dispose())
  const controller = await serviceOf(root, 'settingsController')
  let plugin!: Handle
  const registered = root.plugin({
    inject: ['settings'],
    apply: (ctx: Context) => {
      plugin = ctx.settings.register('demo', Demo) as unknown as Handle
    },
  })
  await registered.await()
  const scoped = createScope(root, { name: 'preset/coder' }).ctx.plugin({ inject: ['settings'], apply: (ctx: Context) => void ctx.settings.register('demo', Demo) })
  await scoped.await()
  const remote = new FakeRemote(controller)
  const session = new SettingsSession(remote.asRemote())
  disposers.push(() => session.close())
  session.start()
  await until(session, (state) => state.status === 'ready')
  return { settings, remote, session, plugin, file }
}


const demo = (session: SettingsSession) => session.state.sections.find((section) => section.form.ns === 'demo')!

/**
 * A document with three kept versions: the first (unknown author, its secret
 * inline as a hand-written document may hold it), the plugin's, and the
 * wire's own, whose new secret went to the secret store (`secrets` `file`) or
 * stayed in the document (`inline`).
 */
async function withVersions(secrets: 'file' | 'inline' = 'file'): Promise<Booted> {
  const booted = await boot(undefined, secrets)
  await booted.plugin.update({ engine: 'google' }) // keeps the first text: written before any record, so unknown
  await booted.settings.update('demo', { limit: 7 }, undefined, undefined, 'wire') // keeps the plugin's version
  await booted.settings.update('demo', { apiKey: NEW_SECRET }, undefined, undefined, 'wire') // keeps the wire's version
  // The page has not heard of these writes (the test drives its event stream): let it read them.
  await booted.session.refresh()
  return booted
}

async function shown(booted: Booted): Promise<HistoryState> {
  await booted.session.history.show()
  return until(booted.session.history, (state) => state.status === 'ready')
}

describe('offering the history view', () => {
  it('is offered when the provider keeps versions', async () => {
    const { session, remote } = await boot()
    expect(session.state.history).toBe(true)
    expect(remote.count('history')).toBe(0)
  })

  it('is not offered by a provider that keeps none, and says why when asked anyway', async () => {
    const root = new Context()
    root.logger.exporter({ export: () => {} })
    const providerFiber = root.plugin(MemorySettingsProvider, { document: {} })
    await providerFiber
    disposers.push(() => providerFiber.dispose())
    const controllerFiber = root.plugin(SettingsController, { opener: false })
    await controllerFiber
    disposers.push(() => controllerFiber.dispose())
    const session = new SettingsSession(new FakeRemote(await serviceOf(root, 'settingsController')).asRemote())
    disposers.push(() => session.close())
    session.start()
    const state = await until(session, (s: SessionState) => s.status === 'ready')
    expect(state.history).toBe(false)
    await session.history.show()
    expect(session.history.state).toMatchObject({ open: true, status: 'failed' })
    expect(session.history.state.failure).toMatch(/keeps no history/)
  })
})

describe('the list of versions', () => {
  it('lists kept versions newest first, with who made each and which sections it changed', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    expect(booted.remote.last('history')?.args).toEqual([{ limit: HISTORY_PAGE }])
    expect(state.versions.map((version) => whoMadeIt(version.by))).toEqual(['this host (wire)', 'this host (plugin)', 'unknown (no record left)'])
    expect(state.versions.every((version) => version.sections.map(sectionName).join() === 'demo')).toBe(true)
    expect(state.more).toBe(false)
    expect(state.selected).toBeUndefined()
  })

  it('pages back with `before`, and says when nothing older is left', async () => {
    const booted = await boot()
    for (let limit = 1; limit <= HISTORY_PAGE + 2; limit++) await booted.settings.update('demo', { limit }, undefined, undefined, 'wire')
    const first = await shown(booted)
    expect(first.versions).toHaveLength(HISTORY_PAGE)
    expect(first.more).toBe(true)
    await booted.session.history.loadMore()
    const all = booted.session.history.state
    expect(booted.remote.last('history')?.args).toEqual([{ limit: HISTORY_PAGE, before: first.versions.at(-1)!.id }])
    expect(all.versions).toHaveLength(HISTORY_PAGE + 2)
    expect(new Set(all.versions.map((version) => version.id)).size).toBe(HISTORY_PAGE + 2)
    expect(all.more).toBe(false)
    expect(all.loadingMore).toBe(false)
  })

  it('reads the list and the shown difference again when a settings event arrives', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    await booted.session.history.select(state.versions[0]!.id)
    booted.remote.options.connected?.()
    const compares = booted.remote.count('compare')
    await booted.settings.update('demo', { engine: 'bing' }, undefined, undefined, 'host')
    booted.remote.emit('settings/document-updated', { ns: 'demo', revision: 99 })
    const after = await until(booted.session.history, (s) => s.versions.length === 4)
    expect(whoMadeIt(after.versions[0]!.by)).toBe('this host (wire)')
    await until(booted.session.history, (s) => booted.remote.count('compare') > compares && s.diff?.status === 'ready')
    expect(booted.session.history.state.diff?.sections[0]?.fields.map((field) => field.path.join('.'))).toContain('engine')
  })

  it('forgets everything it read when hidden, and drops answers that arrive after', async () => {
    const booted = await withVersions()
    const gate = booted.remote.hold('history')
    const showing = booted.session.history.show()
    booted.session.history.hide()
    gate.resolve()
    await showing
    expect(booted.session.history.state).toMatchObject({ open: false, status: 'idle', versions: [] })
  })
})

describe('the difference of a version', () => {
  it('shows plain values both ways and secrets only as changed, never a value', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    const oldest = state.versions.at(-1)!
    await booted.session.history.select(oldest.id)
    const { diff } = booted.session.history.state
    expect(booted.remote.last('compare')?.args).toEqual([oldest.id])
    expect(diff).toMatchObject({ version: oldest.id, status: 'ready' })
    expect(diff?.sections).toEqual([
      {
        ns: 'demo',
        fields: [
          { path: ['apiKey'], change: 'changed', secret: true },
          { path: ['engine'], change: 'set', after: 'google' },
          { path: ['limit'], change: 'changed', before: 5, after: 7 },
        ],
      },
    ])
    // Neither the answers nor anything the page holds carries a secret's value.
    const held = JSON.stringify([booted.session.state, booted.session.history.state, await booted.remote.settings.compare(oldest.id), await booted.remote.settings.history()])
    for (const secret of [OLD_SECRET, NEW_SECRET]) expect(held).not.toContain(secret)
  })

  it('keeps the newest selection when an older compare answers late', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    const [newest, , oldest] = state.versions
    const gate = booted.remote.hold('compare')
    const first = booted.session.history.select(oldest!.id)
    await booted.session.history.select(newest!.id)
    gate.resolve()
    await first
    expect(booted.session.history.state.selected).toBe(newest!.id)
    expect(booted.session.history.state.diff?.version).toBe(newest!.id)
  })

  it('says when a version cannot be compared', async () => {
    const booted = await withVersions()
    await shown(booted)
    await booted.session.history.select('settings.20990101T000000000Z.deadbeef.yaml')
    expect(booted.session.history.state.diff).toMatchObject({ status: 'failed' })
    expect(booted.session.history.state.diff?.failure).toMatch(/no kept settings version/)
  })
})

describe('restoring', () => {
  it('restores a whole version, announces it, and lists the restore as a version of its own; the version’s secret goes to the store', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    const oldest = state.versions.at(-1)!
    await booted.session.history.select(oldest.id)
    await booted.session.history.restoreVersion()
    expect(booted.remote.last('restore')?.args).toEqual([oldest.id])
    expect(booted.session.state.notice).toBe('Restored demo from the selected version.')
    const text = await readFile(booted.file, 'utf8')
    expect(text).toContain('limit: 5')
    expect(text).not.toContain('google')
    // The oldest version held its secret inline; restoring it writes that secret, which goes to the store like any other.
    expect(text).toContain('apiKey: !secret demo.apiKey')
    await expectSecretInStore(booted.file, { ns: 'demo', path: ['apiKey'] }, OLD_SECRET)
    expect(booted.settings.get('demo')).toMatchObject({ engine: 'bing', limit: 5, apiKey: OLD_SECRET })
    // The secret the wire wrote went to the store: no kept version holds it, the one the restore replaced included.
    await expectNotKept(booted.file, [NEW_SECRET])
    const after = booted.session.history.state
    expect(after.restoring).toBe(false)
    expect(after.error).toBeUndefined()
    expect(after.versions).toHaveLength(4)
    expect(after.versions[0]!.by).toEqual(['wire'])
    // The selected version now matches the document.
    expect(after.selected).toBe(oldest.id)
    expect(after.diff).toMatchObject({ status: 'ready', sections: [] })
    expect(JSON.stringify([after, booted.session.state])).not.toContain(OLD_SECRET)
  })

  it('restores an inline secret into the document when the provider keeps secrets inline', async () => {
    const booted = await withVersions('inline')
    const state = await shown(booted)
    expect(state.versions.map((version) => whoMadeIt(version.by))).toEqual(['this host (wire)', 'this host (plugin)', 'unknown (no record left)'])
    const oldest = state.versions.at(-1)!
    await booted.session.history.select(oldest.id)
    await booted.session.history.restoreVersion()
    expect(booted.session.state.notice).toBe('Restored demo from the selected version.')
    expect(await readFile(booted.file, 'utf8')).toBe(`demo:\n  limit: 5\n  apiKey: ${OLD_SECRET}\n`)
    expect((await readSecretStore(booted.file)).exists).toBe(false)
    expect(booted.settings.get('demo')).toMatchObject({ engine: 'bing', limit: 5, apiKey: OLD_SECRET })
    const after = booted.session.history.state
    expect(after.versions).toHaveLength(4)
    expect(after.diff).toMatchObject({ status: 'ready', sections: [] })
    expect(JSON.stringify([after, booted.session.state])).not.toContain(OLD_SECRET)
  })

  it('keeps no version for a change of a secret the store holds, and a restored reference reads the store’s current value', async () => {
    const booted = await boot(`demo:\n  limit: 5\n`)
    await booted.settings.update('demo', { apiKey: OLD_SECRET }, undefined, undefined, 'wire') // keeps the first text; the document gets the reference
    await booted.settings.update('demo', { limit: 7 }, undefined, undefined, 'wire') // keeps the version holding the reference and limit 5
    const before = await readFile(booted.file, 'utf8')
    await booted.settings.update('demo', { apiKey: NEW_SECRET }, undefined, undefined, 'wire') // secrets.yaml alone
    expect(await readFile(booted.file, 'utf8')).toBe(before)
    await expectSecretInStore(booted.file, { ns: 'demo', path: ['apiKey'] }, NEW_SECRET)
    await expectNotKept(booted.file, [OLD_SECRET, NEW_SECRET])
    await booted.session.refresh()
    const state = await shown(booted)
    expect(state.versions.map((version) => whoMadeIt(version.by))).toEqual(['this host (wire)', 'unknown (no record left)'])
    // The kept reference reads as the store's value now, so only the limit differs.
    await booted.session.history.select(state.versions[0]!.id)
    expect(booted.session.history.state.diff?.sections).toEqual([{ ns: 'demo', fields: [{ path: ['limit'], change: 'changed', before: 5, after: 7 }] }])
    await booted.session.history.restoreVersion()
    expect(booted.session.state.notice).toBe('Restored demo from the selected version.')
    expect(await readFile(booted.file, 'utf8')).toBe(before.replace('limit: 7', 'limit: 5'))
    await expectSecretInStore(booted.file, { ns: 'demo', path: ['apiKey'] }, NEW_SECRET)
    expect(booted.settings.get('demo')).toMatchObject({ limit: 5, apiKey: NEW_SECRET })
    await expectNotKept(booted.file, [OLD_SECRET, NEW_SECRET])
    expect(JSON.stringify([booted.session.history.state, booted.session.state])).not.toMatch(/NEVER-IN-STATE/)
  })

  it('restores one section with the revision of the form the page holds', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    await booted.session.history.select(state.versions.at(-1)!.id)
    const revision = demo(booted.session).form.revision
    await booted.session.history.restoreSection('demo', undefined)
    expect(booted.remote.last('restore')?.args).toEqual([state.versions.at(-1)!.id, { ns: 'demo', expectedRevision: revision }])
    expect(await readFile(booted.file, 'utf8')).toContain('limit: 5')
  })

  it('restores a section of a scope the page does not show with the revision read beside the difference', async () => {
    const booted = await boot()
    await booted.settings.update('demo', { limit: 30 }, undefined, 'preset/coder', 'wire')
    await booted.settings.update('demo', { limit: 40 }, undefined, 'preset/coder', 'wire')
    const state = await shown(booted)
    await booted.session.history.select(state.versions[0]!.id)
    expect(booted.session.history.state.diff?.sections.map(sectionName)).toEqual(['demo in preset/coder'])
    expect(booted.remote.last('describe')?.args).toEqual(['preset/coder'])
    const scoped = (await booted.remote.settings.describe('preset/coder')).namespaces.find((view) => view.ns === 'demo')!
    await booted.session.history.restoreSection('demo', 'preset/coder')
    expect(booted.remote.last('restore')?.args).toEqual([state.versions[0]!.id, { ns: 'demo', scope: 'preset/coder', expectedRevision: scoped.revision }])
    expect(await readFile(booted.file, 'utf8')).toContain('limit: 30')
  })

  it('shows a conflict at the section when it changed since the page read it, and reads the difference again', async () => {
    const booted = await withVersions()
    const state = await shown(booted)
    const oldest = state.versions.at(-1)!
    await booted.session.history.select(oldest.id)
    // Somebody writes the section; the page has not heard of it yet.
    await booted.settings.update('demo', { limit: 8 }, undefined, undefined, 'host')
    const compares = booted.remote.count('compare')
    await booted.session.history.restoreSection('demo', undefined)
    const after = booted.session.history.state
    expect(after.error).toMatchObject({ code: 'settings/conflict', section: { ns: 'demo' } })
    expect(after.error?.message).toMatch(/^demo changed since the difference was read/)
    expect(booted.remote.count('compare')).toBe(compares + 1)
    expect(after.diff?.sections[0]?.fields).toContainEqual({ path: ['limit'], change: 'changed', before: 5, after: 8 })
    expect(await readFile(booted.file, 'utf8')).toContain('limit: 8')
  })

  it('skips a section no plugin registers now, and says so', async () => {
    const booted = await boot(`demo:\n  limit: 5\nother:\n  x: 1\n`)
    await booted.settings.update('demo', { limit: 6 }, undefined, undefined, 'wire') // keeps the first text
    // An editor changes the section of a namespace nothing registers, then the host writes again.
    await writeFile(booted.file, (await readFile(booted.file, 'utf8')).replace('x: 1', 'x: 2'))
    await booted.settings.update('demo', { limit: 7 }, undefined, undefined, 'wire')
    await booted.session.refresh()
    const state = await shown(booted)
    await booted.session.history.select(state.versions.at(-1)!.id)
    expect(booted.session.history.state.diff?.sections).toEqual([
      { ns: 'demo', fields: [{ path: ['limit'], change: 'changed', before: 5, after: 7 }] },
      { ns: 'other', fields: [], unregistered: true },
    ])
    await booted.session.history.restoreVersion()
    expect(booted.session.state.notice).toBe('Restored demo from the selected version. Skipped other: no plugin registers it now.')
    const text = await readFile(booted.file, 'utf8')
    expect(text).toContain('limit: 5')
    expect(text).toContain('x: 2')
  })

  it('does nothing without a selected version', async () => {
    const booted = await withVersions()
    await shown(booted)
    const calls = booted.remote.calls.length
    await booted.session.history.restoreVersion()
    await booted.session.history.restoreSection('demo', undefined)
    await drainMicrotasks()
    expect(booted.remote.calls.length).toBe(calls)
  })
})

describe('words', () => {
  it('names who made a version and a section', () => {
    expect(whoMadeIt(['plugin'])).toBe('this host (plugin)')
    expect(whoMadeIt(['outside'])).toBe('an outside edit')
    expect(whoMadeIt(['plugin', 'wire'])).toBe('this host (plugin) and this host (wire)')
    expect(whoMadeIt(['host', 'plugin', 'wire'])).toBe('this host, this host (plugin) and this host (wire)')
    expect(whoMadeIt([])).toBe('unknown (no record left)')
    expect(sectionName({ ns: 'search' })).toBe('search')
    expect(sectionName({ ns: 'search', scope: 'preset/coder' })).toBe('search in preset/coder')
  })
})
