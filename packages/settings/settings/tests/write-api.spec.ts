import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SettingsInputError, SettingsUnavailableError, SettingsValidationError } from 'dsh-settings'
import { boot, bootControlled, deferred, drainMicrotasks, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'

const schema = () =>
  Schema.object({
    theme: Schema.union(['light', 'dark']).default('light'),
    fontSize: Schema.number().default(12),
    list: Schema.array(Schema.object({ name: String, key: Schema.string().role('secret') })).default([]),
    nested: Schema.object({ a: Schema.number().default(1), b: Schema.number().default(2) }),
    apiKey: Schema.string().role('secret'),
  })

let h: Harness<any>
afterEach(() => h?.dispose())

async function registered(document = {}) {
  h = await boot({ document })
  const { value: scope, fiber } = await h.mount((ctx) => ctx.settings.register('ui', schema()))
  return { scope, fiber, provider: h.provider }
}

describe('call-time checks', () => {
  it('rejects a write to a namespace nobody registered', async () => {
    const { provider } = await registered()
    await expect(provider.update('other', { a: 1 })).rejects.toThrow(/"other" is not registered/)
    await expect(provider.update('other', { a: 1 })).rejects.toMatchObject({ code: 'SETTINGS_UNKNOWN_NAMESPACE' })
  })

  it('rejects malformed namespace and scope arguments with TypeError', async () => {
    const { provider } = await registered()
    await expect(provider.update('Bad' as string, {})).rejects.toThrow(TypeError)
    await expect(provider.update('ui', {}, undefined, 'preset')).rejects.toThrow(TypeError)
    expect(() => provider.get('ui', 'no-slash')).toThrow(TypeError)
    expect(() => provider.describe({ scope: 'Preset/x' })).toThrow(TypeError)
  })

  it('rejects on a read-only provider before anything reaches storage', async () => {
    h = await bootControlled({ writable: false })
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    await expect(h.provider.update('ui', { theme: 'dark' })).rejects.toThrow(/read-only/)
    await expect(h.provider.mutate('ui', [])).rejects.toMatchObject({ code: 'SETTINGS_READ_ONLY' })
    expect((h.provider as ControlledProvider).applyCount).toBe(0)
  })

  it.each([[[]], [new Date()], [null], ['text'], [new Map()]])('rejects the non-object patch %o naming verb and namespace', async (patch) => {
    const { provider } = await registered()
    await expect(provider.update('ui', patch as object)).rejects.toThrow(/settings update for "ui" must be a plain object/)
    await expect(provider.replace('ui', patch as object)).rejects.toThrow(/settings replace for "ui" must be a plain object/)
  })

  it('accepts a null-prototype patch', async () => {
    const { provider, scope } = await registered()
    const patch = Object.assign(Object.create(null), { theme: 'dark' })
    await provider.update('ui', patch)
    expect(scope.get()).toMatchObject({ theme: 'dark' })
  })

  it.each([
    ['a function', { theme: () => 'dark' }, 'function at $.theme'],
    ['a Date', { value: { at: new Date() } }, 'Date at $.value.at'],
    ['a Map', { m: new Map() }, 'Map at $.m'],
    ['a bigint', { n: 1n }, 'bigint at $.n'],
    ['a symbol', { s: Symbol('x') }, 'symbol at $.s'],
    ['NaN', { n: Number.NaN }, 'non-finite number at $.n'],
    ['Infinity', { n: Number.POSITIVE_INFINITY }, 'non-finite number at $.n'],
    ['an undefined array entry', { list: [1, undefined] }, 'undefined array entry at $.list[1]'],
  ])('rejects %s at its path before anything persists', async (_, patch, message) => {
    const { provider } = await registered()
    const failure = provider.update('ui', patch)
    await expect(failure).rejects.toThrow(SettingsInputError)
    await expect(failure).rejects.toThrow(message)
    expect(provider.document()).toEqual({})
  })

  it('rejects a circular patch and accepts one object referenced twice', async () => {
    const { provider } = await registered()
    const loop: Record<string, unknown> = {}
    loop.self = loop
    await expect(provider.update('ui', { value: loop })).rejects.toThrow('circular reference at $.value.self')
    const shared = { a: 1 }
    await provider.update('ui', { x: shared, y: shared })
    expect(provider.document()).toEqual({ ui: { x: { a: 1 }, y: { a: 1 } } })
  })

  it.each([['__proto__'], ['constructor'], ['prototype']])('refuses the prototype key %s in a patch, an op path and an op value', async (key) => {
    const { provider } = await registered()
    const patch = JSON.parse(`{"nested":{"${key}":{"polluted":true}}}`)
    await expect(provider.update('ui', patch)).rejects.toThrow(TypeError)
    await expect(provider.replace('ui', patch)).rejects.toThrow(/prototype key/)
    await expect(provider.mutate('ui', [{ op: 'set', path: ['nested', key], value: 1 }])).rejects.toThrow(/prototype key/)
    await expect(provider.mutate('ui', [{ op: 'set', path: ['nested'], value: patch.nested }])).rejects.toThrow(/prototype key/)
    expect(provider.document()).toEqual({})
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('ignores undefined object entries so a sparse patch cannot erase keys', async () => {
    const { provider, scope } = await registered({ ui: { theme: 'dark' } })
    await provider.update('ui', { theme: undefined, fontSize: 3 })
    expect(provider.document()).toEqual({ ui: { theme: 'dark', fontSize: 3 } })
    expect(scope.get()).toMatchObject({ theme: 'dark', fontSize: 3 })
  })

  it('snapshots the patch at call time so later caller mutation cannot leak in', async () => {
    const { provider } = await registered()
    const patch = { nested: { a: 5 } }
    const write = provider.update('ui', patch)
    patch.nested.a = 99
    await write
    expect(provider.document()).toEqual({ ui: { nested: { a: 5 } } })
  })

  it('rejects ops that are not an array, malformed ops, non-string paths and a set without value', async () => {
    const { provider } = await registered()
    await expect(provider.mutate('ui', {} as never)).rejects.toThrow(/must be an array of path ops/)
    await expect(provider.mutate('ui', [{ op: 'move', path: [] } as never])).rejects.toThrow(/must be \{op:'set'\|'unset', path\}/)
    await expect(provider.mutate('ui', [{ op: 'unset', path: [1] } as never])).rejects.toThrow(/op paths must be arrays of strings/)
    await expect(provider.mutate('ui', [{ op: 'set', path: ['theme'] } as never])).rejects.toThrow(/needs a value/)
    await expect(provider.mutate('ui', [{ op: 'set', path: ['at'], value: new Date() }])).rejects.toThrow(/op 0: .*Date at \$\.at/)
    await expect(provider.mutate('ui', Array.from({ length: 1001 }, () => ({ op: 'unset' as const, path: ['a'] })))).rejects.toThrow(/at most 1000 ops/)
    expect(provider.document()).toEqual({})
  })

  it('refuses data nested deeper than 64 levels and writes over 1 MiB', async () => {
    const { provider } = await registered()
    let deep: Record<string, unknown> = {}
    const root = deep
    for (let i = 0; i < 70; i++) deep = (deep.d = {}) as Record<string, unknown>
    await expect(provider.update('ui', root)).rejects.toThrow(/deeper than 64/)
    await expect(provider.update('ui', { big: 'x'.repeat(1024 * 1024 + 10) })).rejects.toThrow(/exceeds 1048576 bytes/)
    expect(provider.document()).toEqual({})
  })

  it('rejects a wrongly typed expectedRevision', async () => {
    const { provider } = await registered()
    await expect(provider.update('ui', {}, '3' as never)).rejects.toThrow(/expectedRevision for "ui" must be a revision number/)
    await expect(provider.update('ui', {}, Number.NaN)).rejects.toThrow(TypeError)
    await expect(provider.update('ui', {}, -1, 'preset/a')).rejects.toMatchObject({ reason: 'bad-revision', ns: 'ui', scope: 'preset/a' })
  })
})

describe('queue and derivation', () => {
  it('serializes concurrent updates in call order so neither patch is lost', async () => {
    const { provider, scope } = await registered()
    await Promise.all([provider.update('ui', { theme: 'dark' }), scope.update({ fontSize: 20 }), provider.update('ui', { fontSize: 21 })])
    expect(provider.document()).toEqual({ ui: { theme: 'dark', fontSize: 21 } })
  })

  it('derives a mutate from the section at the front of the queue, not at call time', async () => {
    const { provider } = await registered()
    const first = provider.update('ui', { nested: { a: 7 } })
    const second = provider.mutate('ui', [{ op: 'set', path: ['nested', 'b'], value: 8 }])
    await Promise.all([first, second])
    expect(provider.document()).toEqual({ ui: { nested: { a: 7, b: 8 } } })
  })

  it('commits writes that pile up while one is on storage together, each with its own outcome', async () => {
    h = await bootControlled()
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const gate = deferred()
    provider.gate = gate.promise
    const first = provider.update('ui', { fontSize: 1 })
    await provider.reached('gate')
    const rest = [provider.update('ui', { fontSize: 2 }), provider.update('ui', { theme: 'nope' }), provider.update('ui', { theme: 'dark' })]
    provider.gate = undefined
    gate.resolve()
    await first
    const outcomes = await Promise.allSettled(rest)
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(provider.persistCount).toBe(2)
    expect(provider.stored).toEqual({ ui: { fontSize: 2, theme: 'dark' } })
  })

  it('keeps the queue healthy after a failed write', async () => {
    const { provider, scope } = await registered()
    await expect(provider.update('ui', { fontSize: 'big' })).rejects.toThrow(SettingsValidationError)
    await provider.update('ui', { fontSize: 4 })
    expect(scope.get()).toMatchObject({ fontSize: 4 })
  })

  it('rejects an owner write still queued when its registrant disposes', async () => {
    h = await bootControlled()
    const provider = h.provider as ControlledProvider
    const { value: scope, fiber } = await h.mount((ctx) => ctx.settings.register('ui', schema()))
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui', schema()))
    const gate = deferred()
    provider.gate = gate.promise
    const blocker = provider.update('ui', { fontSize: 1 })
    await provider.reached('gate')
    const queued = scope.update({ fontSize: 2 })
    const disposal = fiber.dispose()
    provider.gate = undefined
    gate.resolve()
    await blocker
    await expect(queued).rejects.toThrow(/registration was disposed before the queued update ran/)
    await disposal
    await expect(scope.update({ fontSize: 3 })).rejects.toThrow(/disposed|not registered/)
  })

  it('keeps the stored write but notifies nobody when the registrant disposes while its write is in flight', async () => {
    h = await bootControlled()
    const provider = h.provider as ControlledProvider
    const { value: scope, fiber } = await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const watcher = vi.fn()
    const listener = vi.fn()
    scope.watch(watcher)
    h.root.on('settings/updated', listener)
    const gate = deferred()
    provider.persistGate = gate.promise
    const write = scope.update({ fontSize: 2 })
    await provider.reached('persist')
    expect(provider.applyCount).toBe(1)
    const disposal = fiber.dispose()
    provider.persistGate = undefined
    gate.resolve()
    await write
    await disposal
    await drainMicrotasks()
    expect(provider.stored).toEqual({ ui: { fontSize: 2 } })
    expect(watcher).not.toHaveBeenCalled()
    expect(listener).not.toHaveBeenCalled()
  })
})

describe('write semantics', () => {
  it('deep-merges an update into the user section only, replacing arrays wholesale', async () => {
    const { provider } = await registered({ ui: { nested: { a: 5 }, list: [{ name: 'x' }, { name: 'y' }] } })
    await provider.update('ui', { nested: { b: 6 }, list: [{ name: 'z' }] })
    expect(provider.document()).toEqual({ ui: { nested: { a: 5, b: 6 }, list: [{ name: 'z' }] } })
  })

  it('stores null as data from an update', async () => {
    const { provider, scope } = await registered({ ui: { fontSize: 3 } })
    await provider.update('ui', { fontSize: null })
    expect(provider.document()).toEqual({ ui: { fontSize: null } })
    expect(scope.get()).toMatchObject({ fontSize: 12 })
  })

  it('replaces the user section wholesale so overrides can be removed, and replace({}) resets it', async () => {
    const { provider, scope } = await registered({ ui: { theme: 'dark', fontSize: 3 } })
    await scope.replace({ fontSize: 4 })
    expect(provider.document()).toEqual({ ui: { fontSize: 4 } })
    await provider.replace('ui', {})
    expect(provider.document()).toEqual({ ui: {} })
    expect(scope.get()).toMatchObject({ theme: 'light', fontSize: 12 })
  })

  it('applies set and unset in one write, in order, keeping fields the caller never saw', async () => {
    const { provider } = await registered({ ui: { apiKey: 'sk-hidden', theme: 'dark', fontSize: 3 } })
    await provider.mutate('ui', [
      { op: 'set', path: ['fontSize'], value: 5 },
      { op: 'set', path: ['theme'], value: 'light' },
      { op: 'unset', path: ['theme'] },
    ])
    expect(provider.document()).toEqual({ ui: { apiKey: 'sk-hidden', fontSize: 5 } })
  })

  it('creates intermediate objects for a nested set and leaves an absent unset alone', async () => {
    const { provider } = await registered({ ui: { other: 4 } })
    await provider.mutate('ui', [
      { op: 'set', path: ['deep', 'er', 'x'], value: 1 },
      { op: 'set', path: ['other', 'a'], value: 2 },
      { op: 'unset', path: ['missing', 'path'] },
      { op: 'unset', path: ['other', 'a', 'deeper'] },
    ])
    expect(provider.document()).toEqual({ ui: { other: { a: 2 }, deep: { er: { x: 1 } } } })
  })

  it('edits one element of an array of objects holding secrets without restating them', async () => {
    const { provider } = await registered({ ui: { list: [{ name: 'a', key: 'sk-1' }, { name: 'b', key: 'sk-2' }] } })
    await provider.mutate('ui', [
      { op: 'set', path: ['list', '1', 'name'], value: 'B' },
      { op: 'set', path: ['list', '2'], value: { name: 'c' } },
      { op: 'unset', path: ['list', '0'] },
    ])
    expect(provider.document()).toEqual({ ui: { list: [{ name: 'B', key: 'sk-2' }, { name: 'c' }] } })
  })

  it('addresses the section itself through the empty path, refusing a non-object root', async () => {
    const { provider } = await registered({ ui: { theme: 'dark' } })
    await provider.mutate('ui', [{ op: 'set', path: [], value: { fontSize: 1 } }])
    expect(provider.document()).toEqual({ ui: { fontSize: 1 } })
    await expect(provider.mutate('ui', [{ op: 'set', path: [], value: [1] }])).rejects.toThrow(/setting the section root requires a plain object/)
    await provider.mutate('ui', [{ op: 'unset', path: [] }])
    expect(provider.document()).toEqual({ ui: {} })
  })

  it('goes through the queue for an empty ops list without moving anything', async () => {
    const { provider } = await registered({ ui: { theme: 'dark' } })
    const before = provider.describe()[0]!.revision
    const listener = vi.fn()
    h.root.on('settings/document-updated', listener)
    await provider.mutate('ui', [])
    expect(provider.describe()[0]!.revision).toBe(before)
    expect(listener).not.toHaveBeenCalled()
  })

  it('lets replace and a root set repair a malformed stored section that update refuses', async () => {
    const { provider, scope } = await registered({ ui: { theme: 'dark' } })
    await provider.edit({ ui: 'garbage' })
    await expect(provider.update('ui', { fontSize: 1 })).rejects.toThrow(/replace the section to repair it/)
    await provider.replace('ui', { fontSize: 2 })
    expect(scope.get()).toMatchObject({ fontSize: 2, theme: 'light' })
    await provider.edit({ ui: 7 })
    await provider.mutate('ui', [{ op: 'set', path: [], value: { fontSize: 3 } }])
    expect(provider.document()).toEqual({ ui: { fontSize: 3 } })
  })

  it('rejects a write its schema refuses, persisting and emitting nothing', async () => {
    const { provider, scope } = await registered({ ui: { fontSize: 3 } })
    const listener = vi.fn()
    h.root.on('settings/updated', listener)
    const before = scope.get()
    const failure = provider.update('ui', { fontSize: 'sk-LEAKED-VALUE' })
    await expect(failure).rejects.toThrow(SettingsValidationError)
    await expect(failure).rejects.toMatchObject({ ns: 'ui', path: ['fontSize'] })
    await expect(failure).rejects.not.toThrow(/sk-LEAKED-VALUE/)
    expect(provider.document()).toEqual({ ui: { fontSize: 3 } })
    expect(scope.get()).toBe(before)
    expect(listener).not.toHaveBeenCalled()
  })

  it('refuses a write its owner could not act on, with the check error as cause', async () => {
    h = await boot()
    const check = new Error('needs a key when dark')
    const { value: scope } = await h.mount((ctx) =>
      ctx.settings.register('ui', schema(), {
        validate: (value) => {
          if (value.theme === 'dark' && !value.apiKey) throw check
        },
      }),
    )
    const failure = scope.update({ theme: 'dark' })
    await expect(failure).rejects.toThrow(/needs a key when dark/)
    await expect(failure).rejects.toMatchObject({ cause: check })
    expect(h.provider.document()).toEqual({})
    await scope.update({ theme: 'dark', apiKey: 'k' })
    expect(scope.get()).toMatchObject({ theme: 'dark' })
  })

  it('rejects with the provider error and changes nothing when persisting fails', async () => {
    h = await bootControlled({ document: { ui: { fontSize: 1 } } })
    const provider = h.provider as ControlledProvider
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const before = provider.describe()[0]!.revision
    const events = vi.fn()
    h.root.on('settings/document-updated', events)
    h.root.on('settings/updated', events)
    provider.failNextPersist = new Error('disk full')
    await expect(scope.update({ fontSize: 2 })).rejects.toThrow('disk full')
    expect(scope.get()).toMatchObject({ fontSize: 1 })
    expect(provider.describe()[0]!.revision).toBe(before)
    expect(events).not.toHaveBeenCalled()
    await scope.update({ fontSize: 3 })
    expect(provider.stored).toEqual({ ui: { fontSize: 3 } })
  })

  it('has run a synchronous watcher of the commit by the time the write resolves', async () => {
    const { scope } = await registered()
    const seen: unknown[] = []
    scope.watch((next) => void seen.push((next as { fontSize: number }).fontSize))
    await scope.update({ fontSize: 9 })
    expect(seen).toEqual([9])
  })
})
