/**
 * The error codes of decision 14, one by one.
 *
 * What these tests prove:
 * - `settings/invalid` for every malformed call the settings seam refuses: namespace and scope
 *   syntax, a patch/section that is not a plain object (a root-level `set` of one included), ops
 *   that are not an array of well-formed ops, a `set` without `value`, an `expectedRevision` that
 *   is not a revision number, `null` or absent, and the size limits (nesting, bytes, op count, path
 *   depth); `details.reason` is the seam's input reason; nothing reaches storage;
 * - `settings/rejected` for what the service refuses on the merits: non-JSON values and prototype
 *   keys (with the field's `path`), a schema refusal (with the field's `path`, and without quoting
 *   the received value), the owner's `validate`, an unknown namespace, a read-only provider, an op
 *   addressing a non-index of an array;
 * - `settings/conflict` for a stale revision, with `{ ns, scope?, expected, actual }`;
 * - `internal` for an unexpected storage failure: a generic message, the original only in the log.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { SettingsStoreError, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { boot, plugController, plugProvider, registerKind, remoteFailure, rootContext, type Booted } from './harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  limit: Schema.natural().default(10),
  apiKey: Schema.string().role('secret'),
  list: Schema.array(Schema.string()).default([]),
  bounds: Schema.object({ min: Schema.natural().default(0), max: Schema.natural().default(9) }),
})

let booted: Booted | undefined

afterEach(async () => {
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

async function withSearch(providerConfig: MemorySettingsProvider.Config = {}): Promise<Booted> {
  booted = await boot(providerConfig)
  await booted.register('search', Search, {
    validate: (value) => {
      if (value.bounds.min > value.bounds.max) throw new Error('min must not exceed max')
    },
  })
  return booted
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 0; i < depth; i++) value = { n: value }
  return value
}

describe('settings/invalid: malformed calls', () => {
  const writes = (b: Booted) => ({
    update: (...args: unknown[]) => (b.controller.update as (...a: unknown[]) => Promise<unknown>)(...args),
    replace: (...args: unknown[]) => (b.controller.replace as (...a: unknown[]) => Promise<unknown>)(...args),
    mutate: (...args: unknown[]) => (b.controller.mutate as (...a: unknown[]) => Promise<unknown>)(...args),
  })

  it.each([['Search'], ['bad_ns'], ['-x'], ['scopes'], ['constructor'], [''], [42], [null]])('refuses the namespace %j on every write', async (ns) => {
    const b = await withSearch()
    const { update, replace, mutate } = writes(b)
    await remoteFailure(() => update(ns, {}), 'settings/invalid')
    await remoteFailure(() => replace(ns, {}), 'settings/invalid')
    const error = await remoteFailure(() => mutate(ns, []), 'settings/invalid')
    expect(error.details).toEqual({ reason: 'bad-namespace' })
    expect(b.provider.persistCount).toBe(0)
  })

  it.each([['nope'], ['preset/UP'], ['/x'], [7]])('refuses the scope %j', async (scope) => {
    const b = await withSearch()
    const error = await remoteFailure(() => writes(b).update('search', {}, null, scope), 'settings/invalid')
    expect(error.details).toEqual({ reason: 'bad-scope' })
  })

  it.each([[[]], ['text'], [null], [undefined], [5], [new Map()], [new (class Patch {})()]])('refuses the patch or section %j', async (payload) => {
    const b = await withSearch()
    await remoteFailure(() => writes(b).update('search', payload), 'settings/invalid')
    await remoteFailure(() => writes(b).replace('search', payload), 'settings/invalid')
  })

  it.each([
    ['not an array', { op: 'set', path: ['a'], value: 1 }],
    ['an op that is not an object', ['set']],
    ['an unknown op', [{ op: 'merge', path: ['a'], value: 1 }]],
    ['a missing path', [{ op: 'unset' }]],
    ['a path that is a string', [{ op: 'unset', path: 'a.b' }]],
    ['a path with a number', [{ op: 'set', path: ['list', 0], value: 'x' }]],
    ['a set without value', [{ op: 'set', path: ['limit'] }]],
    ['a set whose value is undefined', [{ op: 'set', path: ['limit'], value: undefined }]],
    ['an op with an extra key', [{ op: 'unset', path: ['limit'], value: 1 }]],
  ])('refuses ops with %s', async (_what, ops) => {
    const b = await withSearch()
    const error = await remoteFailure(() => writes(b).mutate('search', ops), 'settings/invalid')
    expect(error.details).toMatchObject({ ns: 'search', reason: 'bad-op' })
  })

  it.each([['3'], [1.5], [-1], [Number.NaN], [Infinity], [{}], [true]])('refuses the expectedRevision %j', async (revision) => {
    const b = await withSearch()
    const error = await remoteFailure(() => writes(b).update('search', { limit: 1 }, revision), 'settings/invalid')
    expect(error.message).toContain('expectedRevision')
    expect(error.details).toEqual({ ns: 'search', reason: 'bad-revision' })
  })

  it('refuses a root-level set of a non-object as a malformed call, like a non-object section', async () => {
    const b = await withSearch()
    const error = await remoteFailure(() => b.controller.mutate('search', [{ op: 'set', path: [], value: 3 }]), 'settings/invalid')
    expect(error.details).toEqual({ ns: 'search', path: [], op: 0, reason: 'not-object' })
    const section = await remoteFailure(() => writes(b).replace('search', 3), 'settings/invalid')
    expect(section.details).toEqual({ ns: 'search', reason: 'not-object' })
  })

  it('refuses payloads past the size limits', async () => {
    const b = await withSearch()
    await remoteFailure(() => writes(b).update('search', { big: 'x'.repeat(1024 * 1024 + 1) }), 'settings/invalid')
    await remoteFailure(() => writes(b).update('search', nested(65)), 'settings/invalid')
    // The deepest container a payload may hold sits at level 63 (the root is level 0).
    await writes(b).update('search', { deep: nested(62) })
    const many = Array.from({ length: 1001 }, () => ({ op: 'unset', path: ['limit'] }))
    await remoteFailure(() => writes(b).mutate('search', many), 'settings/invalid')
    await remoteFailure(() => writes(b).mutate('search', [{ op: 'unset', path: Array.from({ length: 65 }, () => 'a') }]), 'settings/invalid')
    await remoteFailure(() => writes(b).mutate('search', [{ op: 'set', path: ['x'], value: nested(65) }]), 'settings/invalid')
  })
})

describe('settings/rejected: what the service refuses', () => {
  it.each([
    ['a function', { engine: () => 'bing' }, ['engine']],
    ['a class instance', { when: new Date(0) }, ['when']],
    ['a non-finite number', { limit: Number.POSITIVE_INFINITY }, ['limit']],
    ['an array hole', { list: [, 'b'] }, ['list', '0']],
    ['an undefined array entry', { list: [undefined] }, ['list', '0']],
    ['a getter', Object.defineProperty({}, 'limit', { get: () => 1, enumerable: true }), ['limit']],
    ['a prototype key', JSON.parse('{"bounds": {"__proto__": {"polluted": true}}}'), ['bounds', '__proto__']],
    ['a constructor key', { constructor: { x: 1 } }, ['constructor']],
  ])('refuses %s in a patch with the field’s path', async (_what, patch, path) => {
    const b = await withSearch()
    const error = await remoteFailure(() => b.controller.update('search', patch as Record<string, unknown>), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'search', path, reason: path.includes('__proto__') || path.includes('constructor') ? 'prototype-key' : 'not-json' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(b.provider.persistCount).toBe(0)
  })

  it('refuses a circular patch', async () => {
    const b = await withSearch()
    const patch: Record<string, unknown> = { bounds: {} }
    ;(patch.bounds as Record<string, unknown>).self = patch
    const error = await remoteFailure(() => b.controller.update('search', patch), 'settings/rejected')
    expect(error.details).toMatchObject({ path: ['bounds', 'self'] })
  })

  it('refuses non-JSON op values and prototype keys in op paths, naming the section path', async () => {
    const b = await withSearch()
    const value = await remoteFailure(() => b.controller.mutate('search', [{ op: 'set', path: ['bounds'], value: { min: Symbol('x') } }]), 'settings/rejected')
    expect(value.details).toEqual({ ns: 'search', path: ['bounds', 'min'], op: 0, reason: 'not-json' })
    const key = await remoteFailure(() => b.controller.mutate('search', [{ op: 'unset', path: ['limit'] }, { op: 'set', path: ['bounds', '__proto__', 'x'], value: 1 }]), 'settings/rejected')
    expect(key.details).toEqual({ ns: 'search', path: ['bounds', '__proto__'], op: 1, reason: 'prototype-key' })
  })

  it('refuses a schema violation with the field’s path, never quoting the value it got', async () => {
    const b = await withSearch()
    const error = await remoteFailure(() => b.controller.update('search', { limit: 'many-many-VALUE' }), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'search', path: ['limit'], reason: 'SETTINGS_INVALID' })
    expect(error.message).not.toContain('many-many-VALUE')
    expect(b.provider.document()).toEqual({})
  })

  it('refuses a value the owner’s validate check refuses', async () => {
    const b = await withSearch()
    const error = await remoteFailure(() => b.controller.update('search', { bounds: { min: 5, max: 1 } }), 'settings/rejected')
    expect(error.message).toContain('min must not exceed max')
    expect(error.details).toMatchObject({ ns: 'search', path: [] })
  })

  it('refuses an unknown namespace', async () => {
    const b = await withSearch()
    const error = await remoteFailure(() => b.controller.update('nobody-here', {}), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'nobody-here', reason: 'SETTINGS_UNKNOWN_NAMESPACE' })
  })

  it('refuses every write to a read-only provider', async () => {
    const b = await withSearch({ writable: false })
    for (const run of [
      () => b.controller.update('search', { limit: 1 }),
      () => b.controller.replace('search', {}),
      () => b.controller.mutate('search', [{ op: 'unset', path: ['limit'] }]),
    ]) {
      const error = await remoteFailure(run, 'settings/rejected')
      expect(error.details).toMatchObject({ reason: 'SETTINGS_READ_ONLY' })
    }
  })

  it('refuses an array segment that is not an element index, with the array’s path', async () => {
    const b = await withSearch()
    await b.controller.update('search', { list: ['a'] })
    const error = await remoteFailure(() => b.controller.mutate('search', [{ op: 'set', path: ['list', 'first'], value: 'x' }]), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'search', path: ['list'], op: 0, reason: 'bad-index' })
  })
})

describe('settings/conflict', () => {
  it('refuses a stale revision with the namespace and both revisions, storing nothing', async () => {
    const b = await withSearch()
    const read = b.controller.describe().namespaces[0]!.revision
    await b.controller.update('search', { limit: 1 }, read)
    for (const run of [
      () => b.controller.update('search', { limit: 2 }, read),
      () => b.controller.replace('search', {}, read),
      () => b.controller.mutate('search', [{ op: 'unset', path: ['limit'] }], read),
    ]) {
      const error = await remoteFailure(run, 'settings/conflict')
      expect(error.details).toEqual({ ns: 'search', expected: read, actual: read + 1 })
    }
    expect(b.provider.document()).toEqual({ search: { limit: 1 } })
  })

  it('names the scope of a stale scoped write', async () => {
    const b = await withSearch()
    const read = b.controller.describe('preset/coder').namespaces[0]!.revision
    await b.controller.update('search', { limit: 1 }, read, 'preset/coder')
    const error = await remoteFailure(() => b.controller.update('search', { limit: 2 }, read, 'preset/coder'), 'settings/conflict')
    expect(error.details).toEqual({ ns: 'search', scope: 'preset/coder', expected: read, actual: read + 1 })
  })
})

class BrokenStorage extends MemorySettingsProvider {
  protected override store(_transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    return Promise.reject(new Error('disk on fire at /very/private/place'))
  }
}

/** A store that refuses every write with `error`. */
function refusingStore(error: SettingsStoreError) {
  return class RefusingStore extends MemorySettingsProvider {
    protected override store(_transaction: SettingsTransaction): Promise<SettingsStoreResult> {
      return Promise.reject(error)
    }
  }
}

