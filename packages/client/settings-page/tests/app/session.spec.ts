/**
 * SettingsSession against the real settings service and controller. The
 * remote is a stand-in for the wire: every call goes through the controller's
 * own wire handlers with arguments, answers and errors round-tripped through
 * JSON, and the event stream is driven by the test.
 */
import { describe, expect, it, vi } from 'vitest'
import type { Context, Fiber } from 'cordis'
import Schema from 'schemastery'
import { createScope } from 'dsh-scope'
import type { SettingsDocument, SettingsRegisterOptions } from 'dsh-settings'
import type { MemorySettingsProvider } from 'dsh-settings/memory'
import { RemoteError } from 'dsh-remote/client'
import type { SettingsController } from 'dsh-settings-controller'
import { drainMicrotasks } from 'dsh-testing'
import type { SettingsSession, SectionState } from '../../src/app/session.ts'
import { EDIT_REFUSAL_ENGLISH } from '../../src/model/index.ts'
import type { FakeRemote } from './fake-remote.ts'
import { until, useStack } from './stack.ts'

const Demo = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  limit: Schema.natural().default(10),
  note: Schema.string().default(''),
  apiKey: Schema.string().role('secret'),
  accounts: Schema.array(Schema.object({ user: Schema.string(), password: Schema.string().role('secret') })).default([]),
})

interface Range {
  min: number
  max: number
}

const RangeSchema = Schema.object({ min: Schema.natural().default(0), max: Schema.natural().default(10) })

/** Refuses a range whose ends are swapped: a rule only a plugin's own check can state. */
const rangeCheck: SettingsRegisterOptions<Range> = {
  validate: (value) => {
    if (value.min > value.max) throw new Error('min must not exceed max')
  },
}

interface Booted {
  provider: MemorySettingsProvider
  controller: SettingsController
  remote: FakeRemote
  session: SettingsSession
}

const stack = useStack()

/**
 * Boot a memory provider and the controller, register `demo` and `range`
 * globally (and `demo` under `preset/coder`), and construct a session on a fake remote.
 */
async function boot(options: { document?: SettingsDocument; writable?: boolean } = {}): Promise<Booted> {
  const { root, provider, controller, session: open } = await stack.boot(options)
  const register = async (parent: Context, ns: string, schema: Schema, registerOptions?: SettingsRegisterOptions<any>): Promise<Fiber> => {
    const fiber = parent.plugin({ inject: ['settings'], apply: (ctx: Context) => void ctx.settings.register(ns, schema, registerOptions) })
    await fiber.await()
    return fiber
  }
  await register(root, 'demo', Demo)
  await register(root, 'range', RangeSchema, rangeCheck)
  await register(createScope(root, { name: 'preset/coder' }).ctx, 'demo', Demo)
  const { remote, session } = open()
  return { provider, controller, remote, session }
}

/** Start the session and wait for its first full load. */
async function started(options?: Parameters<typeof boot>[0]): Promise<Booted> {
  const booted = await boot(options)
  booted.session.start()
  await until(booted.session, (state) => state.status === 'ready')
  return booted
}

function section(session: SettingsSession, ns: string): SectionState {
  const found = session.state.sections.find((candidate) => candidate.form.ns === ns)
  if (!found) throw new Error(`no section ${ns}`)
  return found
}

/** The stored revision of a global section, for event payloads as the controller would send them. */
const revisionOf = (provider: MemorySettingsProvider, ns: string) => provider.describe({ redactSecrets: true }).find((view) => view.ns === ns)!.revision

const valueOf = (session: SettingsSession, ns: string) => section(session, ns).form.view.value as Record<string, unknown>

