import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { createScope, namedScopeOf, scopeOf, type Scope } from '../src/index.ts'

// FiberState is a declared const enum; compare with its numbers under isolatedModules.
const ACTIVE = 2
const DISPOSED = 4

/** Cleanups registered by a test, run (newest first) after it. */
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

/** A fresh root context; what a test plugs into it is disposed through `cleanups`. */
function root(): Context {
  return new Context()
}

/** Plug `apply` under `parent`, wait for it to be active, and hand back what it saw. */
async function plug<T>(parent: Context, apply: (ctx: Context) => T): Promise<{ fiber: Fiber; ctx: Context; value: T }> {
  let seen!: Context
  let value!: T
  const fiber = parent.plugin((ctx: Context) => {
    seen = ctx
    value = apply(ctx)
  })
  cleanups.push(() => fiber.dispose())
  await fiber
  return { fiber, ctx: seen, value }
}

/** Open a scope under `ctx` and dispose it after the test. */
function scoped(ctx: Context, name?: string): Scope {
  const scope = createScope(ctx, name === undefined ? {} : { name })
  cleanups.push(() => scope.dispose())
  return scope
}

/** Plug a plugin that records its own disposal through an effect. */
async function plugObserved(parent: Context, log: string[], label: string): Promise<Fiber> {
  const { fiber } = await plug(parent, (ctx) => {
    ctx.effect(() => () => {
      log.push(label)
    })
  })
  return fiber
}

describe('createScope', () => {
  it('returns the scope with its context, name, parent and dispose', () => {
    const app = root()
    const scope = scoped(app, 'preset/coder')
    expect(scope.name).toBe('preset/coder')
    expect(scope.parent).toBeUndefined()
    expect(scope.ctx).toBeInstanceOf(Context)
    expect(scope.ctx).not.toBe(app)
    expect(typeof scope.dispose).toBe('function')
  })

  it('opens an anonymous scope when no name is given', () => {
    const scope = scoped(root())
    expect(scope.name).toBeUndefined()
  })

  it('records the enclosing scope as its parent', () => {
    const outer = scoped(root(), 'preset/outer')
    const inner = scoped(outer.ctx, 'preset/inner')
    expect(inner.parent).toBe(outer)
  })

  it.each([
    ['an empty string', ''],
    ['a bare kind', 'preset'],
    ['an uppercase kind', 'Preset/x'],
    ['an empty id', 'preset/'],
    ['three segments', 'a/b/c'],
    ['an id starting with a hyphen', 'preset/-x'],
    ['a number', 42],
  ])('rejects %s as a scope name with TypeError', (_label, name) => {
    const app = root()
    expect(() => createScope(app, { name: name as string })).toThrow(TypeError)
  })

  it('accepts well-formed <kind>/<id> names', () => {
    const app = root()
    for (const name of ['preset/coder', 'preset/a-1', 'agent/0x']) {
      expect(scoped(app, name).name).toBe(name)
    }
  })
})

describe('scopeOf and namedScopeOf', () => {
  it('are undefined outside any scope', async () => {
    const app = root()
    expect(scopeOf(app)).toBeUndefined()
    expect(namedScopeOf(app)).toBeUndefined()
    const { ctx } = await plug(app, (ctx) => ctx)
    expect(scopeOf(ctx)).toBeUndefined()
    expect(namedScopeOf(ctx)).toBeUndefined()
  })

  it('identify the scope a plugin was plugged through', async () => {
    const scope = scoped(root(), 'preset/coder')
    const { ctx } = await plug(scope.ctx, (ctx) => ctx)
    expect(scopeOf(ctx)).toBe(scope)
    expect(namedScopeOf(ctx)).toBe('preset/coder')
  })

  it('reach contexts derived deeper inside the scope', async () => {
    const scope = scoped(root(), 'preset/coder')
    const { ctx: outer } = await plug(scope.ctx, (ctx) => ctx)
    const { ctx: inner } = await plug(outer, (ctx) => ctx)
    const { ctx: innermost } = await plug(inner, (ctx) => ctx)
    expect(scopeOf(innermost)).toBe(scope)
    expect(namedScopeOf(innermost)).toBe('preset/coder')
  })

  it('let a nested named scope shadow the enclosing one', async () => {
    const outer = scoped(root(), 'preset/outer')
    const { ctx: member } = await plug(outer.ctx, (ctx) => ctx)
    const inner = scoped(member, 'preset/inner')
    const { ctx } = await plug(inner.ctx, (ctx) => ctx)
    expect(scopeOf(ctx)).toBe(inner)
    expect(namedScopeOf(ctx)).toBe('preset/inner')
    // The enclosing scope's other members are not affected by the nested one.
    expect(scopeOf(member)).toBe(outer)
    expect(namedScopeOf(member)).toBe('preset/outer')
  })

  it('skip an anonymous nested scope when looking for the named one', async () => {
    const named = scoped(root(), 'preset/coder')
    const anonymous = scoped(named.ctx)
    const { ctx } = await plug(anonymous.ctx, (ctx) => ctx)
    expect(scopeOf(ctx)).toBe(anonymous)
    expect(namedScopeOf(ctx)).toBe('preset/coder')
  })

  it('report no named scope inside an anonymous scope at top level', async () => {
    const anonymous = scoped(root())
    const { ctx } = await plug(anonymous.ctx, (ctx) => ctx)
    expect(scopeOf(ctx)).toBe(anonymous)
    expect(namedScopeOf(ctx)).toBeUndefined()
  })

  it('leave the creator outside the scope it opened', async () => {
    const { ctx: creator } = await plug(root(), (ctx) => ctx)
    const scope = scoped(creator, 'preset/coder')
    expect(scope.ctx).not.toBe(creator)
    expect(scopeOf(creator)).toBeUndefined()
    expect(namedScopeOf(creator)).toBeUndefined()
  })
})

