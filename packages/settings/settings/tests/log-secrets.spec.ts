/**
 * Watchers and settings/updated listeners that throw an error quoting the value they were handed:
 * the log line carries the error's name and message with every secret of that value replaced.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, type Harness } from './harness.ts'

let h: Harness
afterEach(() => h?.dispose())

const SECRET = 'sk-live-watch-0123456789'
const schema = Schema.object({ apiKey: Schema.string().role('secret'), fallback: Schema.string().role('secret').default('sk-default-secret-42'), note: Schema.string() })

describe('failures of code handed a value', () => {
  it('log a watcher\'s error without the secrets of the value it was handed', async () => {
    h = await boot()
    const { value: handle } = await h.mount((ctx) => ctx.settings.register('search', schema))
    handle.watch((next) => {
      throw new Error(`watcher cannot take ${JSON.stringify(next)}`)
    })
    await handle.update({ apiKey: SECRET, note: 'W' })
    await h.logged((line) => line.text.includes('watcher for "search" failed'))
    const text = h.logs.map((line) => line.text).join('\n')
    expect(text).toContain('watcher cannot take')
    expect(text).toContain('[redacted]')
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain('sk-default-secret-42')
  })

  it('log a settings/updated listener\'s error (sync or async) without the secrets of next and prev', async () => {
    h = await boot({ document: { search: { apiKey: 'sk-previous-value-77' } } })
    await h.mount((ctx) => ctx.settings.register('search', schema))
    h.root.on('settings/updated', (_ns, next, prev) => {
      throw new Error(`listener saw ${JSON.stringify([next, prev])}`)
    })
    h.root.on('settings/updated', async (_ns, next) => {
      throw new Error(`async listener saw ${JSON.stringify(next)}`)
    })
    await h.provider.update('search', { apiKey: SECRET })
    await h.logged((line) => line.text.includes('async listener saw'))
    const text = h.logs.map((line) => line.text).join('\n')
    expect(text).toContain('listener saw')
    expect(text).toContain('async listener saw')
    for (const secret of [SECRET, 'sk-previous-value-77', 'sk-default-secret-42']) expect(text).not.toContain(secret)
  })
})