describe('start', () => {
  it('loads the global scope, one section per namespace, and goes live once the stream connects', async () => {
    const { remote, session } = await boot({ document: { demo: { note: 'stored' } } })
    expect(session.state).toMatchObject({ status: 'loading', connection: 'connecting', sections: [] })
    session.start()
    const state = await until(session, (s) => s.status === 'ready')
    expect(state.scope).toBeUndefined()
    expect(state.writable).toBe(true)
    expect(state.document).toBe(false)
    expect(state.scopes).toEqual(['preset/coder'])
    expect(state.sections.map((s) => s.form.ns)).toEqual(['demo', 'range'])
    expect(state.sections.every((s) => !s.busy && s.form.scope === undefined && s.form.registered)).toBe(true)
    expect(valueOf(session, 'demo')).toMatchObject({ note: 'stored', engine: 'bing' })
    expect(remote.last('describe')?.args).toEqual([])

    expect(session.state.connection).toBe('connecting')
    remote.options.connected?.()
    expect(session.state.connection).toBe('live')
    expect(remote.options.signal.aborted).toBe(false)
  })

  it('reports a read-only provider as not writable', async () => {
    const { session } = await started({ writable: false })
    expect(session.state.writable).toBe(false)
  })

  it('marks a failed first load and recovers on reconnection', async () => {
    const booted = await boot()
    const gate = booted.remote.hold('describe')
    gate.reject(new RemoteError('remote/unavailable', 'the server could not be reached'))
    booted.session.start()
    const failed = await until(booted.session, (s) => s.status === 'failed')
    expect(failed.failure).toBe('the server could not be reached')
    expect(failed.sections).toEqual([])

    booted.remote.options.reconnected?.()
    const ready = await until(booted.session, (s) => s.status === 'ready')
    expect(ready.failure).toBeUndefined()
    expect(ready.sections.map((s) => s.form.ns)).toEqual(['demo', 'range'])
  })

  it('follows the stream through a drop and reports a stream refused for good as closed', async () => {
    const { remote, session } = await started()
    remote.options.connected?.()
    remote.options.error?.(new RemoteError('remote/unavailable', 'the event stream ended'))
    expect(session.state.connection).toBe('reconnecting')
    remote.options.connected?.()
    expect(session.state.connection).toBe('live')

    const refused = await boot()
    refused.remote.refuseStream = new RemoteError('remote/unauthorized', 'wrong token')
    refused.session.start()
    const closed = await until(refused.session, (s) => s.connection === 'closed')
    expect(closed.failure).toBe('wrong token')
  })
})

