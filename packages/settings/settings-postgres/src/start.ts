import { pause } from './pause.ts'

/** The wait after the first failed start attempt; each later one doubles it, up to {@link MAX_START_RETRY_MS}. */
export const FIRST_START_RETRY_MS = 500
/** The longest wait between two start attempts. */
export const MAX_START_RETRY_MS = 30_000

/**
 * The wait after failed start attempt number `attempt` (1-based): 0.5 s
 * doubling up to 30 s, less up to a quarter at random, so hosts that lost
 * their database together do not come back in step. Never over the cap.
 */
export function startRetryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_START_RETRY_MS, FIRST_START_RETRY_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 16))
  return Math.round(base * (1 - 0.25 * random()))
}

/** What {@link retryUntilStarted} runs and tells. */
export interface StartAttempts<T> {
  /** One attempt; it cleans up after itself when it throws. */
  attempt(): Promise<T>
  /** Aborted when the start is given up (the provider was disposed): no further attempt or wait. */
  signal: AbortSignal
  /** Told each failure with its number and the wait before the next attempt. */
  failed(error: unknown, attempt: number, retryInMs: number): void
}

/**
 * Run `attempt` until it succeeds, waiting {@link startRetryDelay} between
 * failures, and answer its result; or `undefined` once `signal` aborted. An
 * attempt under way when it aborts is let finish (each is bounded by its own
 * timeouts); one that succeeds is still answered, for the caller to close.
 */
export async function retryUntilStarted<T>({ attempt, signal, failed }: StartAttempts<T>): Promise<T | undefined> {
  for (let count = 1; !signal.aborted; count++) {
    try {
      return await attempt()
    } catch (error) {
      if (signal.aborted) break
      const wait = startRetryDelay(count)
      failed(error, count, wait)
      await pause(wait, signal)
    }
  }
  return undefined
}
