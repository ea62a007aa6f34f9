/**
 * A section whose every field the user commented out (`web-search:` with nothing under it parses as
 * `null`, and so does `web-search: ~`) reads as no section at all: the defaults and the base apply.
 * So does a `scopes:` key or a scope entry left empty. Registration, reload, describe and every
 * write take it; a write over a stored `null` starts from an empty section.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import type { SettingsDocument } from 'dsh-settings'
import { adoptDocument } from '../src/document.ts'
import { boot, type Harness } from './harness.ts'

let h: Harness
afterEach(() => h?.dispose())

/** The web-search example plugin's settings (packages/examples/web-search). */
const webSearch = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo'),
  limit: Schema.natural().max(50).default(10),
  safeSearch: Schema.object({
    enabled: Schema.boolean().default(true),
    level: Schema.union(['moderate', 'strict']).default('moderate'),
  }),
  apiKey: Schema.string().role('secret'),
  mirrors: Schema.array(Schema.object({ url: Schema.string().required(), token: Schema.string().role('secret') })).default([]),
})

/** The assistant example plugin's settings (packages/examples/assistant). */
const assistant = Schema.object({
  model: Schema.string().default('small'),
  temperature: Schema.number().min(0).max(2).default(0.7),
  providers: Schema.dict(Schema.object({ baseUrl: Schema.string().required(), apiKey: Schema.string().role('secret') })),
})

const base = { engine: 'bing' as const, limit: 20 }
const resolvedWithBase = { engine: 'bing', limit: 20, safeSearch: { enabled: true, level: 'moderate' }, mirrors: [] }
const warnings = () => h.logs.filter((line) => line.type === 'warn' || line.type === 'error').map((line) => line.text)

/** Both example plugins, the web search one also inside `preset/coder`, as the default deployment mounts them. */
async function mountExamples() {
  const global = await h.mount((ctx) => ctx.settings.register('web-search', webSearch, { base }))
  const chat = await h.mount((ctx) => ctx.settings.register('assistant', assistant))
  const coder = await h.mountInScope('preset/coder', (ctx) => ctx.settings.register('web-search', webSearch, { base: { limit: 30 } }))
  return { search: global.value, chat: chat.value, coder: coder.value }
}