describe('apply', () => {
  it('writes a set edit through mutate with the form’s revision and takes the answer', async () => {
    const { provider, remote, session } = await started()
    const before = section(session, 'demo')
    const refused = await session.apply('demo', { type: 'set', path: ['note'], value: 'hello' })
    expect(refused).toBeUndefined()
    expect(remote.last('mutate')?.args).toEqual(['demo', [{ op: 'set', path: ['note'], value: 'hello' }], before.form.revision])
    const after = section(session, 'demo')
    expect(after).not.toBe(before)
    expect(after).toMatchObject({ busy: false })
    expect(after.error).toBeUndefined()
    expect(after.form.revision).toBe(before.form.revision + 1)
    expect(after.form.view.user).toEqual({ note: 'hello' })
    expect(session.state.notice).toBe('Saved demo.')
    expect(provider.document()).toEqual({ demo: { note: 'hello' } })
  })

  it('marks the section busy while the write is on its way', async () => {
    const { remote, session } = await started()
    const gate = remote.hold('mutate')
    const pending = session.apply('demo', { type: 'set', path: ['limit'], value: 3 })
    expect(section(session, 'demo').busy).toBe(true)
    gate.resolve()
    await pending
    expect(section(session, 'demo').busy).toBe(false)
    expect(valueOf(session, 'demo').limit).toBe(3)
  })

  it('sends an edit made while another is on its way after it, against its answer, so the two do not conflict', async () => {
    const { provider, remote, session } = await started()
    const read = section(session, 'demo').form.revision
    const gate = remote.hold('mutate')
    const first = session.apply('demo', { type: 'set', path: ['limit'], value: 3 })
    const second = session.apply('demo', { type: 'set', path: ['note'], value: 'after' })
    expect(remote.count('mutate')).toBe(1)
    gate.resolve()
    expect(await first).toBeUndefined()
    expect(await second).toBeUndefined()
    expect(remote.calls.filter((call) => call.method === 'mutate').map((call) => call.args[2])).toEqual([read, read + 1])
    expect(section(session, 'demo').conflict).toBeUndefined()
    expect(provider.document()).toEqual({ demo: { limit: 3, note: 'after' } })
  })

  it('reads the section again after a write when a change underneath arrived while it was on its way', async () => {
    const { provider, remote, session } = await started()
    remote.options.connected?.()
    const gate = remote.hold('mutate')
    const pending = session.apply('demo', { type: 'set', path: ['limit'], value: 3 })
    // The write has landed and its answer is read; before the page hears back, somebody else changes the section.
    await vi.waitFor(() => expect(provider.document().demo).toMatchObject({ limit: 3 }))
    await drainMicrotasks()
    await provider.update('demo', { note: 'theirs' })
    const described = remote.count('describe')
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    // The event may be the write's own: it waits for the write's answer, and nothing is read meanwhile.
    vi.runOnlyPendingTimers()
    expect(remote.count('describe')).toBe(described)
    vi.useRealTimers()
    gate.resolve()
    await pending
    // The event named a revision past the answer: that one section is read again.
    await until(session, () => (valueOf(session, 'demo') as { note?: string }).note === 'theirs')
    expect(valueOf(session, 'demo').limit).toBe(3)
    expect(section(session, 'demo').newer).toBeUndefined()
    expect(remote.calls.filter((call) => call.method === 'describe').slice(described)).toEqual([{ method: 'describe', args: [null, ['demo']] }])
  })

  it('never lets a read sent before a write’s answer take the form back to before that write', async () => {
    const { provider, remote, session } = await started()
    remote.options.connected?.()
    await provider.update('range', { max: 42 })
    // The refresh for the outside change is read now, and its answer is held back past the page's own write.
    const describing = remote.hold('describe')
    remote.emit('settings/document-updated', { ns: 'range', revision: revisionOf(provider, 'range') })
    await vi.waitFor(() => expect(remote.count('describe')).toBe(2))
    expect(await session.apply('demo', { type: 'set', path: ['limit'], value: 3 })).toBeUndefined()
    const written = section(session, 'demo').form.revision
    const heard = new Promise<void>((resolve) => {
      const off = session.subscribe(() => {
        off()
        resolve()
      })
    })
    describing.resolve()
    await heard
    expect(section(session, 'demo').form.revision).toBe(written)
    expect(valueOf(session, 'demo').limit).toBe(3)
    expect(valueOf(session, 'range').max).toBe(42)
    // A second edit is planned against the write's answer, not the older read, so it does not conflict.
    expect(await session.apply('demo', { type: 'set', path: ['note'], value: 'mine' })).toBeUndefined()
    expect(section(session, 'demo').conflict).toBeUndefined()
    expect(provider.document()).toEqual({ demo: { limit: 3, note: 'mine' }, range: { max: 42 } })
  })

  it('refuses an edit while the section has a conflict to resolve', async () => {
    const { provider, session } = await started()
    await provider.update('demo', { engine: 'google' })
    await session.apply('demo', { type: 'set', path: ['note'], value: 'mine' })
    expect(section(session, 'demo').conflict).toBeDefined()
    expect(await session.apply('demo', { type: 'set', path: ['limit'], value: 2 })).toBe('resolve the conflict shown above first')
  })

  it('sends a section reset through replace with an empty section', async () => {
    const { provider, remote, session } = await started({ document: { demo: { note: 'old', limit: 4 } } })
    const revision = section(session, 'demo').form.revision
    expect(await session.apply('demo', { type: 'reset-section' })).toBeUndefined()
    expect(remote.last('replace')?.args).toEqual(['demo', {}, revision])
    expect(valueOf(session, 'demo')).toMatchObject({ note: '', limit: 10 })
    expect(provider.document()).toEqual({ demo: {} })
  })

  it('returns the planner’s reason and sends nothing for an edit it refuses', async () => {
    const { remote, session } = await started({
      document: { demo: { accounts: [{ user: 'a', password: 'pw-a' }, { user: 'b', password: 'pw-b' }] } },
    })
    const sent = remote.calls.length
    const before = session.state
    // The reason in the page's language (English here), by the planner's code.
    expect(await session.apply('demo', { type: 'array-reorder', path: ['accounts'], order: [1, 0] })).toBe(EDIT_REFUSAL_ENGLISH['secret-order'])
    expect(await session.apply('demo', { type: 'set', path: [], value: {} })).toBe(EDIT_REFUSAL_ENGLISH['whole-section'])
    expect(await session.apply('gone', { type: 'set', path: ['x'], value: 1 })).toBe('this section is no longer shown')
    expect(remote.calls.length).toBe(sent)
    expect(session.state).toBe(before)
  })

  it('shows a refusal by the plugin’s own check on the section, with the path the server named', async () => {
    const { provider, session } = await started()
    expect(await session.apply('range', { type: 'set', path: ['min'], value: 50 })).toBeUndefined()
    const refused = section(session, 'range')
    expect(refused.busy).toBe(false)
    expect(refused.error).toMatchObject({ code: 'settings/rejected', path: [] })
    expect(refused.error?.message).toContain('min must not exceed max')
    expect(valueOf(session, 'range').min).toBe(0)
    expect(provider.document()).toEqual({})
  })

  it('shows a schema refusal with the refused field’s path', async () => {
    const { session } = await started()
    await session.apply('demo', { type: 'set', path: ['limit'], value: -1 })
    expect(section(session, 'demo').error).toMatchObject({ code: 'settings/rejected', path: ['limit'] })
  })

  it('shows a refusal that names no field (a read-only provider) without a path', async () => {
    const { session } = await started({ writable: false })
    await session.apply('demo', { type: 'set', path: ['note'], value: 'x' })
    const error = section(session, 'demo').error
    expect(error?.code).toBe('settings/rejected')
    expect(error?.message).toBeTruthy()
    expect(error).not.toHaveProperty('path')
  })

  it('clears an earlier refusal once a write succeeds', async () => {
    const { session } = await started()
    await session.apply('range', { type: 'set', path: ['min'], value: 50 })
    expect(section(session, 'range').error).toBeDefined()
    await session.apply('range', { type: 'set', path: ['max'], value: 60 })
    expect(section(session, 'range').error).toBeUndefined()
    expect(valueOf(session, 'range')).toMatchObject({ min: 0, max: 60 })
  })
})

