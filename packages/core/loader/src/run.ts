import { watch } from 'chokidar'
import { Context, Logger } from 'cordis'
import { readFile, realpath } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { deploymentFacts, provideFacts } from './facts.ts'
import { DeploymentLoader } from './loader.ts'
import { formatLogValue } from './log-format.ts'
import { planDeployment } from './plan.ts'
import { waitingAsInfo } from './waiting.ts'

/** A running deployment. */
export interface Deployment {
  root: Context
  /** Re-read the file and re-plug what changed (what the file watcher does). */
  reload(): Promise<void>
  /** Stop watching and dispose every plugin. */
  stop(): Promise<void>
}

/** Options of {@link runDeployment}. */
export interface RunOptions {
  /** Re-plug changed entries when the file changes. Defaults to `true`. */
  watch?: boolean
  /** Settle window for file events. */
  debounceMs?: number
  /** Where log lines go; defaults to the console. */
  write?: (line: string) => void
}

/**
 * Run the deployment a `cordis.yml` describes: plug its entries in order into
 * a fresh root context that logs to the console, and, while running, re-plug
 * the entries whose config changes. The first load must succeed; a later
 * edit that does not parse is reported and the running plugins stay.
 * @throws the first load's error.
 */
export async function runDeployment(file: string, options: RunOptions = {}): Promise<Deployment> {
  const path = resolve(file)
  const root = new Context()
  const write = options.write ?? ((line: string) => console.log(line))
  const exporter = {
    colors: false as const,
    formatters: { o: formatLogValue, O: formatLogValue },
    export: (record: Parameters<typeof Logger.format>[1]) => {
      const message = waitingAsInfo(record)
      write(`[${message.type[0]!.toUpperCase()}] ${message.name} ${Logger.format(exporter, message)}`)
    },
  }
  root.logger.exporter(exporter)
  const logger = root.logger('loader')
  const loader = new DeploymentLoader(root, { baseDir: dirname(path) })
  const real = await realpath(path)
  let chain = Promise.resolve()
  const load = async () => {
    const entries = planDeployment(await readFile(path, 'utf8'))
    // Before any entry is plugged, so a remote server or controller starting now reads what this file is.
    provideFacts(root, deploymentFacts(real, entries, dirname(path)))
    await loader.apply(entries)
  }
  await load()
  let stopped = false
  const reload = () =>
    (chain = chain.then(() => (stopped ? undefined : load())).catch((error: unknown) => logger.warn(`${path}: ${(error as Error).message}; keeping the running plugins`)))

  let timer: ReturnType<typeof setTimeout> | undefined
  const watcher = options.watch === false ? undefined : watch(path, { ignoreInitial: true })
  watcher?.on('all', () => {
    clearTimeout(timer)
    timer = setTimeout(() => void reload(), options.debounceMs ?? 100)
  })
  if (watcher) await new Promise<void>((ready) => watcher.once('ready', () => ready()))

  let stopping: Promise<void> | undefined
  return {
    root,
    reload,
    stop: () =>
      (stopping ??= (async () => {
        stopped = true
        clearTimeout(timer)
        await watcher?.close()
        await chain
        await loader.dispose()
      })()),
  }
}
