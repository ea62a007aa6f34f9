/**
 * What every torture child shares: one `tag rest` line per event on stdout,
 * a stop request on stdin, and a safety exit so no child outlives a run.
 */

/** Print one event line. Writes to a pipe are synchronous on Linux, so a line printed before a SIGKILL still reaches the parent. */
export function emit(tag: string, ...rest: (string | number)[]): void {
  process.stdout.write(rest.length ? `${tag} ${rest.join(' ')}\n` : `${tag}\n`)
}

/** Exit with code 3 once `ms` have passed, whatever happens; never keeps the process alive by itself. */
export function exitEventually(ms: number): void {
  setTimeout(() => {
    process.stderr.write(`torture child ${process.pid}: still running after ${ms} ms, exiting\n`)
    process.exit(3)
  }, ms).unref()
}

/**
 * Resolve when the parent writes `stop` or closes stdin (so a child whose
 * parent died stops too), and report it through `stopping()` meanwhile.
 */
export function stopSignal(): { stopping(): boolean; stopped: Promise<void> } {
  let stopping = false
  let buffered = ''
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true
      process.stdin.pause()
      resolve()
    }
    process.stdin.setEncoding('utf8')
    process.stdin.on('data', (chunk: string) => {
      buffered += chunk
      if (buffered.includes('stop\n')) stop()
    })
    process.stdin.once('end', stop)
    process.stdin.once('error', stop)
  })
  return { stopping: () => stopping, stopped }
}

/** A child's fatal error: printed on stderr, exit code 2. */
export function fail(error: unknown): never {
  process.stderr.write(`torture child ${process.pid} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(2)
}

/** The stable code of an error (`SETTINGS_LOCK_TIMEOUT`, `ENOSPC`, …), looking through `cause`. */
export function errorCode(error: unknown): string {
  for (let current: any = error, depth = 0; current && depth < 4; current = current.cause, depth++) {
    if (typeof current.code === 'string') return current.code
  }
  return error instanceof Error ? error.name : 'UNKNOWN'
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A random integer in [min, max]. */
export const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