describe('conflicts', () => {
  /** Load, then move the `demo` section underneath the page and send an edit with the stale revision. */
  async function conflicted() {
    const booted = await started()
    const { provider, session } = booted
    const read = section(session, 'demo').form.revision
    await provider.mutate('demo', [{ op: 'set', path: ['engine'], value: 'google' }])
    await session.apply('demo', { type: 'set', path: ['note'], value: 'mine' })
    return { ...booted, read }
  }

  it('names the fields that changed underneath and offers the latest read', async () => {
    const { provider, session, read } = await conflicted()
    const held = section(session, 'demo')
    expect(held.busy).toBe(false)
    expect(held.error).toBeUndefined()
    expect(held.form.revision).toBe(read)
    // The edit to re-apply stays out of the rendered state (it could carry a secret).
    expect(held.conflict && 'edit' in held.conflict).toBe(false)
    expect(JSON.stringify(session.state)).not.toContain('mine')
    expect(held.conflict?.changes).toEqual([{ path: ['engine'], kind: 'value' }])
    expect(held.conflict?.latest.revision).toBe(read + 1)
    expect(held.conflict?.latest.value).toMatchObject({ engine: 'google', note: '' })
    expect(provider.document()).toEqual({ demo: { engine: 'google' } })
  })

  it('reapply plans the same edit against the latest read and keeps both changes', async () => {
    const { provider, remote, session, read } = await conflicted()
    expect(await session.reapply('demo')).toBeUndefined()
    expect(remote.last('mutate')?.args).toEqual(['demo', [{ op: 'set', path: ['note'], value: 'mine' }], read + 1])
    const done = section(session, 'demo')
    expect(done.conflict).toBeUndefined()
    expect(done.form.revision).toBe(read + 2)
    expect(done.form.view.user).toEqual({ engine: 'google', note: 'mine' })
    expect(provider.document()).toEqual({ demo: { engine: 'google', note: 'mine' } })
    expect(session.state.notice).toBe('Saved demo.')
  })

  it('reapply without a conflict does nothing', async () => {
    const { remote, session } = await started()
    const sent = remote.calls.length
    expect(await session.reapply('demo')).toBeUndefined()
    expect(remote.calls.length).toBe(sent)
  })

  it('reload drops the conflict and shows the latest read without writing', async () => {
    const { provider, remote, session, read } = await conflicted()
    const writes = remote.count('mutate')
    await session.reload('demo')
    const shown = section(session, 'demo')
    expect(shown.conflict).toBeUndefined()
    expect(shown.form.revision).toBe(read + 1)
    expect(shown.form.view.value).toMatchObject({ engine: 'google', note: '' })
    expect(remote.count('mutate')).toBe(writes)
    expect(provider.document()).toEqual({ demo: { engine: 'google' } })
  })

  it('reload takes the newest read when another change arrived during the conflict', async () => {
    // A read that arrives while a conflict is open becomes the conflict's latest, with its changes listed.
    const { provider, remote, session, read } = await conflicted()
    await provider.mutate('demo', [{ op: 'set', path: ['limit'], value: 20 }])
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    await until(session, () => section(session, 'demo').conflict?.latest.revision === read + 2)
    expect(section(session, 'demo').conflict?.changes.map((change) => change.path)).toEqual([['engine'], ['limit']])
    await session.reload('demo')
    const shown = section(session, 'demo')
    expect(shown.conflict).toBeUndefined()
    expect(shown.form.revision).toBe(read + 2)
    expect(shown.form.view.value).toMatchObject({ engine: 'google', limit: 20 })
  })
})