describe('an empty (null) section', () => {
  it.each<[string, SettingsDocument]>([
    ['global sections left empty', { 'web-search': null, assistant: null }],
    ['a scoped section left empty', { 'web-search': null, scopes: { 'preset/coder': { 'web-search': null } } }],
    ['a scope entry left empty', { scopes: { 'preset/coder': null as never } }],
    ['a scopes key left empty', { assistant: null, scopes: null as never }],
  ])('lets both example plugins start, from defaults and base: %s', async (_, document) => {
    h = await boot({ document })
    const { search, chat, coder } = await mountExamples()
    expect(search.get()).toEqual(resolvedWithBase)
    expect(chat.get()).toEqual({ model: 'small', temperature: 0.7, providers: {} })
    expect(coder.get()).toMatchObject({ engine: 'duckduckgo', limit: 30 })
    expect(warnings()).toEqual([])
  })

  it('reads as no section when it appears under a running instance, with no warning', async () => {
    h = await boot({ document: { 'web-search': { engine: 'google', limit: 3 }, scopes: { 'preset/coder': { 'web-search': { limit: 4 } } } } })
    const { search, coder } = await mountExamples()
    expect(search.get()).toMatchObject({ engine: 'google', limit: 3 })
    await h.provider.edit({ 'web-search': null, scopes: { 'preset/coder': { 'web-search': null } } })
    expect(search.get()).toEqual(resolvedWithBase)
    expect(coder.get()).toMatchObject({ engine: 'duckduckgo', limit: 30 })
    await h.provider.edit({ 'web-search': { limit: 5 }, scopes: null as never })
    expect(coder.get()).toMatchObject({ limit: 5 })
    expect(warnings()).toEqual([])
  })

  it('is described without a problem, globally and under a scope', async () => {
    h = await boot({ document: { 'web-search': null, scopes: { 'preset/coder': { 'web-search': null } } } })
    await mountExamples()
    for (const scope of [undefined, 'preset/coder']) {
      const [view] = h.provider.describe({ redactSecrets: true, ns: 'web-search', scope })
      expect(view!.problem).toBeUndefined()
      expect(view!.user).toBeUndefined()
      expect(view!.registered).toBe(true)
      expect(view!.secrets).toEqual([{ path: ['apiKey'], set: false }])
    }
    const [scoped] = h.provider.describe({ scope: 'preset/coder', ns: 'web-search' })
    expect(scoped!.inherited).toMatchObject({ engine: 'duckduckgo', limit: 30 })
    expect(scoped!.value).toMatchObject({ engine: 'duckduckgo', limit: 30 })
  })

  it('is described without a problem for a kind with no instance under the scope', async () => {
    h = await boot({ document: { scopes: { 'preset/other': { assistant: null } } } })
    await h.mount((ctx) => ctx.settings.register('assistant', assistant))
    const [view] = h.provider.describe({ scope: 'preset/other', ns: 'assistant' })
    expect(view).toMatchObject({ registered: false, value: { model: 'small' } })
    expect(view!.problem).toBeUndefined()
  })

  describe('writes over it start from an empty section', () => {
    it('update stores the patch as the section', async () => {
      h = await boot({ document: { 'web-search': null } })
      const { search } = await mountExamples()
      await h.provider.update('web-search', { limit: 7 })
      expect(h.provider.document()['web-search']).toEqual({ limit: 7 })
      expect(search.get()).toMatchObject({ engine: 'bing', limit: 7 })
    })

    it('mutate applies its ops to an empty section, through missing intermediate objects', async () => {
      h = await boot({ document: { 'web-search': null } })
      const { search } = await mountExamples()
      await h.provider.mutate('web-search', [
        { op: 'set', path: ['safeSearch', 'level'], value: 'strict' },
        { op: 'unset', path: ['limit'] },
      ])
      expect(h.provider.document()['web-search']).toEqual({ safeSearch: { level: 'strict' } })
      expect(search.get()).toMatchObject({ safeSearch: { enabled: true, level: 'strict' } })
    })

    it('an owner handle updates and replaces it', async () => {
      h = await boot({ document: { 'web-search': null } })
      const { search } = await mountExamples()
      await search.update({ engine: 'google' })
      expect(h.provider.document()['web-search']).toEqual({ engine: 'google' })
      await h.provider.edit({ 'web-search': null })
      await search.replace({ limit: 1 })
      expect(h.provider.document()['web-search']).toEqual({ limit: 1 })
    })

    it('a scoped write over a null section, a null scope entry and a null scopes key', async () => {
      for (const document of [
        { scopes: { 'preset/coder': { 'web-search': null } } },
        { scopes: { 'preset/coder': null } },
        { scopes: null },
      ] as SettingsDocument[]) {
        h = await boot({ document })
        const { coder } = await mountExamples()
        await h.provider.mutate('web-search', [{ op: 'set', path: ['engine'], value: 'google' }], undefined, 'preset/coder')
        expect(h.provider.document().scopes).toEqual({ 'preset/coder': { 'web-search': { engine: 'google' } } })
        expect(coder.get()).toMatchObject({ engine: 'google', limit: 30 })
        await h.dispose()
      }
    })

    it('checks the expected revision of a null section like any other', async () => {
      h = await boot({ document: { 'web-search': null } })
      await mountExamples()
      const [view] = h.provider.describe({ ns: 'web-search' })
      await expect(h.provider.update('web-search', { limit: 2 }, view!.revision + 1)).rejects.toMatchObject({ code: 'SETTINGS_CONFLICT' })
      await h.provider.update('web-search', { limit: 2 }, view!.revision)
      expect(h.provider.document()['web-search']).toEqual({ limit: 2 })
    })

    it('stays null until the section itself is written', async () => {
      h = await boot({ document: { 'web-search': null } })
      await mountExamples()
      await h.provider.update('assistant', { model: 'large' })
      expect(h.provider.document()).toEqual({ 'web-search': null, assistant: { model: 'large' } })
    })
  })
})

describe('adopting a document with empty scope maps', () => {
  it('reads a null scopes key and a null scope entry as empty, without a problem', () => {
    expect(adoptDocument({ scopes: null }).problems).toEqual([])
    expect(adoptDocument({ scopes: { 'preset/coder': null } }).problems).toEqual([])
  })
})
