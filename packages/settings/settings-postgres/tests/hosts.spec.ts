import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsConflictError, type SettingsScope } from 'dsh-settings'
import { eventually, plugWithSettings } from 'dsh-testing'
import { spawnHost, type ChildHost } from './children.ts'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer, type Host } from './harness.ts'

const holder = useServer()
const Tally = Schema.dict(Schema.number())

const started: { hosts: Host[]; children: ChildHost[] } = { hosts: [], children: [] }
afterEach(async () => {
  for (const child of started.children.splice(0)) await child.end()
  for (const host of started.hosts.splice(0)) await host.dispose()
})

/** Two hosts in this process and one in a child process, on one fresh set of tables. */
async function threeHosts() {
  const table = freshPrefix()
  const url = holder.server.url()
  const a = await bootHost({ url, table, recheckMs: 1000 })
  const b = await bootHost({ url, table, recheckMs: 1000 })
  started.hosts.push(a, b)
  const c = await spawnHost(url, table)
  started.children.push(c)
  const register = async (host: Host, ns: string) => (await plugWithSettings(host.root, (ctx) => ctx.settings.register(ns, Tally))).value
  const handles = { a: { tally: await register(a, 'tally'), shared: await register(a, 'shared') }, b: { tally: await register(b, 'tally'), shared: await register(b, 'shared') } }
  return { a, b, c, handles }
}

const watchAll = (handle: SettingsScope<Record<string, number>>) => {
  const seen: Record<string, number>[] = []
  handle.watch((value) => void seen.push(value))
  return seen
}

describe.runIf(HAVE_POSTGRES)('three hosts on one database (one in a child process)', () => {
  it('brings a write on any host to the others’ get() and watchers', async () => {
    const { a, b, c, handles } = await threeHosts()
    const seenOnA = watchAll(handles.a.tally)
    const seenOnB = watchAll(handles.b.tally)
    await handles.a.tally.update({ one: 1 })
    await eventually(() => expect(b.settings.get('tally')).toEqual({ one: 1 }))
    await eventually(async () => expect((await c.request('get', 'tally')).value).toEqual({ one: 1 }))
    expect(await c.request('update', 'tally', { two: 2 })).toMatchObject({ ok: true })
    await eventually(() => expect(a.settings.get('tally')).toEqual({ one: 1, two: 2 }))
    await eventually(() => expect(b.settings.get('tally')).toEqual({ one: 1, two: 2 }))
    expect(c.watched.map((call) => call.value)).toEqual([{ one: 1 }, { one: 1, two: 2 }])
    // Each host applied every commit once, its own too (its notification echo changes nothing).
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(seenOnA).toEqual([{ one: 1 }, { one: 1, two: 2 }])
    expect(seenOnB).toEqual([{ one: 1 }, { one: 1, two: 2 }])
  })

  it('loses nothing when all three write at once, to their own keys of one namespace and to distinct namespaces', async () => {
    const { a, b, c, handles } = await threeHosts()
    const writes: Promise<unknown>[] = []
    for (let i = 0; i < 15; i++) {
      writes.push(handles.a.shared.update({ [`a${i}`]: i }), handles.b.shared.update({ [`b${i}`]: i }), c.request('update', 'shared', { [`c${i}`]: i }))
      writes.push(handles.a.tally.update({ [`a${i}`]: i }), c.request('update', 'tally', { [`c${i}`]: i }))
    }
    const answers = await Promise.all(writes)
    expect(answers.filter((answer) => answer && (answer as { ok?: boolean }).ok === false)).toEqual([])
    const shared = Object.fromEntries(['a', 'b', 'c'].flatMap((who) => Array.from({ length: 15 }, (_, i) => [`${who}${i}`, i])))
    const tally = Object.fromEntries(['a', 'c'].flatMap((who) => Array.from({ length: 15 }, (_, i) => [`${who}${i}`, i])))
    for (const host of [a, b]) {
      await eventually(() => expect(host.settings.get('shared')).toEqual(shared))
      await eventually(() => expect(host.settings.get('tally')).toEqual(tally))
    }
    await eventually(async () => expect((await c.request('get', 'shared')).value).toEqual(shared))
    await eventually(async () => expect((await c.request('get', 'tally')).value).toEqual(tally))
  })

  it('honors a revision read on one host once on another, and refuses it the second time on every host', async () => {
    const { a, b, c, handles } = await threeHosts()
    await handles.a.tally.update({ x: 1 })
    const read = a.settings.describe({ ns: 'tally', redactSecrets: true })[0]!.revision
    const first = await c.request('update', 'tally', { y: 2 }, read)
    expect(first).toMatchObject({ ok: true, value: { x: 1, y: 2 } })
    expect(first.revision).toBeGreaterThan(read)
    expect(await c.request('update', 'tally', { y: 3 }, read)).toMatchObject({ ok: false, code: 'SETTINGS_CONFLICT' })
    await expect(b.settings.update('tally', { y: 4 }, read)).rejects.toBeInstanceOf(SettingsConflictError)
    await expect(a.settings.update('tally', { y: 5 }, read)).rejects.toBeInstanceOf(SettingsConflictError)
    await eventually(() => expect(a.settings.get('tally')).toEqual({ x: 1, y: 2 }))
    // The revision the child answered is the one every host reports.
    await eventually(() => expect(b.settings.describe({ ns: 'tally', redactSecrets: true })[0]!.revision).toBe(first.revision))
    expect(a.settings.describe({ ns: 'tally', redactSecrets: true })[0]!.revision).toBe(first.revision)
  })
})