describe('live refresh', () => {
  it('gathers a burst of events into one describe, after the event handler returns', async () => {
    const { provider, remote, session } = await started()
    remote.options.connected?.()
    const range = section(session, 'range')
    const described = remote.count('describe')
    await provider.update('demo', { note: 'outside' })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    remote.emit('settings/updated', { ns: 'demo', source: 'update' })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    expect(remote.count('describe')).toBe(described)
    await until(session, () => valueOf(session, 'demo').note === 'outside')
    expect(remote.count('describe')).toBe(described + 1)
    // A section the read did not change keeps its object, so a render can skip it.
    expect(section(session, 'range')).toBe(range)
  })

  it('ignores events that are not about settings', async () => {
    const { provider, remote, session } = await started()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const described = remote.count('describe')
    const before = session.state
    remote.emit('other/thing', { ns: 'demo' })
    expect(session.state).toBe(before)
    // A refresh it scheduled would run now, and its read is sent as the refresh starts.
    vi.runOnlyPendingTimers()
    expect(remote.count('describe')).toBe(described)
    // The sentinel: a settings event, under the same clock, is read with exactly one describe.
    await provider.update('demo', { note: 'sentinel' })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    vi.runOnlyPendingTimers()
    expect(remote.count('describe')).toBe(described + 1)
    vi.useRealTimers()
    await until(session, () => valueOf(session, 'demo').note === 'sentinel')
  })

  it('replaces a section nobody edits and flags one being edited with the newer read', async () => {
    const { provider, remote, session } = await started()
    const editedForm = section(session, 'range').form
    session.setEditing('range', 'max', true)
    expect(session.isEditing('range')).toBe(true)
    await provider.update('demo', { note: 'outside' })
    await provider.update('range', { max: 99 })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    remote.emit('settings/document-updated', { ns: 'range', revision: revisionOf(provider, 'range') })
    await until(session, () => valueOf(session, 'demo').note === 'outside')

    const edited = section(session, 'range')
    expect(edited.form).toBe(editedForm)
    expect(edited.newer?.value).toMatchObject({ max: 99 })
    expect(edited.newer?.revision).toBe(editedForm.revision + 1)

    await session.reload('range')
    const reloaded = section(session, 'range')
    expect(reloaded.newer).toBeUndefined()
    expect(reloaded.form.revision).toBe(editedForm.revision + 1)
    expect(reloaded.form.view.value).toMatchObject({ max: 99 })
    expect(session.isEditing('range')).toBe(false)
  })

  it('takes the new read once the control stops editing', async () => {
    const { provider, remote, session } = await started()
    session.setEditing('range', 'max', true)
    session.setEditing('range', 'max', false)
    expect(session.isEditing('range')).toBe(false)
    await provider.update('range', { max: 42 })
    remote.emit('settings/document-updated', { ns: 'range', revision: revisionOf(provider, 'range') })
    await until(session, () => valueOf(session, 'range').max === 42)
    expect(section(session, 'range').newer).toBeUndefined()
  })

  it('reload without a newer read describes again', async () => {
    const { provider, remote, session } = await started()
    const described = remote.count('describe')
    await provider.update('demo', { limit: 7 })
    await session.reload('demo')
    expect(remote.count('describe')).toBe(described + 1)
    expect(valueOf(session, 'demo').limit).toBe(7)
  })

  it('reads everything again on reconnection, with no event needed', async () => {
    const { provider, remote, session } = await started()
    remote.options.connected?.()
    remote.options.error?.(new RemoteError('remote/unavailable', 'the event stream ended'))
    await provider.update('demo', { note: 'while away' })
    await provider.update('range', { min: 2 })
    remote.options.connected?.()
    remote.options.reconnected?.()
    await until(session, () => valueOf(session, 'demo').note === 'while away')
    expect(valueOf(session, 'range').min).toBe(2)
    expect(session.state.connection).toBe('live')
  })

  it('keeps what it shows and says so when a refresh fails', async () => {
    const { remote, session } = await started()
    const sections = session.state.sections
    remote.hold('describe').reject(new RemoteError('remote/unavailable', 'the server could not be reached'))
    await session.refresh()
    expect(session.state.status).toBe('ready')
    expect(session.state.sections).toBe(sections)
    expect(session.state.notice).toBe('Could not refresh: the server could not be reached')
  })
})

