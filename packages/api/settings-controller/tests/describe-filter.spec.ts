/**
 * describe(scope?, namespaces?): the namespace filter a page uses to read again
 * only what an event named.
 *
 * What these tests prove: with a filter the answer holds only the kinds named,
 * in the order given and each once, and a name no plugin registers is left out;
 * the views are the same redacted views a full describe answers, under the
 * global or a named scope; `null` (JSON's absent) and an absent filter describe
 * everything; the filter is checked at the boundary (not an array, too many
 * names, a malformed name: `settings/invalid`, with the seam's `bad-namespace`
 * reason for a name), on the wire too; the seam is asked only about the named
 * kinds, so the call costs what it names.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import Schema from 'schemastery'
import { MAX_DESCRIBE_NAMESPACES, settingsHandlers } from '../src/index.ts'
import { boot, expectNoSecrets, remoteFailure, type Booted } from './harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  apiKey: Schema.string().role('secret'),
})
const Theme = Schema.object({ dark: Schema.boolean().default(false) })
const Clock = Schema.object({ zone: Schema.string().default('UTC') })

let booted: Booted | undefined

afterEach(async () => {
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

async function three(): Promise<Booted> {
  booted = await boot({ document: { search: { apiKey: 'sk-filter-SECRET' }, scopes: { 'preset/coder': { theme: { dark: true } } } } })
  await booted.register('search', Search)
  await booted.register('theme', Theme)
  await booted.register('clock', Clock)
  await booted.register('theme', Theme, undefined, 'preset/coder')
  return booted
}

describe('describe with a namespace filter', () => {
  it('answers only the named kinds, in the order given, each once, as a full describe shows them', async () => {
    const { controller } = await three()
    const full = controller.describe()
    const some = controller.describe(undefined, ['clock', 'search', 'clock'])
    expect(some.namespaces.map((view) => view.ns)).toEqual(['clock', 'search'])
    expect(some.namespaces[0]).toEqual(full.namespaces.find((view) => view.ns === 'clock'))
    expect(some.namespaces[1]).toEqual(full.namespaces.find((view) => view.ns === 'search'))
    expect({ ...some, namespaces: [] }).toEqual({ ...full, namespaces: [] })
    expectNoSecrets(some, ['sk-filter-SECRET'])
  })

  it('describes the named kinds under a named scope', async () => {
    const { controller } = await three()
    const scoped = controller.describe('preset/coder', ['theme', 'search'])
    expect(scoped.namespaces.map((view) => [view.ns, view.scope, view.registered])).toEqual([
      ['theme', 'preset/coder', true],
      ['search', 'preset/coder', false],
    ])
    expect(scoped.namespaces[0]!.value).toEqual({ dark: true })
  })

  it('leaves out a name no plugin registers, and answers no views for an empty filter', async () => {
    const { controller } = await three()
    expect(controller.describe(undefined, ['gone', 'theme']).namespaces.map((view) => view.ns)).toEqual(['theme'])
    expect(controller.describe(undefined, []).namespaces).toEqual([])
  })

  it('describes every kind for a null or absent filter', async () => {
    const { controller } = await three()
    const names = (value: ReturnType<typeof controller.describe>) => value.namespaces.map((view) => view.ns)
    expect(names(controller.describe(null, null))).toEqual(['search', 'theme', 'clock'])
    expect(names(controller.describe(undefined, undefined))).toEqual(['search', 'theme', 'clock'])
  })

  it('asks the settings service only about the named kinds', async () => {
    const { controller, provider } = await three()
    const spy = vi.spyOn(provider, 'describe')
    controller.describe(undefined, ['theme'])
    expect(spy.mock.calls.map(([options]) => options?.ns)).toEqual(['theme'])
    spy.mockRestore()
  })

  it.each([
    ['a string', 'theme'],
    ['an object', { ns: 'theme' }],
    ['a number', 7],
  ])('refuses %s as the filter', async (_what, filter) => {
    const { controller } = await three()
    const error = await remoteFailure(() => controller.describe(undefined, filter as never), 'settings/invalid')
    expect(error.message).toContain('array of namespace names')
  })

  it('refuses a malformed name with the seam’s reason', async () => {
    const { controller } = await three()
    for (const name of ['Theme', '', 'a/b', 42, 'scopes']) {
      const error = await remoteFailure(() => controller.describe(undefined, ['theme', name] as never), 'settings/invalid')
      expect(error.details).toMatchObject({ reason: 'bad-namespace' })
    }
  })

  it(`refuses more than ${MAX_DESCRIBE_NAMESPACES} names`, async () => {
    const { controller } = await three()
    const many = Array.from({ length: MAX_DESCRIBE_NAMESPACES + 1 }, (_, index) => `ns-${index}`)
    const error = await remoteFailure(() => controller.describe(undefined, many), 'settings/invalid')
    expect(error.message).toContain(String(MAX_DESCRIBE_NAMESPACES))
    expect(controller.describe(undefined, many.slice(1)).namespaces).toEqual([])
  })

  it('takes the filter on the wire as its second argument, and no third', async () => {
    const { controller } = await three()
    const handlers = settingsHandlers(controller)
    const request = { signal: new AbortController().signal }
    const answer = (await handlers.describe(['preset/coder', ['theme']], request)) as ReturnType<typeof controller.describe>
    expect(answer.namespaces.map((view) => view.ns)).toEqual(['theme'])
    expect(((await handlers.describe([null, null], request)) as typeof answer).namespaces).toHaveLength(3)
    await remoteFailure(() => handlers.describe([null, ['theme'], 'extra'], request), 'settings/invalid')
  })
})
