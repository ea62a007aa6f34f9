/**
 * Running one measurement in a child process under a time budget.
 *
 * A measurement that may take minutes at its largest size (a quadratic parse
 * blocks the event loop, so no timer in the same process can interrupt it)
 * runs in a forked child. The child reports each finished part of its work as
 * an IPC message as soon as it has it; when the budget runs out the parent
 * kills that child (by its pid, SIGKILL) and keeps what it already reported, so
 * a slow size turns into "over budget" cells instead of a hanging bench.
 *
 * The parent owns the child's temp directory and removes it after the child
 * exits, so a killed child leaves nothing behind.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { now } from './stats.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** How a budgeted child run ended, with every message it sent before that. */
export interface ChildOutcome<M> {
  /** The messages the child reported, in order. */
  messages: M[]
  /** When each message arrived, in ms after the fork (the parent's clock). */
  times: number[]
  /** Whether the parent killed the child because its budget ran out. */
  overBudget: boolean
  /** The child's own failure (its stack), if it reported one or exited non-zero. */
  error?: string
  /** Wall time from fork to exit, in ms. */
  ms: number
}

/** The envelope the child side sends; `done` and `error` end the run. */
type Envelope<M> = { progress: M } | { done: true } | { error: string }

/**
 * Fork `file` (a TypeScript module, loaded through tsx, with `--expose-gc`)
 * with `env` added to the environment, and collect its progress messages
 * until it finishes or its time runs out: `setupMs` from the fork to its first
 * message (loading modules, building inputs), then `budgetMs` from that first
 * message on.
 */
export function runBudgeted<M>(file: string, env: Record<string, string>, budgetMs: number, setupMs = 30_000): Promise<ChildOutcome<M>> {
  const started = now()
  return new Promise((resolve) => {
    const child = fork(file, [], {
      cwd: ROOT,
      execArgv: ['--expose-gc', '--conditions=source', '--import', 'tsx'],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    const messages: M[] = []
    const times: number[] = []
    let overBudget = false
    let finished = false
    let error: string | undefined
    const expire = () => {
      if (finished) return
      overBudget = true
      child.kill('SIGKILL')
    }
    let timer = setTimeout(expire, setupMs)
    child.on('message', (message: Envelope<M>) => {
      if ('progress' in message) {
        if (!messages.length) {
          clearTimeout(timer)
          timer = setTimeout(expire, budgetMs)
        }
        messages.push(message.progress)
        times.push(now() - started)
      }
      else if ('error' in message) error = message.error
      else {
        finished = true
        // A child that finished but keeps a handle open must not hold the bench.
        setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 5000).unref()
      }
    })
    child.on('error', (failure) => {
      error ??= failure.message
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (!overBudget && !finished && error === undefined) error = `child exited with ${signal ?? code} before it finished`
      resolve({ messages, times, overBudget, ...(error === undefined ? {} : { error }), ms: now() - started })
    })
  })
}

/** Child side: send one progress message and wait until it has left the process (so a kill right after cannot lose it). */
export function report<M>(progress: M): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('report() needs an IPC channel: run this module through runBudgeted()'))
    process.send({ progress } satisfies Envelope<M>, undefined, {}, (failure) => (failure ? reject(failure) : resolve()))
  })
}

/** Child side: run `body`, tell the parent it finished (or why not), then let the process end. */
export function childMain(body: () => Promise<void>): void {
  const send = (envelope: Envelope<never>) =>
    new Promise<void>((resolve) => {
      if (!process.send) return resolve()
      process.send(envelope, undefined, {}, () => resolve())
    })
  body().then(
    async () => {
      await send({ done: true })
      process.disconnect?.()
    },
    async (failure: unknown) => {
      await send({ error: failure instanceof Error ? (failure.stack ?? failure.message) : String(failure) })
      process.exitCode = 1
      process.disconnect?.()
    },
  )
}

/** The garbage collector when the process runs with `--expose-gc`. */
const gc = (globalThis as { gc?: () => void }).gc

/** Whether {@link heapUsed} can force a collection first. */
export const gcAvailable = typeof gc === 'function'

/** `heapUsed` after two forced collections (without `--expose-gc`: as it stands, garbage included). */
export function heapUsed(): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}
