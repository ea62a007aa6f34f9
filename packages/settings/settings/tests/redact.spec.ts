import { describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { createRedactor } from '../src/redact.ts'

const secret = () => Schema.string().role('secret')

/** Freeze a value and everything under it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

describe('createRedactor: containers', () => {
  it('removes a secret object property and records its slot', () => {
    const redactor = createRedactor(Schema.object({ name: Schema.string(), token: secret() }))
    expect(redactor.redact({ name: 'n', token: 'sk-1' })).toEqual({
      value: { name: 'n' },
      slots: [{ path: ['token'], set: true }],
    })
  })

  it('removes secret dict entries and records one slot per entry in the value key order', () => {
    const redactor = createRedactor(Schema.object({ keys: Schema.dict(Schema.object({ label: Schema.string(), key: secret() })) }))
    const result = redactor.redact({ keys: { zed: { label: 'z', key: 'sk-z' }, alpha: { label: 'a', key: 'sk-a' } } })
    expect(result.value).toEqual({ keys: { zed: { label: 'z' }, alpha: { label: 'a' } } })
    expect(result.slots).toEqual([
      { path: ['keys', 'zed', 'key'], set: true },
      { path: ['keys', 'alpha', 'key'], set: true },
    ])
  })

  it('replaces secret array items with null placeholders so the other indexes still address the same items', () => {
    const redactor = createRedactor(Schema.object({ list: Schema.array(secret()) }))
    const result = redactor.redact({ list: ['sk-0', 'sk-1', 'sk-2'] })
    expect(result.value).toEqual({ list: [null, null, null] })
    expect(result.slots).toEqual([
      { path: ['list', '0'], set: true },
      { path: ['list', '1'], set: true },
      { path: ['list', '2'], set: true },
    ])
  })

  it('removes secrets inside array items, naming the item by its index as a string', () => {
    const redactor = createRedactor(Schema.object({ accounts: Schema.array(Schema.object({ user: Schema.string(), password: secret() })) }))
    const result = redactor.redact({ accounts: [{ user: 'a', password: 'pw-a' }, { user: 'b' }] })
    expect(result.value).toEqual({ accounts: [{ user: 'a' }, { user: 'b' }] })
    expect(result.slots).toEqual([
      { path: ['accounts', '0', 'password'], set: true },
      { path: ['accounts', '1', 'password'], set: false },
    ])
  })

  it('removes secret tuple items by position and keeps the other items in place', () => {
    const redactor = createRedactor(Schema.object({ pair: Schema.tuple([Schema.string(), secret(), Schema.number()]) }))
    const result = redactor.redact({ pair: ['user', 'sk-pair', 3] })
    expect(result.value).toEqual({ pair: ['user', null, 3] })
    expect(result.slots).toEqual([{ path: ['pair', '1'], set: true }])
  })

  it('lists slots depth-first in schema declaration order, whatever the order of the value keys', () => {
    const schema = Schema.object({
      first: secret(),
      nested: Schema.object({ a: secret(), deeper: Schema.object({ b: secret() }), c: secret() }),
      keys: Schema.dict(secret()),
      list: Schema.array(secret()),
      last: secret(),
    })
    const result = createRedactor(schema).redact({
      last: 'sk-last',
      list: ['sk-l0', 'sk-l1'],
      keys: { y: 'sk-y', x: 'sk-x' },
      nested: { c: 'sk-c', deeper: { b: 'sk-b' }, a: 'sk-a' },
      first: 'sk-first',
    })
    expect(result.slots.map((slot) => slot.path)).toEqual([
      ['first'],
      ['nested', 'a'],
      ['nested', 'deeper', 'b'],
      ['nested', 'c'],
      ['keys', 'y'],
      ['keys', 'x'],
      ['list', '0'],
      ['list', '1'],
      ['last'],
    ])
    expect(result.value).toEqual({ list: [null, null], keys: {}, nested: { deeper: {} } })
  })
})

describe('createRedactor: absent values', () => {
  const schema = Schema.object({
    token: secret(),
    nested: Schema.object({ inner: secret(), deeper: Schema.object({ key: secret() }) }),
    keys: Schema.dict(secret()),
    list: Schema.array(secret()),
  })

  it('enumerates object-property slots with set false when the whole value is absent', () => {
    const result = createRedactor(schema).redact(undefined)
    expect(result.value).toBeUndefined()
    expect(result.slots).toEqual([
      { path: ['token'], set: false },
      { path: ['nested', 'inner'], set: false },
      { path: ['nested', 'deeper', 'key'], set: false },
    ])
  })

  it('enumerates the slots of an absent parent object without inventing the parent', () => {
    const result = createRedactor(schema).redact({ token: 'sk-t' })
    expect(result.value).toEqual({})
    expect(result.value).not.toHaveProperty('nested')
    expect(result.value).not.toHaveProperty('keys')
    expect(result.value).not.toHaveProperty('list')
    expect(result.slots).toEqual([
      { path: ['token'], set: true },
      { path: ['nested', 'inner'], set: false },
      { path: ['nested', 'deeper', 'key'], set: false },
    ])
  })

  it('lists dict and array slots only for entries that exist', () => {
    const result = createRedactor(schema).redact({ keys: {}, list: [] })
    expect(result.value).toEqual({ keys: {}, list: [] })
    expect(result.slots.some((slot) => slot.path[0] === 'keys' || slot.path[0] === 'list')).toBe(false)
  })

  it('reports a null secret as unset and leaves a null container as null', () => {
    const result = createRedactor(schema).redact({ token: null, nested: null })
    expect(result.value).toEqual({ nested: null })
    expect(result.slots).toEqual([
      { path: ['token'], set: false },
      { path: ['nested', 'inner'], set: false },
      { path: ['nested', 'deeper', 'key'], set: false },
    ])
  })

  it('returns an undefined value when the whole value is a secret', () => {
    const result = createRedactor(secret()).redact('sk-root')
    expect(result.value).toBeUndefined()
    expect(result.slots).toEqual([{ path: [], set: true }])
  })
})

describe('createRedactor: input handling', () => {
  it('preserves keys the schema does not declare, at every depth', () => {
    const redactor = createRedactor(Schema.object({ token: secret(), nested: Schema.object({ key: secret() }) }))
    const result = redactor.redact({ token: 'sk-1', extra: { deep: [1, 'two'] }, nested: { key: 'sk-2', note: 'kept' } })
    expect(result.value).toEqual({ extra: { deep: [1, 'two'] }, nested: { note: 'kept' } })
  })

  it('never mutates its input', () => {
    const redactor = createRedactor(Schema.object({ token: secret(), list: Schema.array(secret()), keys: Schema.dict(secret()) }))
    const input = { token: 'sk-1', list: ['sk-2'], keys: { a: 'sk-3' }, other: 1 }
    const snapshot = structuredClone(input)
    redactor.redact(input)
    expect(input).toEqual(snapshot)
  })

  it('redacts deep-frozen input', () => {
    const redactor = createRedactor(Schema.object({
      token: secret(),
      nested: Schema.object({ key: secret(), n: Schema.number() }),
      list: Schema.array(secret()),
      keys: Schema.dict(secret()),
      pair: Schema.tuple([secret(), Schema.string()]),
    }))
    const input = deepFreeze({ token: 'sk-1', nested: { key: 'sk-2', n: 1 }, list: ['sk-3'], keys: { a: 'sk-4' }, pair: ['sk-5', 'p'] })
    const result = redactor.redact(input)
    expect(result.value).toEqual({ nested: { n: 1 }, list: [null], keys: {}, pair: [null, 'p'] })
    expect(input.token).toBe('sk-1')
    expect(input.list).toEqual(['sk-3'])
  })
})

describe('createRedactor: secret containers', () => {
  it('treats a secret-role object as one opaque slot', () => {
    const redactor = createRedactor(Schema.object({
      name: Schema.string(),
      credentials: Schema.object({ user: Schema.string(), password: Schema.string() }).role('secret'),
    }))
    const result = redactor.redact({ name: 'n', credentials: { user: 'u', password: 'pw' } })
    expect(result.value).toEqual({ name: 'n' })
    expect(result.slots).toEqual([{ path: ['credentials'], set: true }])
  })

  it('treats a secret-role dict or array as one opaque slot', () => {
    const redactor = createRedactor(Schema.object({
      headers: Schema.dict(Schema.string()).role('secret'),
      keys: Schema.array(Schema.string()).role('secret'),
    }))
    const result = redactor.redact({ headers: { authorization: 'Bearer x' }, keys: ['k1', 'k2'] })
    expect(result.value).toEqual({})
    expect(result.slots).toEqual([
      { path: ['headers'], set: true },
      { path: ['keys'], set: true },
    ])
  })

  it('reports an absent secret-role container as one unset slot', () => {
    const redactor = createRedactor(Schema.object({ credentials: Schema.object({ password: Schema.string() }).role('secret') }))
    expect(redactor.redact({}).slots).toEqual([{ path: ['credentials'], set: false }])
  })

  it('turns a dict whose values are secret into an empty object', () => {
    const redactor = createRedactor(Schema.object({ tokens: Schema.dict(secret()) }))
    const result = redactor.redact({ tokens: { github: 'gh-1', gitlab: 'gl-2' } })
    expect(result.value).toEqual({ tokens: {} })
    expect(result.slots).toEqual([
      { path: ['tokens', 'github'], set: true },
      { path: ['tokens', 'gitlab'], set: true },
    ])
  })
})

describe('createRedactor: composite schemas', () => {
  const auth = Schema.union([
    Schema.object({ kind: Schema.const('key').required(), key: secret() }),
    Schema.object({ kind: Schema.const('oauth').required(), clientId: Schema.string(), clientSecret: secret() }),
    Schema.object({ kind: Schema.const('none').required() }),
  ])

  it('removes secrets of the union branch that admits the value', () => {
    const redactor = createRedactor(Schema.object({ auth }))
    expect(redactor.redact({ auth: { kind: 'key', key: 'sk-key' } })).toEqual({
      value: { auth: { kind: 'key' } },
      slots: [{ path: ['auth', 'key'], set: true }],
    })
    expect(redactor.redact({ auth: { kind: 'oauth', clientId: 'id', clientSecret: 'sk-oauth' } })).toEqual({
      value: { auth: { kind: 'oauth', clientId: 'id' } },
      slots: [{ path: ['auth', 'clientSecret'], set: true }],
    })
    expect(redactor.redact({ auth: { kind: 'none' } })).toEqual({ value: { auth: { kind: 'none' } }, slots: [] })
  })

  it('removes a secret scalar when a union of a secret and a number admits it as the secret', () => {
    const redactor = createRedactor(Schema.object({ key: Schema.union([secret(), Schema.number()]) }))
    expect(redactor.redact({ key: 'sk-union' })).toEqual({ value: {}, slots: [{ path: ['key'], set: true }] })
    expect(redactor.redact({ key: 42 })).toEqual({ value: { key: 42 }, slots: [] })
  })

  it('removes a value that no branch of a secret-bearing union admits, as one set slot', () => {
    const redactor = createRedactor(Schema.object({ auth }))
    const result = redactor.redact({ auth: { kind: 'mystery', key: 'sk-mystery' } })
    expect(result.value).toEqual({})
    expect(result.slots).toEqual([{ path: ['auth'], set: true }])
    expect(JSON.stringify(result)).not.toContain('sk-mystery')
  })

  it('removes secrets declared by any member of an intersection', () => {
    const redactor = createRedactor(Schema.intersect([
      Schema.object({ endpoint: Schema.string() }),
      Schema.object({ apiKey: secret() }),
      Schema.object({ nested: Schema.object({ token: secret() }) }),
    ]))
    const result = redactor.redact({ endpoint: 'https://x', apiKey: 'sk-int', nested: { token: 'sk-nested' } })
    expect(result.value).toEqual({ endpoint: 'https://x', nested: {} })
    expect(result.slots).toEqual([
      { path: ['apiKey'], set: true },
      { path: ['nested', 'token'], set: true },
    ])
  })

  it('removes secrets under a transform', () => {
    const redactor = createRedactor(Schema.object({
      conn: Schema.transform(Schema.object({ host: Schema.string(), password: secret() }), (value) => ({ ...value, host: value.host?.toLowerCase() })),
      key: Schema.transform(secret(), (value) => value.trim()),
    }))
    const result = redactor.redact({ conn: { host: 'db', password: 'pw-transform' }, key: 'sk-trim' })
    expect(result.value).toEqual({ conn: { host: 'db' } })
    expect(result.slots).toEqual([
      { path: ['conn', 'password'], set: true },
      { path: ['key'], set: true },
    ])
  })

  it('removes secrets under a lazy schema', () => {
    const redactor = createRedactor(Schema.object({ conn: Schema.lazy(() => Schema.object({ password: secret() })) }))
    expect(redactor.hasSecrets).toBe(true)
    expect(redactor.redact({ conn: { password: 'pw-lazy' } })).toEqual({
      value: { conn: {} },
      slots: [{ path: ['conn', 'password'], set: true }],
    })
  })

  it('removes secrets at every depth of a recursive lazy schema declaring the secret before the recursion', () => {
    const node: Schema<any> = Schema.lazy(() => Schema.object({ token: secret(), children: Schema.array(node) }))
    const result = createRedactor(node).redact({ token: 'T0', children: [{ token: 'T1', children: [{ token: 'T2', children: [] }] }] })
    expect(result.value).toEqual({ children: [{ children: [{ children: [] }] }] })
    expect(result.slots.map((slot) => slot.path)).toEqual([['token'], ['children', '0', 'token'], ['children', '0', 'children', '0', 'token']])
  })

  it('removes secrets at every depth of a recursive lazy schema declaring the recursion before the secret', () => {
    const node: Schema<any> = Schema.lazy(() => Schema.object({ children: Schema.array(node), token: secret() }))
    const result = createRedactor(node).redact({ children: [{ children: [{ children: [], token: 'T2' }], token: 'T1' }], token: 'T0' })
    expect(JSON.stringify(result.value)).not.toMatch(/T[012]/)
    expect(result.value).toEqual({ children: [{ children: [{ children: [] }] }] })
  })

  it('reports hasSecrets for a secret reachable only through a union, intersection, transform or lazy schema', () => {
    expect(createRedactor(Schema.union([Schema.number(), secret()])).hasSecrets).toBe(true)
    expect(createRedactor(Schema.intersect([Schema.object({}), Schema.object({ k: secret() })])).hasSecrets).toBe(true)
    expect(createRedactor(Schema.transform(secret(), (value) => value)).hasSecrets).toBe(true)
    expect(createRedactor(Schema.lazy(() => secret())).hasSecrets).toBe(true)
  })
})

describe('createRedactor: secrets of the other union branches', () => {
  // The shape of issue 10: switching `kind` keeps the keys the former branch wrote.
  const switched = Schema.union([
    Schema.object({ kind: Schema.const('a').required(), token: secret() }),
    Schema.object({ kind: Schema.const('b').required(), url: Schema.string() }),
  ])

  it('removes a key the matched branch does not declare when another branch marks it secret, as a set slot', () => {
    const value = { kind: 'b' as const, url: 'https://x', token: 'sk-switched' }
    expect(switched(structuredClone(value))).toHaveProperty('token', 'sk-switched')
    const result = createRedactor(switched).redact(value)
    expect(result).toEqual({ value: { kind: 'b', url: 'https://x' }, slots: [{ path: ['token'], set: true }] })
    expect(JSON.stringify(result)).not.toContain('sk-switched')
  })

  it('removes the leftover from the resolved value too, which keeps the undeclared key', () => {
    const redactor = createRedactor(Schema.object({ auth: switched }))
    const resolved = Schema.object({ auth: switched })({ auth: { kind: 'b', token: 'sk-resolved' } })
    expect(redactor.redact(resolved)).toEqual({ value: { auth: { kind: 'b' } }, slots: [{ path: ['auth', 'token'], set: true }] })
  })

  it('reports no slot for a secret of another branch that the value does not hold', () => {
    expect(createRedactor(switched).redact({ kind: 'b', url: 'u' })).toEqual({ value: { kind: 'b', url: 'u' }, slots: [] })
    expect(createRedactor(switched).redact({ kind: 'b', token: null })).toEqual({ value: { kind: 'b', token: null }, slots: [] })
  })

  it('keeps the matched branch slots first, then the other branches in declaration order', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({ kind: Schema.const('a').required(), first: secret() }),
      Schema.object({ kind: Schema.const('b').required(), own: secret() }),
      Schema.object({ kind: Schema.const('c').required(), last: secret() }),
    ]))
    const result = redactor.redact({ kind: 'b', last: 'sk-c', first: 'sk-a' })
    expect(result.value).toEqual({ kind: 'b' })
    expect(result.slots).toEqual([
      { path: ['own'], set: false },
      { path: ['first'], set: true },
      { path: ['last'], set: true },
    ])
  })

  it('removes a key the matched branch declares plain when another branch marks it secret', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({ kind: Schema.const('a').required(), token: secret() }),
      Schema.object({ kind: Schema.const('b').required(), token: Schema.string() }),
    ]))
    expect(redactor.redact({ kind: 'b', token: 'sk-plain-here' })).toEqual({ value: { kind: 'b' }, slots: [{ path: ['token'], set: true }] })
  })

  it('removes a nested secret that sits under a key the matched branch treats as plain', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({ kind: Schema.const('a').required(), conn: Schema.object({ host: Schema.string(), password: secret() }) }),
      Schema.object({ kind: Schema.const('b').required(), conn: Schema.dict(Schema.string()) }),
      Schema.object({ kind: Schema.const('c').required(), conn: Schema.any() }),
    ]))
    for (const kind of ['b', 'c']) {
      const result = redactor.redact({ kind, conn: { host: 'db', password: 'pw-nested' } })
      expect(result).toEqual({ value: { kind, conn: { host: 'db' } }, slots: [{ path: ['conn', 'password'], set: true }] })
    }
  })

  it('removes leftovers at every container kind of another branch: array items become null', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({
        kind: Schema.const('a').required(),
        list: Schema.array(secret()),
        pair: Schema.tuple([Schema.string(), secret()]),
        keys: Schema.dict(secret()),
        vault: Schema.object({ x: Schema.string() }).role('secret'),
      }),
      Schema.object({ kind: Schema.const('b').required() }),
    ]))
    const result = redactor.redact({ kind: 'b', list: ['sk-l'], pair: ['p', 'sk-p'], keys: { k: 'sk-k' }, vault: { x: 'sk-v' } })
    expect(result.value).toEqual({ kind: 'b', list: [null], pair: ['p', null], keys: {} })
    expect(result.slots).toEqual([
      { path: ['list', '0'], set: true },
      { path: ['pair', '1'], set: true },
      { path: ['keys', 'k'], set: true },
      { path: ['vault'], set: true },
    ])
  })

  it('leaves a leftover of another shape than the other branch declares (it is not that branch\'s)', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({ kind: Schema.const('a').required(), conn: Schema.object({ password: secret() }) }),
      Schema.object({ kind: Schema.const('b').required(), conn: Schema.string() }),
    ]))
    expect(redactor.redact({ kind: 'b', conn: 'localhost' })).toEqual({ value: { kind: 'b', conn: 'localhost' }, slots: [] })
  })

  it('removes a present leftover of the wrong shape where another branch declares a secret leaf', () => {
    expect(createRedactor(switched).redact({ kind: 'b', token: 12345678 })).toEqual({ value: { kind: 'b' }, slots: [{ path: ['token'], set: true }] })
  })

  it('follows unions, intersections and transforms inside another branch', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({
        kind: Schema.const('a').required(),
        auth: Schema.union([
          Schema.object({ mode: Schema.const('key').required(), key: secret() }),
          Schema.object({ mode: Schema.const('none').required() }),
        ]),
        both: Schema.intersect([Schema.object({ user: Schema.string() }), Schema.object({ pass: secret() })]),
        shaped: Schema.transform(Schema.object({ pin: secret() }), (value) => value),
      }),
      Schema.object({ kind: Schema.const('b').required() }),
    ]))
    const result = redactor.redact({ kind: 'b', auth: { mode: 'none', key: 'sk-auth' }, both: { user: 'u', pass: 'sk-pass' }, shaped: { pin: 'sk-pin' } })
    expect(result.value).toEqual({ kind: 'b', auth: { mode: 'none' }, both: { user: 'u' }, shaped: {} })
    expect(result.slots).toEqual([
      { path: ['auth', 'key'], set: true },
      { path: ['both', 'pass'], set: true },
      { path: ['shaped', 'pin'], set: true },
    ])
  })

  it('removes the leftovers of a switched union inside arrays and dicts, by index and key', () => {
    const redactor = createRedactor(Schema.object({ list: Schema.array(switched), byName: Schema.dict(switched) }))
    const result = redactor.redact({
      list: [{ kind: 'a', token: 'sk-0' }, { kind: 'b', token: 'sk-1' }],
      byName: { x: { kind: 'b', url: 'u', token: 'sk-x' } },
    })
    expect(result.value).toEqual({ list: [{ kind: 'a' }, { kind: 'b' }], byName: { x: { kind: 'b', url: 'u' } } })
    expect(result.slots).toEqual([
      { path: ['list', '0', 'token'], set: true },
      { path: ['list', '1', 'token'], set: true },
      { path: ['byName', 'x', 'token'], set: true },
    ])
  })

  it('removes a scalar that a secret branch admits even when a plain branch before it matched', () => {
    const redactor = createRedactor(Schema.object({ key: Schema.union([Schema.string(), secret()]) }))
    expect(redactor.redact({ key: 'sk-ambiguous' })).toEqual({ value: {}, slots: [{ path: ['key'], set: true }] })
  })

  it('keeps a value that a scalar secret branch rejects: a number beside a secret string, a key file beside a secret key', () => {
    const redactor = createRedactor(Schema.object({
      count: Schema.union([Schema.number(), secret()]),
      key: Schema.union([secret(), Schema.object({ file: Schema.string() })]),
    }))
    expect(redactor.redact({ count: 3, key: { file: '/etc/key' } })).toEqual({ value: { count: 3, key: { file: '/etc/key' } }, slots: [] })
    expect(redactor.redact({ count: 3, key: 'sk-key' })).toEqual({ value: { count: 3 }, slots: [{ path: ['key'], set: true }] })
  })

  it('removes a whole object a secret object branch may have left, when the matched branch is another object', () => {
    const redactor = createRedactor(Schema.union([
      Schema.object({ kind: Schema.const('a').required(), user: Schema.string(), password: Schema.string() }).role('secret'),
      Schema.object({ kind: Schema.const('b').required() }),
    ]))
    const result = redactor.redact({ kind: 'b', user: 'u', password: 'pw-whole' })
    expect(result).toEqual({ value: undefined, slots: [{ path: [], set: true }] })
  })

  it('redacts a union schema default through redactWith the same way', () => {
    const inner = Schema.object({ auth: switched })
    const redactor = createRedactor(Schema.object({ inner }))
    expect(redactor.redactWith({ auth: { kind: 'b', token: 'sk-default' } }, inner)).toEqual({
      value: { auth: { kind: 'b' } },
      slots: [{ path: ['auth', 'token'], set: true }],
    })
  })
})

describe('createRedactor: intersections with a secret part', () => {
  it('removes a key one part marks secret and another declares plain, in either order', () => {
    const plain = Schema.object({ token: Schema.string(), name: Schema.string() })
    const marked = Schema.object({ token: secret() })
    for (const parts of [[plain, marked], [marked, plain]]) {
      const schema = Schema.intersect(parts)
      const value = { token: 'sk-inter', name: 'n' }
      expect(() => schema(structuredClone(value))).not.toThrow()
      expect(createRedactor(schema).redact(value)).toEqual({ value: { name: 'n' }, slots: [{ path: ['token'], set: true }] })
    }
  })

  it('removes the leftovers of a union part after a switch', () => {
    const schema = Schema.intersect([
      Schema.object({ label: Schema.string() }),
      Schema.union([
        Schema.object({ kind: Schema.const('a').required(), token: secret() }),
        Schema.object({ kind: Schema.const('b').required() }),
      ]),
    ])
    const value = { label: 'l', kind: 'b' as const, token: 'sk-inter-union' }
    expect(schema(structuredClone(value))).toHaveProperty('token', 'sk-inter-union')
    expect(createRedactor(schema).redact(value)).toEqual({ value: { label: 'l', kind: 'b' }, slots: [{ path: ['token'], set: true }] })
  })
})

describe('createRedactor: fail closed', () => {
  it('removes a string where a dict of secrets is declared, as one set slot', () => {
    const redactor = createRedactor(Schema.object({ tokens: Schema.dict(secret()), name: Schema.string() }))
    const result = redactor.redact({ tokens: 'sk-misplaced', name: 'n' })
    expect(result.value).toEqual({ name: 'n' })
    expect(result.slots).toEqual([{ path: ['tokens'], set: true }])
  })

  it('removes a wrong-shaped value where a secret-bearing array, tuple or object is declared', () => {
    const redactor = createRedactor(Schema.object({
      list: Schema.array(secret()),
      pair: Schema.tuple([secret()]),
      nested: Schema.object({ key: secret() }),
    }))
    const result = redactor.redact({ list: 'sk-list', pair: { 0: 'sk-pair' }, nested: ['sk-nested'] })
    expect(result.value).toEqual({})
    expect(result.slots).toEqual([
      { path: ['list'], set: true },
      { path: ['pair'], set: true },
      { path: ['nested'], set: true },
    ])
    expect(JSON.stringify(result)).not.toContain('sk-')
  })

  it('removes a whole wrong-shaped root value of a secret-bearing schema', () => {
    const result = createRedactor(Schema.object({ token: secret() })).redact('sk-root')
    expect(result.value).toBeUndefined()
    expect(result.slots).toEqual([{ path: [], set: true }])
  })
})

describe('createRedactor: secret-free schemas', () => {
  it('reports no secrets and passes values through unchanged', () => {
    const schema = Schema.object({
      name: Schema.string(),
      list: Schema.array(Schema.object({ n: Schema.number() })),
      keys: Schema.dict(Schema.string()),
      mode: Schema.union(['a', 'b']),
    })
    const redactor = createRedactor(schema)
    expect(redactor.hasSecrets).toBe(false)
    const value = { name: 'n', list: [{ n: 1 }], keys: { a: 'x' }, mode: 'a', extra: true }
    const result = redactor.redact(value)
    expect(result.value).toEqual(value)
    expect(result.slots).toEqual([])
  })

  it('passes even a wrong-shaped value through when nothing in the schema is secret', () => {
    const redactor = createRedactor(Schema.object({ keys: Schema.dict(Schema.string()) }))
    expect(redactor.redact({ keys: 'plain' })).toEqual({ value: { keys: 'plain' }, slots: [] })
    expect(redactor.redact(undefined)).toEqual({ value: undefined, slots: [] })
  })
})

describe('createRedactor: redactWith and containsSecret', () => {
  it('redacts a value of one node of the schema', () => {
    const inner = Schema.object({ key: secret(), label: Schema.string() })
    const redactor = createRedactor(Schema.object({ inner, plain: Schema.string() }))
    expect(redactor.redactWith({ key: 'sk-node', label: 'l' }, inner)).toEqual({
      value: { label: 'l' },
      slots: [{ path: ['key'], set: true }],
    })
  })

  it('tells which nodes are or contain a secret', () => {
    const plain = Schema.string()
    const key = secret()
    const inner = Schema.object({ key })
    const redactor = createRedactor(Schema.object({ inner, plain }))
    expect(redactor.containsSecret(inner)).toBe(true)
    expect(redactor.containsSecret(key)).toBe(true)
    expect(redactor.containsSecret(plain)).toBe(false)
  })
})
