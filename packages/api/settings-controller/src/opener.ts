import { spawn } from 'node:child_process'
import { cancelled, unavailable } from './errors.ts'

/** How long an aborted opener gets to exit on SIGTERM before it is killed outright. */
const KILL_GRACE_MS = 2000

/**
 * Hand `target` to the native opener and wait for the opener to exit.
 *
 * The command runs without a shell (the path is one argument, never parsed as
 * shell text). On POSIX it leads its own process group so an abort can stop
 * whatever it started before it exits, not just the first process.
 * @param command - the opener and its leading arguments; `target` is appended.
 * @param target - an absolute path chosen by the host, never by a caller.
 * @param signal - aborting it kills the opener and rejects as cancelled.
 * @param what - how messages name the operation.
 * @throws {RemoteError} `settings/unavailable` when the opener cannot start or
 *   exits unsuccessfully (its status is in the message), `cancelled` on abort.
 */
export function runOpener(command: readonly string[], target: string, signal: AbortSignal | undefined, what: string): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelled(what, signal))
  const [file, ...leading] = command as [string, ...string[]]
  const posix = process.platform !== 'win32'
  return new Promise<void>((resolve, reject) => {
    let settled = false
    let aborted = false
    let escalation: NodeJS.Timeout | undefined
    const child = spawn(file, [...leading, target], { stdio: 'ignore', shell: false, detached: posix, windowsHide: true })
    const kill = (name: NodeJS.Signals) => {
      try {
        if (posix && child.pid !== undefined) process.kill(-child.pid, name)
        else child.kill(name)
      } catch {
        // Already gone: nothing left to stop.
      }
    }
    const onAbort = () => {
      aborted = true
      kill('SIGTERM')
      escalation = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS)
    }
    const finish = (error?: unknown) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      if (escalation) clearTimeout(escalation)
      if (error === undefined) resolve()
      else reject(error)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (aborted) return finish(cancelled(what, signal))
      finish(unavailable(`${what}: the native opener ${JSON.stringify(file)} could not start (${error.code ?? 'error'})`, { opener: file }))
    })
    child.once('exit', (code, exitSignal) => {
      if (aborted) {
        // Make sure nothing the opener started outlives the abort, then report it.
        kill('SIGKILL')
        return finish(cancelled(what, signal))
      }
      if (code === 0) return finish()
      if (code !== null) return finish(unavailable(`${what}: the native opener ${JSON.stringify(file)} exited with status ${code}`, { opener: file, status: code }))
      finish(unavailable(`${what}: the native opener ${JSON.stringify(file)} was stopped by ${exitSignal}`, { opener: file, signal: exitSignal }))
    })
  })
}