describe('scopes', () => {
  it('refuses a malformed scope id without leaving the shown scope', async () => {
    const { remote, session } = await started()
    const described = remote.count('describe')
    const before = session.state
    const reason = await session.openScope('Bad Id')
    expect(reason).toMatch(/<kind>\/<id>/)
    expect(session.state).toBe(before)
    expect(session.state.scope).toBeUndefined()
    expect(remote.count('describe')).toBe(described)
  })

  it('opens a scope nothing is registered under, writes its own section, and returns to global', async () => {
    const { provider, remote, session } = await started()
    expect(await session.openScope(' preset/writer ')).toBeUndefined()
    expect(remote.last('describe')?.args).toEqual(['preset/writer'])
    const state = session.state
    expect(state.status).toBe('ready')
    expect(state.scope).toBe('preset/writer')
    expect(state.scopes).toEqual(['preset/coder', 'preset/writer'])
    expect(state.sections.map((s) => s.form.ns)).toEqual(['demo', 'range'])
    expect(state.sections.every((s) => s.form.scope === 'preset/writer' && !s.form.registered)).toBe(true)

    await session.apply('demo', { type: 'set', path: ['note'], value: 'scoped' })
    expect(remote.last('mutate')?.args.at(-1)).toBe('preset/writer')
    expect(provider.document()).toEqual({ scopes: { 'preset/writer': { demo: { note: 'scoped' } } } })

    await session.showScope(undefined)
    expect(session.state.scope).toBeUndefined()
    expect(session.state.scopes).toEqual(['preset/coder', 'preset/writer'])
    expect(session.state.sections.every((s) => s.form.scope === undefined && s.form.registered)).toBe(true)
    expect(valueOf(session, 'demo').note).toBe('')
  })

  it('shows a scope that is registered, with its own and inherited values', async () => {
    const { session } = await started({ document: { demo: { limit: 3 }, scopes: { 'preset/coder': { demo: { note: 'coder' } } } } })
    await session.showScope('preset/coder')
    const demo = section(session, 'demo')
    expect(demo.form.scope).toBe('preset/coder')
    expect(demo.form.registered).toBe(true)
    expect(demo.form.view.value).toMatchObject({ limit: 3, note: 'coder' })
    expect(section(session, 'range').form.registered).toBe(false)
  })

  /** Start on the global scope with its describe held, then move to `preset/writer` before it answers. */
  async function leaveWhileGlobalLoadIsHeld() {
    const { remote, session } = await boot()
    const gate = remote.hold('describe')
    session.start()
    await session.openScope('preset/writer')
    expect(session.state.scope).toBe('preset/writer')
    expect(session.state.status).toBe('ready')
    return { session, gate }
  }

  it('drops an answer for a scope the page has left', async () => {
    const { session, gate } = await leaveWhileGlobalLoadIsHeld()
    const shown = session.state
    gate.resolve()
    await drainMicrotasks()
    expect(session.state).toBe(shown)
    expect(session.state.sections.every((s) => s.form.scope === 'preset/writer')).toBe(true)
  })

  it('keeps the new scope shown when a load for the scope it left fails late', async () => {
    const { session, gate } = await leaveWhileGlobalLoadIsHeld()
    gate.reject(new RemoteError('remote/unavailable', 'the server could not be reached'))
    await drainMicrotasks()
    expect(session.state.status).toBe('ready')
    expect(session.state.failure).toBeUndefined()
    expect(session.state.scope).toBe('preset/writer')
  })

  it('does not put the answer of a write sent in the scope it left into the new scope', async () => {
    const { provider, remote, session } = await started()
    const gate = remote.hold('mutate')
    const pending = session.apply('demo', { type: 'set', path: ['note'], value: 'global' })
    await session.openScope('preset/writer')
    gate.resolve()
    await pending
    expect(provider.document()).toEqual({ demo: { note: 'global' } })
    expect(session.state.scope).toBe('preset/writer')
    const demo = section(session, 'demo')
    expect(demo.form.scope).toBe('preset/writer')
    expect(demo.form.view.value).toMatchObject({ note: '' })
  })
})

