/**
 * The line protocol between processes.spec.ts and its child scripts. A child writes
 * `@@ready` once it is set up, waits for `go` on stdin (so all children start their
 * writes together), and ends with `@@result <json>`. Every child also exits by itself
 * after SAFETY_MS, whatever the test does.
 */
import { Context, type Fiber } from 'cordis'
import FileSettingsProvider from 'dsh-settings-file'

export const SAFETY_MS = 45_000

/** Exit with code 3 if still running after SAFETY_MS; never keeps the process alive on its own. */
export function exitEventually(): void {
  setTimeout(() => {
    process.stderr.write(`child ${process.pid}: still running after ${SAFETY_MS} ms, exiting\n`)
    process.exit(3)
  }, SAFETY_MS).unref()
}

export function send(tag: 'ready' | 'result', payload?: unknown): void {
  process.stdout.write(`@@${tag}${payload === undefined ? '' : ` ${JSON.stringify(payload)}`}\n`)
}

/** Resolve once the parent writes a line on stdin; then stop reading so the process can exit. */
export function waitForGo(): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      if (!buffered.includes('\n')) return
      process.stdin.off('data', onData)
      process.stdin.off('end', onEnd)
      process.stdin.pause()
      process.stdin.destroy()
      resolve()
    }
    const onEnd = () => reject(new Error('stdin closed before go'))
    process.stdin.on('data', onData)
    process.stdin.once('end', onEnd)
  })
}

export interface Booted {
  ctx: Context
  fiber: Fiber
}

/** Boot a root context with the file provider on `path` (no watcher), and run `apply` inside a plugin needing `settings`. */
export async function boot(path: string, lockTimeoutMs: number, apply: (ctx: Context) => void): Promise<Booted> {
  const root = new Context()
  const fiber = root.plugin(FileSettingsProvider, { path, watch: false, lockTimeoutMs })
  await fiber
  let ctx!: Context
  await root.inject(['settings'], (inner) => {
    ctx = inner
    apply(inner)
  })
  return { ctx, fiber }
}

export function fail(error: unknown): never {
  process.stderr.write(`child ${process.pid} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(2)
}
