/**
 * The page session's drafts: a plugin waiting for setup, or a switch to a form
 * whose required values are not there yet, is edited in the page and saved in
 * one `mutate`; nothing is sent before, what is still missing is named, a
 * staged secret never enters the rendered state, and a discard or a reload
 * goes back to the last read.
 */
import type { Context } from 'cordis'
import type { MemorySettingsProvider } from 'dsh-settings/memory'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import type { SettingsSession, SectionState } from '../../src/app/session.ts'
import type { FakeRemote } from './fake-remote.ts'
import { until, useStack } from './stack.ts'

const Adapter = Schema.intersect([
  Schema.object({ token: Schema.string().role('secret').required() }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().required() }),
    Schema.object({ protocol: Schema.const('ws').required(), heartbeat: Schema.natural().default(30) }),
  ]),
])

const stack = useStack()

interface Booted {
  provider: MemorySettingsProvider
  remote: FakeRemote
  session: SettingsSession
  /** What the plugin's `register` returned at each start. */
  started: unknown[]
}

/** The adapter registered as `bot` over `document` (waiting for setup when it lacks its token), and a live session. */
async function boot(document: Record<string, unknown> = {}): Promise<Booted> {
  const { root, provider, session: open } = await stack.boot({ document })
  const started: unknown[] = []
  const plugin = root.plugin({ inject: ['settings'], apply: (ctx: Context) => void started.push(ctx.settings.register('bot', Adapter).get()) })
  await plugin.await().catch(() => undefined)
  const { remote, session } = open()
  session.start()
  await until(session, (state) => state.status === 'ready')
  remote.options.connected?.()
  return { provider, remote, session, started }
}

const bot = (session: SettingsSession): SectionState => session.state.sections.find((section) => section.form.ns === 'bot')!
const writes = (remote: FakeRemote) => remote.count('mutate') + remote.count('replace') + remote.count('update')

describe('a plugin waiting for setup is set up in one save', () => {
  it('stages the choice and every value, names what is missing, then sends one mutate that starts it', async () => {
    const { remote, session, started, provider } = await boot()
    expect(started).toEqual([])
    expect(bot(session).form.view.needsSetup).toBe(true)

    expect(await session.apply('bot', { type: 'choose-variant', path: [], index: 0 })).toBeUndefined()
    expect(await session.apply('bot', { type: 'replace-secret', path: ['token'], value: 'tok-draft-7' })).toBeUndefined()
    expect(writes(remote)).toBe(0)
    expect(bot(session).draft).toMatchObject({ setup: true })
    expect(bot(session).form.root.variant).toBe(0)
    // The staged secret is only marked set; its text is nowhere in what the page renders.
    expect(bot(session).form.root.children!.find((field) => field.path[0] === 'token')!.secret).toEqual({ set: true, layer: 'global' })
    expect(JSON.stringify(session.state)).not.toContain('tok-draft-7')

    // Saving with the endpoint missing sends nothing and names it.
    await session.saveDraft('bot')
    expect(writes(remote)).toBe(0)
    expect(bot(session).draft).toMatchObject({ setup: true, missing: [['endpoint']], staged: [['protocol'], ['token']] })

    expect(await session.apply('bot', { type: 'set', path: ['endpoint'], value: 'http://127.0.0.1:5500' })).toBeUndefined()
    await session.saveDraft('bot')
    expect(remote.count('mutate')).toBe(1)
    expect(remote.last('mutate')!.args[1]).toEqual([
      { op: 'set', path: ['protocol'], value: 'http' },
      { op: 'set', path: ['token'], value: 'tok-draft-7' },
      { op: 'set', path: ['endpoint'], value: 'http://127.0.0.1:5500' },
    ])
    expect(bot(session).draft).toBeUndefined()
    await expect.poll(() => started.length).toBe(1)
    expect(started[0]).toEqual({ token: 'tok-draft-7', protocol: 'http', endpoint: 'http://127.0.0.1:5500' })
    expect(provider.document()).toEqual({ bot: { protocol: 'http', token: 'tok-draft-7', endpoint: 'http://127.0.0.1:5500' } })
  })

  it('discard goes back to the last read; a refresh while drafting flags the newer read and keeps the draft', async () => {
    const { remote, session, provider } = await boot()
    await session.apply('bot', { type: 'choose-variant', path: [], index: 1 })
    expect(bot(session).form.root.variant).toBe(1)
    session.discardDraft('bot')
    expect(bot(session).draft).toBeUndefined()
    expect(bot(session).form.root.variant).toBe(-1)

    await session.apply('bot', { type: 'choose-variant', path: [], index: 1 })
    await provider.update('bot', { heartbeat: 5 })
    remote.emit('settings/document-updated', { ns: 'bot', revision: provider.describe({ ns: 'bot' })[0]!.revision })
    await until(session, () => bot(session).newer !== undefined)
    expect(bot(session).draft).toMatchObject({ setup: true })
    expect(bot(session).form.root.variant).toBe(1)
    await session.reload('bot')
    expect(bot(session).draft).toBeUndefined()
    expect(bot(session).form.view.user).toEqual({ heartbeat: 5 })
    expect(writes(remote)).toBe(0)
  })
})

describe('a running plugin switched to a form that needs a value', () => {
  it('holds the switch until the value is given; an edit that needs nothing new is sent at once', async () => {
    const { remote, session, started, provider } = await boot({ bot: { token: 'tok-run', protocol: 'ws' } })
    expect(started).toHaveLength(1)
    expect(await session.apply('bot', { type: 'set', path: ['heartbeat'], value: 12 })).toBeUndefined()
    expect(remote.count('mutate')).toBe(1)
    expect(bot(session).draft).toBeUndefined()

    await session.apply('bot', { type: 'choose-variant', path: [], index: 0 })
    expect(remote.count('mutate')).toBe(1)
    expect(bot(session).draft).toMatchObject({ setup: false })
    await session.saveDraft('bot')
    expect(bot(session).draft?.missing).toEqual([['endpoint']])
    await session.apply('bot', { type: 'set', path: ['endpoint'], value: 'http://h' })
    await session.saveDraft('bot')
    expect(remote.count('mutate')).toBe(2)
    // The heartbeat only the ws form has is unset by the switch; the token both share stays.
    expect(provider.get('bot')).toEqual({ token: 'tok-run', protocol: 'http', endpoint: 'http://h' })
  })
})
