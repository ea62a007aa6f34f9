import { setTimeout as wait } from 'node:timers/promises'

/**
 * Wait `ms`, or less when `signal` aborts first. Never rejects, and leaves no
 * timer behind either way (Node clears it on abort), so an aborted start holds
 * nothing that keeps the process alive.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return wait(ms, undefined, { signal }).catch(() => {})
}
