/**
 * The session's live refresh with many namespaces in mind, against the real
 * settings service and controller behind a fake wire (tests/app/fake-remote.ts).
 *
 * What these tests prove: a save reads nothing more (its answer is the
 * section's new view; its own events, before or after the answer, are judged
 * against it); an outside change reads only the namespace its event names,
 * with `describe(scope, [ns])`, and leaves every other section's object as it
 * was; a global change is read into the named scope shown, a change in another
 * named scope is not read; a namespace no longer registered leaves and one
 * registered since arrives; an event it cannot read, a reconnection or a scope
 * switch read everything; a conflict reads only its namespace; forms are built
 * when first read, not with the load.
 */
import { describe, expect, it, vi } from 'vitest'
import type { Context, Fiber } from 'cordis'
import Schema from 'schemastery'
import { createScope } from 'dsh-scope'
import type { MemorySettingsProvider } from 'dsh-settings/memory'
import { MAX_DESCRIBE_NAMESPACES } from 'dsh-settings-controller'
import { drainMicrotasks } from 'dsh-testing'
import { formBuilt } from '../../src/app/lazy-section.ts'
import { MAX_NAMED_READ, type SettingsSession, type SectionState } from '../../src/app/session.ts'
import type { FakeRemote } from './fake-remote.ts'
import { until, useStack } from './stack.ts'

const Demo = Schema.object({ limit: Schema.natural().default(10), note: Schema.string().default('') })
const Range = Schema.object({ min: Schema.natural().default(0), max: Schema.natural().default(10) })

interface Booted {
  root: Context
  provider: MemorySettingsProvider
  remote: FakeRemote
  session: SettingsSession
  register(ns: string, schema: Schema, scope?: string): Promise<Fiber>
}

const stack = useStack()

/** A memory provider, the controller, `demo` and `range` globally and `demo` in `preset/coder`, and a started, live session. */
async function started(): Promise<Booted> {
  const { root, provider, session: open } = await stack.boot()
  const register = async (ns: string, schema: Schema, scope?: string) => {
    const parent = scope === undefined ? root : createScope(root, { name: scope }).ctx
    const fiber = parent.plugin({ inject: ['settings'], apply: (ctx: Context) => void ctx.settings.register(ns, schema) })
    await fiber.await()
    return fiber
  }
  await register('demo', Demo)
  await register('range', Range)
  await register('demo', Demo, 'preset/coder')
  const { remote, session } = open()
  session.start()
  await until(session, (state) => state.status === 'ready')
  remote.options.connected?.()
  return { root, provider, remote, session, register }
}

function section(session: SettingsSession, ns: string): SectionState {
  const found = session.state.sections.find((candidate) => candidate.form.ns === ns)
  if (!found) throw new Error(`no section ${ns}`)
  return found
}

const names = (session: SettingsSession) => session.state.sections.map((candidate) => candidate.form.ns)
const valueOf = (session: SettingsSession, ns: string) => section(session, ns).form.view.value as Record<string, unknown>
const describes = (remote: FakeRemote) => remote.calls.filter((call) => call.method === 'describe').map((call) => call.args)

/** The stored revision of a section, as the controller's event carries it. */
function revisionOf(provider: MemorySettingsProvider, ns: string, scope?: string): number {
  return provider.describe({ ns, ...(scope ? { scope } : {}) })[0]!.revision
}

describe('a save', () => {
  it('reads nothing more: its own events, before or after its answer, are judged against the answer', async () => {
    const { provider, remote, session } = await started()
    const read = describes(remote).length
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const gate = remote.hold('mutate')
    const pending = session.apply('demo', { type: 'set', path: ['limit'], value: 3 })
    await vi.waitFor(() => expect(provider.document().demo).toEqual({ limit: 3 }))
    // The write's events reach the page before its answer does.
    const event = { ns: 'demo', revision: revisionOf(provider, 'demo') }
    remote.emit('settings/document-updated', event)
    remote.emit('settings/updated', { ns: 'demo', source: 'update' })
    gate.resolve()
    expect(await pending).toBeUndefined()
    expect(valueOf(session, 'demo').limit).toBe(3)
    // And once more after it, as a slower stream would deliver them.
    remote.emit('settings/document-updated', event)
    vi.runOnlyPendingTimers()
    await drainMicrotasks()
    expect(describes(remote).length).toBe(read)
  })
})

