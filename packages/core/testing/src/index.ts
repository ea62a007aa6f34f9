import type { ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Context, Fiber } from 'cordis'

/** A promise whose `resolve` and `reject` are handed to the test, to control ordering without sleeps. */
export interface Deferred<T = void> {
  promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

/** A fresh {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((done, fail) => {
    resolve = done
    reject = fail
  })
  return { promise, resolve, reject }
}

/**
 * Wait `ms` milliseconds (default zero).
 * @deprecated use `setTimeout` from `node:timers/promises`, the workspace's one sleep.
 */
export function settle(ms = 0): Promise<void> {
  return sleep(ms)
}

/**
 * Resolve once the microtask queue has run dry: every promise continuation
 * pending now, and every one those queue in turn, has run. The settings engine,
 * its queues and cordis fibers set no timers and do no I/O, so once this
 * resolves nothing they started can still be on its way: a check that
 * something has not happened (a write still held at a test's gate, a dispose
 * still waiting for it) is then final, not a guess about timing. It is not a
 * way to wait for a timer, a file or a process.
 */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * End the child processes a test spawned that are still running (SIGKILL, by
 * their own pid) and wait until each has exited. Never touches any other process.
 */
export async function endChildren(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const gone = new Promise((done) => child.once('exit', done))
    child.kill('SIGKILL')
    await gone
  }
}

/**
 * Retry `check` until it passes, polling every 20 ms; after `timeoutMs` its
 * last failure is thrown. For waiting on something outside the test's control
 * (a file watcher, a child process), never as a timing assertion.
 */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await check()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await sleep(20)
    }
  }
}

/** One argument of a captured log message as text: errors by name and message, objects as JSON. */
export function logText(arg: unknown): string {
  if (arg instanceof Error) return `${arg.name}: ${arg.message}`
  if (typeof arg === 'string') return arg
  try {
    return JSON.stringify(arg)
  } catch {
    return String(arg)
  }
}

/**
 * Plug a plugin that injects `settings` under `parent` and wait for its apply.
 * Resolves with what `apply` returned; rejects with what it threw (cordis only
 * records such a failure on the fiber, so it is captured here to be seen).
 */
export async function plugWithSettings<T>(parent: Context, apply: (ctx: Context) => T): Promise<{ value: T; fiber: Fiber }> {
  let value!: T
  let failure: unknown
  const fiber = parent.plugin({
    inject: ['settings'],
    apply(ctx: Context) {
      try {
        value = apply(ctx)
      } catch (error) {
        failure = error
        throw error
      }
    },
  })
  await fiber.await().catch(() => {})
  if (failure !== undefined) throw failure
  return { value, fiber }
}
