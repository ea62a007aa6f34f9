/**
 * Keys that name methods of Object.prototype are data: stored, read back, compared and edited
 * like any other, by hand in YAML or through a write to a JSON document, across restarts.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { bootFile, eventually, fileFixture } from './file-harness.ts'

const Web = Schema.object({ labels: Schema.dict(Schema.any()).default({}), n: Schema.natural().default(0) })

const fx = fileFixture()

async function boot(file: string, config: Record<string, unknown> = {}) {
  fx.harness = await bootFile({ path: file, watch: false, ...config })
  await fx.harness.root.inject(['settings'], (ctx) => {
    ctx.settings.register('web', Web)
    ctx.settings.register('other', Schema.object({ n: Schema.natural().default(0) }))
  })
  return fx.harness.settings
}

const KEYS = ['valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString']

describe('keys named after Object.prototype methods', () => {
  it('are written to a JSON document and every later write, reload and restart still works', async () => {
    const file = join(fx.dir, 'settings.json')
    let settings = await boot(file)
    await settings.update('web', { labels: Object.fromEntries(KEYS.map((key, i) => [key, i])) })
    await settings.update('web', { labels: { toString: { nested: true } } })
    await settings.update('other', { n: 3 })
    await settings.update('web', { n: 1 })
    expect(settings.get('web')).toMatchObject({ labels: { valueOf: 0, toString: { nested: true } }, n: 1 })
    await fx.harness!.dispose()
    settings = await boot(file)
    expect(settings.get('web')).toMatchObject({ labels: { valueOf: 0, hasOwnProperty: 2, toString: { nested: true } }, n: 1 })
    await settings.update('other', { n: 4 })
    expect(JSON.parse(await readFile(file, 'utf8')).other).toEqual({ n: 4 })
  })

  it('written by hand in YAML are read, watched, and survive the writes of other namespaces', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, 'web:\n  labels:\n    valueOf: 1\n    toString: two\n')
    const settings = await boot(file, { watch: true, debounceMs: 10 })
    expect(settings.get('web')).toMatchObject({ labels: { valueOf: 1, toString: 'two' } })
    await settings.update('other', { n: 1 })
    await writeFile(file, 'web:\n  labels:\n    valueOf: 2\n    toString: two\nother:\n  n: 1\n')
    await eventually(() => expect(settings.get('web')).toMatchObject({ labels: { valueOf: 2 } }))
    await settings.update('web', { labels: { hasOwnProperty: 3 } })
    expect(await readFile(file, 'utf8')).toBe('web:\n  labels:\n    valueOf: 2\n    toString: two\n    hasOwnProperty: 3\nother:\n  n: 1\n')
  })
})
