import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

/** A host running in a child process (children/host.ts), driven by requests. */
export interface ChildHost {
  child: ChildProcess
  /** Every watcher call the child reported, in order. */
  watched: { watch: string; value: Record<string, number> }[]
  request(op: 'get' | 'update', ns: string, patch?: Record<string, unknown>, revision?: number): Promise<{ ok: boolean; value?: Record<string, unknown>; revision?: number; code?: string; message?: string }>
  /** Close its stdin and wait for it to exit (it disposes its provider first). */
  end(): Promise<void>
}

/**
 * Start a child host on `url`/`table`; resolves once its provider is up.
 * `script` is the child under `children/` (default `host.ts`); `env` is added to its environment.
 */
export function spawnHost(url: string, table: string, options: { script?: string; env?: Record<string, string> } = {}): Promise<ChildHost> {
  const script = fileURLToPath(new URL(`./children/${options.script ?? 'host.ts'}`, import.meta.url))
  const env = { ...process.env, ...options.env }
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script, url, table], { stdio: ['pipe', 'pipe', 'inherit'], env })
  const waiting = new Map<number, (answer: any) => void>()
  const watched: ChildHost['watched'] = []
  let next = 0
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`child host exited early (${code})`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line)
      if (message.ready) {
        resolve({
          child,
          watched,
          request: (op, ns, patch, revision) =>
            new Promise((answer) => {
              const id = ++next
              waiting.set(id, answer)
              child.stdin!.write(`${JSON.stringify({ id, op, ns, patch, revision })}\n`)
            }),
          end: async () => {
            if (child.exitCode === null && child.signalCode === null) child.stdin!.end()
            await exited
          },
        })
      } else if (message.watch) watched.push(message)
      else waiting.get(message.id)?.(message)
    })
  })
}