/** A provider's own refusal class, as `dsh-settings-file`'s document error is: a code of its own and a position. */
class UnparsableDocument extends SettingsStoreError {
  readonly position = { line: 3, column: 7 }
  constructor() {
    super('SETTINGS_DOCUMENT', 'settings document /home/me/settings.yaml is not valid YAML: BAD_INDENT at line 3, column 7', '/home/me/settings.yaml')
  }
}

describe('store refusals', () => {
  it.each([
    ['SETTINGS_READ_ONLY', 'settings/rejected'],
    ['SETTINGS_STORE_BUSY', 'settings/unavailable'],
  ] as const)('maps a store refusal %s to %s with the store\'s own message', async (code, wire) => {
    const { root } = rootContext()
    const { fiber: providerFiber } = await plugProvider(root, refusingStore(new SettingsStoreError(code, `settings document /home/me/settings.yaml refused (${code})`, '/home/me/settings.yaml')))
    const { controller, fiber } = await plugController(root, { opener: false })
    await registerKind(root, 'search', Search)
    const error = await remoteFailure(() => controller.update('search', { limit: 1 }), wire)
    expect(error.message).toBe(`settings document /home/me/settings.yaml refused (${code})`)
    expect(error.details).toEqual({ ns: 'search', reason: code })
    await fiber.dispose()
    await providerFiber.dispose()
  })

  it('answers a provider\'s own refusal by its refusal kind, with the position where it has one', async () => {
    const { root } = rootContext()
    const { fiber: providerFiber } = await plugProvider(root, refusingStore(new UnparsableDocument()))
    const { controller, fiber } = await plugController(root, { opener: false })
    await registerKind(root, 'search', Search)
    const error = await remoteFailure(() => controller.update('search', { limit: 1 }), 'settings/rejected')
    expect(error.message).toContain('line 3, column 7')
    expect(error.details).toEqual({ ns: 'search', reason: 'SETTINGS_DOCUMENT', position: { line: 3, column: 7 } })
    await fiber.dispose()
    await providerFiber.dispose()
  })

  it('answers a refusal that says the store is unavailable with settings/unavailable', async () => {
    const { root } = rootContext()
    const locked = new SettingsStoreError('SETTINGS_LOCK_TIMEOUT', 'settings document /home/me/settings.yaml is locked by pid 4242 on host; gave up after 2000 ms', '/home/me/settings.yaml', { refusal: 'unavailable' })
    const { fiber: providerFiber } = await plugProvider(root, refusingStore(locked))
    const { controller, fiber } = await plugController(root, { opener: false })
    await registerKind(root, 'search', Search)
    const error = await remoteFailure(() => controller.update('search', { limit: 1 }), 'settings/unavailable')
    expect(error.message).toContain('pid 4242')
    await fiber.dispose()
    await providerFiber.dispose()
  })
})

describe('internal', () => {
  it('answers an unexpected storage failure with a generic message and logs the original', async () => {
    const { root, logs } = rootContext()
    const { fiber: providerFiber } = await plugProvider(root, BrokenStorage)
    const { controller, fiber } = await plugController(root, { opener: false })
    await registerKind(root, 'search', Search)
    const error = await remoteFailure(() => controller.update('search', { limit: 1 }), 'internal')
    expect(error.message).not.toContain('disk on fire')
    expect(error.message).not.toContain('/very/private/place')
    expect(error.details).toBeUndefined()
    expect(logs.some((line) => line.type === 'error' && line.text.includes('disk on fire'))).toBe(true)
    await fiber.dispose()
    await providerFiber.dispose()
  })
})
