import type { Context } from 'cordis'

/** Key under which a scope tags every context derived from its own. */
const kScope = Symbol.for('dsh-scope')

/** One segment of a scope id: lowercase letters and digits, hyphens after the first character. */
const SEGMENT = '[a-z0-9][a-z0-9-]*'

/** The grammar of a named scope id: `<kind>/<id>`, for example `preset/coder`. */
export const SCOPE_ID_PATTERN: RegExp = new RegExp(`^${SEGMENT}/${SEGMENT}$`)

/**
 * A subtree of cordis contexts. Plugins plugged through `ctx` (and every context
 * derived from theirs) see this scope as their nearest one until a nested scope shadows it.
 */
export interface Scope {
  /** The context to plug the scope's members through. Its fiber is owned by the creator's fiber. */
  readonly ctx: Context
  /** The scope id, or `undefined` for an anonymous scope. */
  readonly name: string | undefined
  /** The nearest enclosing scope at creation, if any. */
  readonly parent: Scope | undefined
  /**
   * Tear down everything plugged through the scope and resolve once it is gone.
   * Calling it again returns the same settlement.
   */
  dispose(): Promise<void>
}

/** Options of {@link createScope}. */
export interface ScopeOptions {
  /** A scope id (`<kind>/<id>`). Leave it out for an anonymous scope. */
  name?: string
}

/**
 * Check that `name` is a well-formed scope id.
 * @throws {TypeError} when it is not a string of the `<kind>/<id>` grammar.
 */
export function assertScopeId(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !SCOPE_ID_PATTERN.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : typeof name
    throw new TypeError(`scope id ${shown} must match ${SCOPE_ID_PATTERN}`)
  }
}

/** The plugin that owns one scope's fiber; it does nothing but exist. */
const ScopeFiber = { name: 'dsh-scope', apply() {} }

/**
 * Open a scope under `ctx`. The scope lives on its own fiber, a child of the
 * caller's: disposing the caller disposes the scope, and `scope.dispose()`
 * disposes only what was made through the scope.
 * @param ctx - the context that owns the scope.
 * @param options - an optional scope id; without one the scope is anonymous.
 * @throws {TypeError} when `options.name` is given and is not a valid scope id.
 */
export function createScope(ctx: Context, options: ScopeOptions = {}): Scope {
  const { name } = options
  if (name !== undefined) assertScopeId(name)
  const fiber = ctx.plugin(ScopeFiber)
  let disposal: Promise<void> | undefined
  // The scope's context carries the scope itself, so the two are made together.
  const scope = {
    name,
    parent: scopeOf(ctx),
    dispose: () => (disposal ??= Promise.resolve(fiber.dispose()).then(() => {})),
  } as { -readonly [K in keyof Scope]: Scope[K] }
  scope.ctx = fiber.ctx.extend({ [kScope]: scope })
  return Object.freeze(scope)
}

/** The nearest scope `ctx` was made through, or `undefined` outside any scope. */
export function scopeOf(ctx: Context): Scope | undefined {
  return (ctx as unknown as Record<symbol, Scope | undefined>)[kScope]
}

/**
 * The id of the nearest named scope around `ctx`, skipping anonymous ones,
 * or `undefined` when `ctx` belongs to the global scope.
 */
export function namedScopeOf(ctx: Context): string | undefined {
  for (let scope = scopeOf(ctx); scope; scope = scope.parent) {
    if (scope.name !== undefined) return scope.name
  }
  return undefined
}
