import { Context } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { installSettingsSection, type SettingsSectionHooks } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { boot, drainMicrotasks } from './harness.ts'

const schema = Schema.object({ engine: Schema.string().default('bing'), limit: Schema.number().default(5) })
type Value = ReturnType<typeof schema>

interface Consumer {
  hooks: SettingsSectionHooks<Value>
  source: () => Value
  changes: number
  read(): Value
}

function consumer(entry: Value): Consumer {
  const state: Consumer = {
    source: () => entry,
    changes: 0,
    read: () => state.source(),
    hooks: {
      setSource: vi.fn((source: () => Value) => void (state.source = source)),
      onChange: vi.fn(() => void state.changes++),
    },
  }
  return state
}

let root: Context | undefined
afterEach(async () => {
  root = undefined
})

async function plugConsumer(parent: Context, entry: Value, extra: Partial<SettingsSectionHooks<Value>> = {}) {
  const state = consumer(entry)
  Object.assign(state.hooks, extra)
  const fiber = parent.plugin((ctx: Context) => installSettingsSection(ctx, 'search', schema, entry, state.hooks))
  await fiber
  return { state, fiber }
}

describe('installSettingsSection', () => {
  it('keeps the entry authoritative when no provider ever mounts', async () => {
    root = new Context()
    const { state, fiber } = await plugConsumer(root, { engine: 'entry', limit: 1 })
    expect(state.hooks.setSource).not.toHaveBeenCalled()
    expect(state.hooks.onChange).not.toHaveBeenCalled()
    expect(state.read()).toEqual({ engine: 'entry', limit: 1 })
    await fiber.dispose()
  })

  it('drives the source through attach, live commits and detach', async () => {
    root = new Context()
    const provider = root.plugin(MemorySettingsProvider, { document: { search: { limit: 9 } } })
    await provider
    const { state, fiber } = await plugConsumer(root, { engine: 'entry', limit: 1 })
    expect(state.hooks.setSource).toHaveBeenCalledTimes(1)
    expect(state.changes).toBe(1)
    expect(state.read()).toEqual({ engine: 'entry', limit: 9 })
    await root.settings.update('search', { engine: 'google' })
    expect(state.changes).toBe(2)
    expect(state.read()).toEqual({ engine: 'google', limit: 9 })
    expect(state.hooks.setSource).toHaveBeenCalledTimes(1)
    await provider.dispose()
    expect(state.hooks.setSource).toHaveBeenCalledTimes(2)
    expect(state.changes).toBe(3)
    expect(state.read()).toEqual({ engine: 'entry', limit: 1 })
    await fiber.dispose()
  })

  it('stays silent when the consumer itself unloads', async () => {
    root = new Context()
    const provider = root.plugin(MemorySettingsProvider, {})
    await provider
    const { state, fiber } = await plugConsumer(root, { engine: 'entry', limit: 1 })
    await fiber.dispose()
    await drainMicrotasks()
    expect(state.hooks.setSource).toHaveBeenCalledTimes(1)
    expect(state.changes).toBe(1)
    expect(root.settings.get('search')).toBeUndefined()
    await provider.dispose()
  })

  it('stays silent for a stored change that lands while the consumer unloads', async () => {
    root = new Context()
    const provider = root.plugin(MemorySettingsProvider, {})
    await provider
    const { state, fiber } = await plugConsumer(root, { engine: 'entry', limit: 1 })
    const memory = root.settings as unknown as MemorySettingsProvider
    const disposal = fiber.dispose()
    await memory.edit({ search: { limit: 3 } })
    await disposal
    await drainMicrotasks()
    expect(state.changes).toBe(1)
    await provider.dispose()
  })

  it('uses the consumer check as the kind validator', async () => {
    root = new Context()
    const provider = root.plugin(MemorySettingsProvider, {})
    await provider
    const { fiber } = await plugConsumer(root, { engine: 'entry', limit: 1 }, {
      validate: (value) => {
        if (value.limit > 10) throw new Error('limit too high')
      },
    })
    await expect(root.settings.update('search', { limit: 11 })).rejects.toThrow(/limit too high/)
    await fiber.dispose()
    await provider.dispose()
  })

  it('keeps the entry and warns when the stored section fails, throwing nothing into the consumer', async () => {
    root = new Context()
    const logs: string[] = []
    root.logger.exporter({ export: (message) => logs.push(message.args.map(String).join(' ')) })
    const provider = root.plugin(MemorySettingsProvider, { document: { search: { limit: 'lots' } } })
    await provider
    const { state, fiber } = await plugConsumer(root, { engine: 'entry', limit: 1 })
    expect(fiber.state).toBe(2)
    await drainMicrotasks()
    expect(state.hooks.setSource).not.toHaveBeenCalled()
    expect(state.read()).toEqual({ engine: 'entry', limit: 1 })
    expect(logs.some((line) => line.includes('"search" keeps its composition entry'))).toBe(true)
    await fiber.dispose()
    await provider.dispose()
  })

  it('throws TypeError synchronously for a malformed namespace, with or without a provider', () => {
    const ctx = new Context()
    const hooks = consumer({ engine: 'x', limit: 1 }).hooks
    expect(() => installSettingsSection(ctx, 'Bad_Name' as string, schema, { engine: 'x', limit: 1 }, hooks)).toThrow(TypeError)
    expect(() => installSettingsSection(ctx, 'scopes', schema, { engine: 'x', limit: 1 }, hooks)).toThrow(/reserved/)
  })

  it('registers under the consumer nearest named scope', async () => {
    root = new Context()
    const provider = root.plugin(MemorySettingsProvider, { document: { scopes: { 'preset/coder': { search: { engine: 'ddg' } } } } })
    await provider
    const { createScope } = await import('dsh-scope')
    const scope = createScope(root, { name: 'preset/coder' })
    const { state } = await plugConsumer(scope.ctx, { engine: 'entry', limit: 1 })
    expect(state.read()).toMatchObject({ engine: 'ddg' })
    expect(root.settings.scopes()).toEqual(['preset/coder'])
    await scope.dispose()
    await provider.dispose()
  })
})

