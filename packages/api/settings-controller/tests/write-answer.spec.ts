/**
 * A write's answer: the written namespace's view, and only that namespace described.
 *
 * What these tests prove: `update`, `replace` and `mutate` each answer exactly the view a full
 * `describe` shows for the written namespace afterwards (global and in a named scope, secrets
 * redacted), while the provider's `describe` runs once per write, asked for that namespace alone,
 * and produces a single descriptor, however many other namespaces are registered; a namespace
 * whose last instance goes away between the store and the answer fails with
 * `settings/unavailable` instead of answering some other view.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import Schema from 'schemastery'
import type { SettingsDescriptor } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { boot, expectNoSecrets, remoteFailure, type Booted } from './harness.ts'

const SECRETS = ['sk-alpha-ALPHA', 'sk-delta-DELTA', 'sk-scope-SCOPE']

/** One schema object per namespace, as separate plugins would register them. */
const schemaOf = (label: string) =>
  Schema.object({
    label: Schema.string().default(label),
    limit: Schema.natural().default(10),
    apiKey: Schema.string().role('secret'),
  })

const NAMESPACES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot']
const SCOPE = 'preset/coder'

let booted: Booted | undefined
let describeSpy: MockInstance<MemorySettingsProvider['describe']> | undefined

beforeEach(async () => {
  booted = await boot({
    document: {
      alpha: { apiKey: 'sk-alpha-ALPHA' },
      delta: { apiKey: 'sk-delta-DELTA', limit: 4 },
      scopes: { [SCOPE]: { bravo: { apiKey: 'sk-scope-SCOPE' } } },
    },
  })
  for (const ns of NAMESPACES) await booted.register(ns, schemaOf(ns))
  await booted.register('bravo', schemaOf('bravo'), undefined, SCOPE)
  describeSpy = vi.spyOn(MemorySettingsProvider.prototype, 'describe')
})

afterEach(async () => {
  describeSpy?.mockRestore()
  describeSpy = undefined
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

/** The spy on the provider's `describe`, installed for the current test. */
const spy = () => describeSpy!

/** Every descriptor the provider's `describe` produced since the spy was last cleared. */
const produced = () => spy().mock.results.flatMap((result) => (result.type === 'return' ? (result.value as SettingsDescriptor[]) : []))

type Mode = 'update' | 'replace' | 'mutate'

function write(b: Booted, mode: Mode, ns: string, limit: number, scope?: string) {
  if (mode === 'update') return b.controller.update(ns, { limit }, null, scope)
  if (mode === 'replace') return b.controller.replace(ns, { limit }, null, scope)
  return b.controller.mutate(ns, [{ op: 'set', path: ['limit'], value: limit }], null, scope)
}

describe.each<Mode>(['update', 'replace', 'mutate'])('%s', (mode) => {
  it('answers the written namespace’s view and describes no other namespace', async () => {
    const b = booted!
    for (const [index, ns] of NAMESPACES.entries()) {
      spy().mockClear()
      const view = await write(b, mode, ns, 100 + index)
      expect(spy()).toHaveBeenCalledTimes(1)
      expect(spy().mock.calls[0]![0]).toMatchObject({ redactSecrets: true, ns })
      expect(produced().map((descriptor) => descriptor.ns)).toEqual([ns])
      expect(view.ns).toBe(ns)
      expect(view.user).toMatchObject({ limit: 100 + index })
      // What a page re-reading everything would now show for that namespace, field for field.
      expect(view).toEqual(b.controller.describe().namespaces.find((candidate) => candidate.ns === ns))
      expectNoSecrets(view, SECRETS)
    }
  })

  it('answers the scoped view of a write in a named scope, describing that namespace alone', async () => {
    const b = booted!
    spy().mockClear()
    const view = await write(b, mode, 'bravo', 7, SCOPE)
    expect(spy()).toHaveBeenCalledTimes(1)
    expect(spy().mock.calls[0]![0]).toMatchObject({ redactSecrets: true, scope: SCOPE, ns: 'bravo' })
    expect(produced().map((descriptor) => descriptor.ns)).toEqual(['bravo'])
    expect(view).toEqual(b.controller.describe(SCOPE).namespaces.find((candidate) => candidate.ns === 'bravo'))
    expect(view.user).toMatchObject({ limit: 7 })
    expectNoSecrets(view, SECRETS)
  })
})

it('fails settings/unavailable when the written namespace is gone before its view is read', async () => {
  const b = booted!
  const fiber = await b.register('golf', schemaOf('golf'))
  // Drop the only instance as the write commits: the store happened, the view can no longer be read.
  const stop = b.root.on('settings/updated', (ns) => {
    if (ns === 'golf') void fiber.dispose()
  })
  try {
    spy().mockClear()
    const error = await remoteFailure(() => b.controller.update('golf', { limit: 3 }), 'settings/unavailable')
    expect(error.message).toContain('unregistered before its view could be read')
    expect(error.details).toEqual({ ns: 'golf' })
    // Asked for that namespace alone, the provider had nothing left to describe.
    expect(spy()).toHaveBeenCalledTimes(1)
    expect(produced()).toEqual([])
    expect(b.provider.document()).toMatchObject({ golf: { limit: 3 } })
  } finally {
    stop()
  }
})