describe('an outside change', () => {
  it('reads only the namespace its event names, and leaves the other sections as they were', async () => {
    const { provider, remote, session } = await started()
    const demo = section(session, 'demo')
    await provider.update('range', { max: 42 })
    remote.emit('settings/document-updated', { ns: 'range', revision: revisionOf(provider, 'range') })
    await until(session, () => valueOf(session, 'range').max === 42)
    expect(describes(remote).at(-1)).toEqual([null, ['range']])
    expect(section(session, 'demo')).toBe(demo)
    expect(names(session)).toEqual(['demo', 'range'])
  })

  it('reads a global change into the named scope shown, and ignores one of another named scope', async () => {
    const { provider, remote, session } = await started()
    await session.showScope('preset/coder')
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const read = describes(remote).length
    remote.emit('settings/document-updated', { ns: 'demo', revision: 99, scope: 'preset/other' })
    vi.runOnlyPendingTimers()
    expect(describes(remote).length).toBe(read)
    vi.useRealTimers()
    await provider.update('demo', { note: 'from global' })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    await until(session, () => (section(session, 'demo').form.view.inherited as { note?: string } | undefined)?.note === 'from global')
    expect(describes(remote).at(-1)).toEqual(['preset/coder', ['demo']])
  })

  it('drops a namespace no longer registered and adds one registered since, from the events naming them', async () => {
    const { provider, remote, session, register } = await started()
    const fiber = await register('extra', Range)
    await provider.update('extra', { max: 5 })
    remote.emit('settings/document-updated', { ns: 'extra', revision: revisionOf(provider, 'extra') })
    await until(session, () => names(session).includes('extra'))
    expect(names(session)).toEqual(['demo', 'range', 'extra'])
    expect(valueOf(session, 'extra').max).toBe(5)
    const last = section(session, 'extra').form.revision
    await fiber.dispose()
    remote.emit('settings/document-updated', { ns: 'extra', revision: last + 1 })
    await until(session, () => !names(session).includes('extra'))
    expect(names(session)).toEqual(['demo', 'range'])
  })

  it('reads everything for an event it cannot read', async () => {
    const { provider, remote, session } = await started()
    await provider.update('demo', { note: 'unnamed' })
    remote.emit('settings/document-updated', { revision: 1 })
    await until(session, () => valueOf(session, 'demo').note === 'unnamed')
    expect(describes(remote).at(-1)).toEqual([])
  })

  it('reads everything after the stream reconnects and on a scope switch', async () => {
    const { remote, session } = await started()
    remote.options.reconnected?.()
    await vi.waitFor(() => expect(describes(remote).at(-1)).toEqual([]))
    await session.showScope('preset/coder')
    expect(describes(remote).at(-1)).toEqual(['preset/coder'])
  })
})

describe('a conflict', () => {
  it('reads only its own namespace to show what changed', async () => {
    const { provider, remote, session } = await started()
    await provider.update('demo', { note: 'theirs' })
    await session.apply('demo', { type: 'set', path: ['limit'], value: 4 })
    expect(section(session, 'demo').conflict?.latest.value).toMatchObject({ note: 'theirs' })
    expect(describes(remote).at(-1)).toEqual([null, ['demo']])
  })
})

describe('forms', () => {
  it('are built when first read, not with the load', async () => {
    const { session } = await started()
    const [demo, range] = session.state.sections
    expect(formBuilt(demo!)).toBe(false)
    expect(formBuilt(range!)).toBe(false)
    expect(demo!.form.ns).toBe('demo')
    expect(formBuilt(demo!)).toBe(true)
    expect(formBuilt(range!)).toBe(false)
  })

  it('name at most what the controller takes in one read', () => {
    expect(MAX_NAMED_READ).toBeLessThanOrEqual(MAX_DESCRIBE_NAMESPACES)
  })
})