describe('installSection called from another context than its owner', () => {
  it('registers under the owner\'s named scope and ends when the owner goes, though the caller stays', async () => {
    const h = await boot()
    try {
      const state = consumer({ engine: 'entry', limit: 1 })
      // The owner is a plugin inside preset/x; the caller is an unrelated plugin at the root.
      const { value: owner, fiber: ownerFiber } = await h.mountInScope('preset/x', (ctx) => ctx)
      await h.mount((caller) => caller.settings.installSection(owner, 'search', schema, { engine: 'entry', limit: 1 }, state.hooks))
      expect(h.provider.get('search', 'preset/x')).toEqual({ engine: 'entry', limit: 1 })
      expect(h.provider.get('search')).toBeUndefined()
      await ownerFiber.dispose()
      expect(h.provider.get('search', 'preset/x')).toBeUndefined()
      expect(h.provider.describe()).toEqual([])
    } finally {
      await h.dispose()
    }
  })

  it('ends when the calling side goes first, pointing the live owner back at its entry', async () => {
    const h = await boot({ document: { search: { engine: 'stored' } } })
    try {
      const entry = { engine: 'entry', limit: 1 }
      const state = consumer(entry)
      const { value: owner } = await h.mount((ctx) => ctx)
      const { fiber: callerFiber } = await h.mount((caller) => caller.settings.installSection(owner, 'search', schema, entry, state.hooks))
      expect(state.read()).toEqual({ engine: 'stored', limit: 1 })
      await callerFiber.dispose()
      expect(h.provider.get('search')).toBeUndefined()
      expect(state.read()).toEqual(entry)
    } finally {
      await h.dispose()
    }
  })
})
