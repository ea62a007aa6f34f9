/**
 * Keys of the stored document that cannot name a section (not a namespace, not a scope id) are
 * kept and ignored, with one warning per change of the document naming the key and the rule, never
 * the value; `settings/document-updated` is announced only for sections of a known kind.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, type Harness } from './harness.ts'

let h: Harness
afterEach(() => h?.dispose())

const schema = Schema.object({ engine: Schema.string().default('bing') })
const warnings = () => h.logs.filter((line) => line.type === 'warn').map((line) => line.text)

describe('keys that cannot name a section', () => {
  it('warns once per key, naming it and the rule it breaks, never its value', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('web-search', schema))
    await h.provider.edit({
      web_search: { engine: 'the-secret-value' },
      'Web-Search': { engine: 'google' },
      'web-search': { engine: 'duckduckgo' },
      scopes: { 'not a scope': { 'web-search': {} }, 'preset/coder': { Bad_Key: {}, 'web-search': { engine: 'x' } } },
    })
    const lines = warnings()
    expect(lines.some((line) => line.includes('"web_search" is not a namespace') && line.includes('/^[a-z]'))).toBe(true)
    expect(lines.some((line) => line.includes('"Web-Search" is not a namespace'))).toBe(true)
    expect(lines.some((line) => line.includes('scope "not a scope" is not a scope id (it must be <kind>/<id>'))).toBe(true)
    expect(lines.some((line) => line.includes('"Bad_Key" in scope "preset/coder" is not a namespace'))).toBe(true)
    expect(lines.join('\n')).not.toContain('the-secret-value')
    expect(h.provider.get('web-search')).toEqual({ engine: 'duckduckgo' })
    // The same document again (a write, a reload): no repeated warnings.
    const count = warnings().length
    await h.provider.update('web-search', { engine: 'google' })
    await h.provider.edit({ ...h.provider.document(), web_search: { engine: 'changed' } })
    expect(warnings()).toHaveLength(count)
    // Kept as stored: a write does not drop what the user wrote.
    expect(h.provider.document()).toMatchObject({ web_search: { engine: 'changed' }, 'Web-Search': { engine: 'google' } })
  })

  it('cuts a long key short in the warning', async () => {
    h = await boot()
    await h.provider.edit({ ['X'.repeat(1100)]: {} })
    const line = warnings().find((text) => text.includes('is not a namespace'))!
    expect(line.length).toBeLessThan(300)
  })

  it('announces document-updated only for sections of a known kind in a well-formed scope', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('web-search', schema))
    const announced: unknown[][] = []
    h.root.on('settings/document-updated', (...args: unknown[]) => void announced.push(args))
    await h.provider.edit({
      web_search: { engine: 'a' },
      'unknown-kind': { engine: 'b' },
      'web-search': { engine: 'c' },
      scopes: { 'not a scope': { 'web-search': {} }, 'preset/coder': { 'web-search': { engine: 'd' } } },
    })
    expect(announced.map(([ns, , scope]) => [ns, scope])).toEqual([
      ['web-search', undefined],
      ['web-search', 'preset/coder'],
    ])
  })
})