describe('close', () => {
  it('aborts the event stream’s signal and ends the stream', async () => {
    const { remote, session } = await started()
    const { signal } = remote.options
    expect(signal.aborted).toBe(false)
    session.close()
    expect(signal.aborted).toBe(true)
    await remote.subscription?.ended
  })

  it('drops a refresh that was still gathering events', async () => {
    const { provider, remote, session } = await started()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const described = remote.count('describe')
    const before = session.state
    await provider.update('demo', { note: 'late' })
    remote.emit('settings/document-updated', { ns: 'demo', revision: revisionOf(provider, 'demo') })
    session.close()
    // The refresh it was gathering for would run now, and its read is sent as the refresh starts.
    vi.runOnlyPendingTimers()
    expect(remote.count('describe')).toBe(described)
    vi.useRealTimers()
    expect(session.state.sections).toBe(before.sections)
    expect(session.state.connection).toBe('closed')
  })
})

describe('secrets and the settings document', () => {
  const SECRET = 'sk-live-NEVER-IN-STATE-4242'

  it('writes a replaced secret but never holds it in state', async () => {
    const { provider, remote, session } = await started()
    expect(await session.apply('demo', { type: 'replace-secret', path: ['apiKey'], value: SECRET })).toBeUndefined()
    expect(remote.last('mutate')?.args[1]).toEqual([{ op: 'set', path: ['apiKey'], value: SECRET }])
    expect(provider.document()).toEqual({ demo: { apiKey: SECRET } })
    const demo = section(session, 'demo')
    expect(demo.form.view.secrets).toContainEqual({ path: ['apiKey'], set: true, layer: 'global', source: 'document' })
    expect(JSON.stringify(session.state)).not.toContain(SECRET)

    await session.apply('demo', { type: 'set', path: ['note'], value: 'after' })
    expect(provider.document()).toEqual({ demo: { apiKey: SECRET, note: 'after' } })
    expect(JSON.stringify(session.state)).not.toContain(SECRET)
  })

  it('says why the settings file could not be opened', async () => {
    const { remote, session } = await started()
    await session.openDocument()
    expect(remote.last('openSettingsDocument')?.args).toEqual([])
    expect(session.state.notice).toMatch(/^Could not open the settings file: .*no native opener/)
  })

  it('tells every subscriber about each change until it unsubscribes', async () => {
    const { session } = await started()
    let heard = 0
    const off = session.subscribe(() => void heard++)
    await session.apply('demo', { type: 'set', path: ['note'], value: 'a' })
    expect(heard).toBeGreaterThan(0)
    off()
    const total = heard
    await session.apply('demo', { type: 'set', path: ['note'], value: 'b' })
    expect(heard).toBe(total)
  })
})

describe('search', () => {
  it('keeps the query in state without asking the server, and ignores a query it already has', async () => {
    const { remote, session } = await started()
    expect(session.state.search).toEqual({ text: '', modified: false })
    expect(session.state.history).toBe(false)
    const calls = remote.calls.length
    session.setSearch({ text: 'limit', modified: true })
    expect(session.state.search).toEqual({ text: 'limit', modified: true })
    const before = session.state
    session.setSearch({ text: 'limit', modified: true })
    expect(session.state).toBe(before)
    expect(remote.calls.length).toBe(calls)
  })

  it('keeps the query across scopes and reloads', async () => {
    const { session } = await started()
    session.setSearch({ text: 'note', modified: false })
    await session.showScope('preset/coder')
    await session.load()
    expect(session.state.search).toEqual({ text: 'note', modified: false })
  })
})
