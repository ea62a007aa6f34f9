import type { Context, Logger } from 'cordis'
import { isInvariantError } from './errors.ts'

/**
 * Call every listener of a cordis event, containing failures: a synchronous
 * throw or an async rejection is logged and the remaining listeners still run.
 * The one exception is a synchronous `INVARIANT`-coded throw, which is
 * collected into `invariants` for the caller to rethrow once its whole
 * fan-out has run. A logged failure goes through `scrub` first.
 */
export function emitContained(
  ctx: Context,
  logger: Logger,
  invariants: unknown[],
  name: string,
  args: unknown[],
  what: string,
  scrub: (error: unknown) => unknown = (error) => error,
): void {
  // A listener's error may quote the values it was handed: `scrub` cuts their secrets out before it is logged.
  const failed = (error: unknown) => logger.warn(`settings: a ${name} listener for ${what} failed`, scrub(error))
  // `emit` would stop at the first throwing listener; `dispatch` hands us the listeners to call one by one.
  const callbacks = ctx.events.dispatch('emit', [name, ...args]) as ((...args: unknown[]) => unknown)[]
  for (const callback of callbacks) {
    try {
      const result = callback(...args)
      if (result && typeof (result as PromiseLike<unknown>).then === 'function') Promise.resolve(result).catch(failed)
    } catch (error) {
      if (isInvariantError(error)) invariants.push(error)
      else failed(error)
    }
  }
}

/**
 * One observer of one instance. Its calls run one at a time in commit order;
 * a call that has not started when the observer is stopped is skipped.
 */
export class Watcher<T> {
  private active = true
  private tail: Promise<void> = Promise.resolve()

  constructor(
    private readonly callback: (next: T, prev: T) => void | Promise<void>,
    /** Told of a failed call, with the values that call was handed (a log must not quote their secrets). */
    private readonly onError: (error: unknown, next: T, prev: T) => void,
  ) {}

  /**
   * Queue one call. `mayStart` is asked again when the call's turn comes.
   * @returns a promise of the call that resolves once it finished (a failure goes to `onError`); it never rejects.
   */
  enqueue(next: T, prev: T, mayStart: () => boolean): Promise<void> {
    this.tail = this.tail.then(async () => {
      if (!this.active || !mayStart()) return
      try {
        await this.callback(next, prev)
      } catch (error) {
        this.onError(error, next, prev)
      }
    })
    return this.tail
  }

  /** Skip every call that has not started yet. */
  stop(): void {
    this.active = false
  }
}

/** A set of running calls that can be awaited as a whole. */
export class Inflight {
  private readonly runs = new Set<Promise<void>>()

  /** Track a running call until it finishes. */
  track(run: Promise<void>): void {
    this.runs.add(run)
    run.finally(() => this.runs.delete(run))
  }

  /** Resolves once everything tracked so far has finished. */
  async drain(): Promise<void> {
    while (this.runs.size) await Promise.allSettled([...this.runs])
  }
}
