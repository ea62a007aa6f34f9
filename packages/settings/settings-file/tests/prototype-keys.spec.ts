/**
 * A `__proto__` key a user wrote (or a fuzzer, or an attacker) is a plain key
 * on every path of the codec: the line reader leaves such a document to `yaml`
 * (which keeps the key as an own property) instead of setting a map's
 * prototype, a nested edit keeps the key beside the edited one, and the fast
 * reader never walks a key the map only inherits, so a prototype some other
 * code polluted cannot make it loop.
 */
import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { parseSettings, renderChanges, rereadChanged } from 'dsh-settings-file/codec'
import { readYamlData } from 'dsh-settings-file/fast-read'

import { bootFile, eventually, fileFixture } from './file-harness.ts'

const own = (value: unknown, key: string) => Object.hasOwn(value as object, key)
const fx = fileFixture()

describe('a __proto__ key in a document', () => {
  it('is an own key of the map it is in, never the map’s prototype', () => {
    for (const text of ['fz:\n  __proto__: x\n  name: a\n', 'fz:\n  __proto__:\n    k: 1\n  name: a\n', 'scopes:\n  __proto__: {fz: {count: 1}}\n', 'fz:\n  __proto__: null\n  name: a\n']) {
      const fast = readYamlData(text)
      if (fast !== undefined) expect(JSON.stringify(fast), text).toContain('__proto__')
      const { data } = parseSettings(text, 'yaml', 'settings.yaml')
      const holder = Object.values(data)[0]
      expect(own(holder, '__proto__'), text).toBe(true)
      expect(Object.getPrototypeOf(holder)).toBe(Object.prototype)
    }
  })

  it('stays an own key when a hand edit deep inside a large section is read again', () => {
    const filler = Array.from({ length: 600 }, (_, index) => `    key${index}: value ${index}\n`).join('')
    const before = `fz:\n  __proto__: {x: 1}\n  big:\n${filler}  counter: 0\n`
    const parsed = parseSettings(before, 'yaml', 'settings.yaml')
    const after = before.replace('key5: value 5', 'key5: changed')
    const reread = rereadChanged(before, parsed, after)!
    const section = reread.data.fz as Record<string, unknown>
    expect(own(section, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(section)).toBe(Object.prototype)
    expect((section.big as Record<string, unknown>).key5).toBe('changed')
  })

  it('stays beside a nested edit of its section', () => {
    const text = 'fz:\n  __proto__: {x: 1}\n  deep:\n    a: 1\n    b: 2\n'
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const rendered = renderChanges('yaml', text, parsed, [{ path: ['fz', 'deep', 'a'], value: 5 }], 'settings.yaml')
    expect(rendered.text).toBe('fz:\n  __proto__: {x: 1}\n  deep:\n    a: 5\n    b: 2\n')
    const section = rendered.data.fz as Record<string, unknown>
    expect(own(section, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(section)).toBe(Object.prototype)
    expect(section.deep).toEqual({ a: 5, b: 2 })
  })

  it('read by the fast reader ends even when Object.prototype carries an object-valued key', () => {
    // In a child: a loop there cannot hang the test run, only time out.
    const script = `
      import { readYamlData } from 'dsh-settings-file/fast-read'
      Object.prototype.polluted = { deeper: {} }
      const data = readYamlData('fz:\\n  name: a\\n  list: [1, 2]\\n  nested:\\n    k: {a: 1}\\n')
      delete Object.prototype.polluted
      console.log(JSON.stringify(data))`
    const out = execFileSync(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: import.meta.dirname, timeout: 30_000, encoding: 'utf8' })
    expect(JSON.parse(out)).toEqual({ fz: { name: 'a', list: [1, 2], nested: { k: { a: 1 } } } })
  })

  it('as a scope of a hand-edited document stays in the document: nothing reaches Object.prototype, and a write beside it lands', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: true })
    let scope!: { get(): unknown }
    await fx.harness.root.inject(['settings'], (ctx) => {
      scope = ctx.settings.register('fz', Schema.object({ name: Schema.string().default(''), count: Schema.natural().default(0) }))
    })
    try {
      await writeFile(file, 'scopes:\n  __proto__:\n    fz: {count: 1}\nfz:\n  count: 7\n')
      // The plugin sees count 7 once the seam has taken the hand edit, `__proto__` scope and all.
      await eventually(() => expect(scope.get()).toEqual({ name: '', count: 7 }))
      await fx.harness.settings.update('fz', { name: 'marker' })
      expect(scope.get()).toEqual({ name: 'marker', count: 7 })
      expect(Object.keys(Object.prototype)).toEqual([])
      expect(({} as Record<string, unknown>).fz).toBeUndefined()
      expect(await readFile(file, 'utf8')).toBe('scopes:\n  __proto__:\n    fz: {count: 1}\nfz:\n  count: 7\n  name: marker\n')
    } finally {
      delete (Object.prototype as Record<string, unknown>).fz
    }
  })
})
