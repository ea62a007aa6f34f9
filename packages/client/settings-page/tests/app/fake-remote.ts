/**
 * The page's remote for the app tests: every call goes through the
 * controller's own wire handlers with arguments, answers and errors
 * round-tripped through JSON, and the event stream is driven by the test.
 */
import { RemoteError, type RemoteEventHandler, type RemoteEventsOptions } from 'dsh-remote/client'
import { settingsHandlers, settingsRemoteMethods, type SettingsController, type SettingsRemote } from 'dsh-settings-controller'
import { deferred, type Deferred } from 'dsh-testing'
import type { PageRemote } from '../../src/app/session.ts'

export const json = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T))

/** A call as the server received it, after the wire's JSON encoding. */
export interface Call {
  method: string
  args: unknown[]
}

/** The page's remote, served by the controller's wire handlers, with a hand-driven event stream. */
export class FakeRemote {
  readonly calls: Call[] = []
  subscription: { handler: RemoteEventHandler; options: RemoteEventsOptions; ended: Promise<void> } | undefined
  /** Settle the `events` promise with a refusal, as a server that turns the stream down for good. */
  refuseStream: RemoteError | undefined
  private readonly holds = new Map<string, Deferred<void>[]>()
  private readonly handlers
  private eventId = 0

  constructor(controller: SettingsController) {
    this.handlers = settingsHandlers(controller)
  }

  /**
   * Delay the answer of the next call of `method`: the server runs it at once,
   * the page hears back on `resolve()`, or gets the given error on `reject()`.
   */
  hold(method: string): Deferred<void> {
    const gate = deferred()
    const queue = this.holds.get(method) ?? []
    queue.push(gate)
    this.holds.set(method, queue)
    return gate
  }

  count(method: string): number {
    return this.calls.filter((call) => call.method === method).length
  }

  last(method: string): Call | undefined {
    return this.calls.filter((call) => call.method === method).at(-1)
  }

  private async call(method: (typeof settingsRemoteMethods)[number], args: unknown[]): Promise<unknown> {
    let end = args.length
    while (end > 0 && args[end - 1] === undefined) end--
    const wireArgs = json(args.slice(0, end))
    this.calls.push({ method, args: wireArgs })
    const gate = this.holds.get(method)?.shift()
    let outcome: { value: unknown } | { error: RemoteError }
    try {
      outcome = { value: json(await this.handlers[method](wireArgs, { signal: new AbortController().signal })) }
    } catch (error) {
      outcome = { error: wireError(error) }
    }
    if (gate) {
      try {
        await gate.promise
      } catch (error) {
        outcome = { error: wireError(error) }
      }
    }
    if ('error' in outcome) throw outcome.error
    return outcome.value
  }

  readonly settings = Object.fromEntries(settingsRemoteMethods.map((method) => [method, (...args: unknown[]) => this.call(method, args)])) as unknown as SettingsRemote

  events = (handler: RemoteEventHandler, options: RemoteEventsOptions): Promise<void> => {
    const ended = this.refuseStream
      ? Promise.reject(this.refuseStream)
      : new Promise<void>((resolve) => {
          if (options.signal.aborted) resolve()
          options.signal.addEventListener('abort', () => resolve(), { once: true })
        })
    this.subscription = { handler, options, ended: ended.catch(() => {}) }
    return ended
  }

  /** Deliver one event to the page, its data as the stream would carry it. */
  emit(event: string, data: Record<string, unknown>): void {
    if (!this.subscription) throw new Error('the page is not following the event stream')
    this.subscription.handler({ id: ++this.eventId, event, data: json(data) })
  }

  get options(): RemoteEventsOptions {
    if (!this.subscription) throw new Error('the page is not following the event stream')
    return this.subscription.options
  }

  asRemote(): PageRemote {
    return this as unknown as PageRemote
  }
}

/** An error as the client rebuilds it from the wire envelope. */
export function wireError(error: unknown): RemoteError {
  if (error instanceof RemoteError) return RemoteError.from(json(error.toJSON()))
  return new RemoteError('internal', 'the call failed unexpectedly')
}