describe('Scope.dispose', () => {
  it('tears down every plugin made through the scope, deeper ones included', async () => {
    const scope = scoped(root(), 'preset/coder')
    const log: string[] = []
    const first = await plugObserved(scope.ctx, log, 'first')
    const second = await plugObserved(scope.ctx, log, 'second')
    const { ctx: member } = await plug(scope.ctx, (ctx) => ctx)
    const deep = await plugObserved(member, log, 'deep')
    expect([first.state, second.state, deep.state]).toEqual([ACTIVE, ACTIVE, ACTIVE])

    await scope.dispose()

    expect(log.sort()).toEqual(['deep', 'first', 'second'])
    expect([first.state, second.state, deep.state]).toEqual([DISPOSED, DISPOSED, DISPOSED])
  })

  it('resolves only after an async teardown has finished', async () => {
    const app = root()
    const scope = scoped(app, 'preset/coder')
    const sibling = scoped(app, 'preset/writer')
    const events: string[] = []
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const teardownStarted = new Promise<void>((resolve) => (started = resolve))
    await plug(scope.ctx, (ctx) => {
      ctx.effect(() => async () => {
        events.push('teardown started')
        started()
        await released
        events.push('teardown finished')
      })
    })
    await plugObserved(sibling.ctx, events, 'sibling teardown')

    const disposal = scope.dispose().then(() => events.push('dispose resolved'))
    await teardownStarted
    // The sentinel: a sibling scope disposed after ours began, whose teardown does not wait, is gone first.
    await sibling.dispose().then(() => events.push('sibling disposed'))
    expect(events).toEqual(['teardown started', 'sibling teardown', 'sibling disposed'])

    release()
    await disposal
    expect(events).toEqual(['teardown started', 'sibling teardown', 'sibling disposed', 'teardown finished', 'dispose resolved'])
  })

  it('is idempotent: a second call resolves and runs nothing twice', async () => {
    const scope = scoped(root(), 'preset/coder')
    const log: string[] = []
    const fiber = await plugObserved(scope.ctx, log, 'member')

    await scope.dispose()
    await scope.dispose()
    await Promise.all([scope.dispose(), scope.dispose()])

    expect(log).toEqual(['member'])
    expect(fiber.state).toBe(DISPOSED)
  })

  it('does not affect the creator or its other plugins', async () => {
    const log: string[] = []
    const { ctx: creator, fiber: creatorFiber } = await plug(root(), (ctx) => {
      ctx.effect(() => () => {
        log.push('creator')
      })
      return ctx
    })
    const sibling = await plugObserved(creator, log, 'sibling')
    const scope = scoped(creator, 'preset/coder')
    const member = await plugObserved(scope.ctx, log, 'member')

    await scope.dispose()

    expect(log).toEqual(['member'])
    expect(member.state).toBe(DISPOSED)
    expect(creatorFiber.state).toBe(ACTIVE)
    expect(sibling.state).toBe(ACTIVE)
    // The creator can still plug new plugins afterwards.
    const later = await plugObserved(creator, log, 'later')
    expect(later.state).toBe(ACTIVE)
  })

  it('leaves sibling scopes of the same creator alone', async () => {
    const app = root()
    const log: string[] = []
    const a = scoped(app, 'preset/a')
    const b = scoped(app, 'preset/b')
    await plugObserved(a.ctx, log, 'a')
    const inB = await plugObserved(b.ctx, log, 'b')

    await a.dispose()

    expect(log).toEqual(['a'])
    expect(inB.state).toBe(ACTIVE)
  })

  it('happens when the creator plugin fiber is disposed', async () => {
    const log: string[] = []
    let scope!: Scope
    const { fiber: creatorFiber } = await plug(root(), (ctx) => {
      scope = createScope(ctx, { name: 'preset/coder' })
    })
    const member = await plugObserved(scope.ctx, log, 'member')
    const { ctx: inner } = await plug(scope.ctx, (ctx) => ctx)
    const deep = await plugObserved(inner, log, 'deep')

    await creatorFiber.dispose()

    expect(log.sort()).toEqual(['deep', 'member'])
    expect(member.state).toBe(DISPOSED)
    expect(deep.state).toBe(DISPOSED)
    // Disposing the scope afterwards is harmless and runs nothing again.
    await scope.dispose()
    expect(log).toHaveLength(2)
  })
})
