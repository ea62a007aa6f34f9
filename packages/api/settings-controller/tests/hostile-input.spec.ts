/**
 * Hostile data is checked once, by the settings seam, so it gets one answer wherever it enters.
 *
 * What these tests prove: a getter (never run), an array hole, a `__proto__` key, nesting past the
 * seam's depth limit and a value past its size limit each fail with the same wire code, the same
 * `details.path` and the same `details.reason` whether they come as an `update` patch, a `replace`
 * section, a root-level `mutate` set (which adds `op`) or through the wire handlers; a `mutate` set
 * deeper in the section reports the same place under its own path; the code is the one the seam's
 * own refusal (`SettingsInputError`, called directly on the provider) maps to, with the same path
 * and reason; nothing is stored and no prototype is touched.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { MAX_DEPTH, MAX_WRITE_BYTES, SettingsInputError } from 'dsh-settings'
import { settingsHandlers } from '../src/index.ts'
import { inputCode } from '../src/errors.ts'
import { boot, remoteFailure, type Booted } from './harness.ts'

const Search = Schema.object({
  list: Schema.array(Schema.string()).default([]),
  bounds: Schema.object({ min: Schema.natural().default(0) }),
})

let booted: Booted | undefined

afterEach(async () => {
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

/** `levels` objects nested under the key `n`, the outermost first. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 1; i < levels; i++) value = { n: value }
  return value
}

/** `[<hole>, 'b']`: an array whose first element was never set. */
function holey(): string[] {
  const list: string[] = []
  list[1] = 'b'
  return list
}

let getterRuns = 0

/** Each hostile section, with the wire code, path and reason it must be refused with. */
const cases: [name: string, section: () => Record<string, unknown>, code: string, path: string[], reason: string][] = [
  [
    'a getter',
    () => ({ bounds: Object.defineProperty({}, 'min', { get: () => ++getterRuns, enumerable: true }) }),
    'settings/rejected',
    ['bounds', 'min'],
    'not-json',
  ],
  ['an array hole', () => ({ list: holey() }), 'settings/rejected', ['list', '0'], 'not-json'],
  ['a __proto__ key', () => JSON.parse('{"bounds": {"__proto__": {"polluted": true}}}') as Record<string, unknown>, 'settings/rejected', ['bounds', '__proto__'], 'prototype-key'],
  // The section is level 0, so the object at `deep` is level 1 and the first one past the limit sits MAX_DEPTH keys down.
  ['nesting past the depth limit', () => ({ deep: nested(MAX_DEPTH) }), 'settings/invalid', ['deep', ...Array.from({ length: MAX_DEPTH - 1 }, () => 'n')], 'too-deep'],
  ['a value past the size limit', () => ({ big: 'x'.repeat(MAX_WRITE_BYTES) }), 'settings/invalid', ['big'], 'too-large'],
]

async function withSearch(): Promise<Booted> {
  booted = await boot()
  await booted.register('search', Search)
  return booted
}

describe.each(cases)('%s', (_name, section, code, path, reason) => {
  it('gets one answer as a patch, a section, a root set and on the wire', async () => {
    const b = await withSearch()
    const handlers = settingsHandlers(b.controller)
    const request = { signal: new AbortController().signal }
    const expected = { ns: 'search', path, reason }
    getterRuns = 0
    const entries: [string, () => unknown, Record<string, unknown>][] = [
      ['update', () => b.controller.update('search', section()), expected],
      ['replace', () => b.controller.replace('search', section()), expected],
      ['mutate at the root', () => b.controller.mutate('search', [{ op: 'set', path: [], value: section() }]), { ...expected, op: 0 }],
      ['update on the wire', () => handlers.update!(['search', section()], request), expected],
      ['mutate on the wire', () => handlers.mutate!(['search', [{ op: 'unset', path: ['list'] }, { op: 'set', path: [], value: section() }]], request), { ...expected, op: 1 }],
    ]
    for (const [entry, run, details] of entries) {
      const error = await remoteFailure(run, code)
      expect(error.details, entry).toEqual(details)
    }
    expect(getterRuns).toBe(0)
    expect(b.provider.persistCount).toBe(0)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('is reported at its own place when set below the root', async () => {
    const b = await withSearch()
    const error = await remoteFailure(() => b.controller.mutate('search', [{ op: 'set', path: ['wrap'], value: section() }]), code)
    // Nesting is counted from the set value's own root, so only the path grows.
    expect(error.details).toEqual({ ns: 'search', path: ['wrap', ...path], op: 0, reason })
  })

  it('is the seam’s own refusal, mapped', async () => {
    const b = await withSearch()
    let refusal: unknown
    await b.provider.update('search', section()).catch((error: unknown) => (refusal = error))
    expect(refusal).toBeInstanceOf(SettingsInputError)
    const seam = refusal as SettingsInputError
    expect([seam.path, seam.reason]).toEqual([path, reason])
    expect(inputCode(seam.reason)).toBe(code)
    const wire = await remoteFailure(() => b.controller.update('search', section()), code)
    expect(wire.message).toBe(seam.message)
  })
})
