/**
 * Keeps `<home>/settings-catalog.json` in step with the registered kinds
 * (see `catalog.ts` for what it holds), for a host that names its deployment
 * (one `dsh-loader` started: a command trusts a catalog only for the
 * deployment it was asked about, so one without a name is never written). Arrivals are gathered for
 * {@link CatalogWriterOptions.delayMs} (a deployment registers its plugins in
 * a burst: one write); an instance that leaves stays for
 * {@link CatalogWriterOptions.leaveGraceMs} while the host keeps running, so a
 * host that stops (disposing every plugin) leaves the catalog as it ran. The
 * file is written only when its content changed, through an exclusive 0600
 * temp file that is synced and renamed into place, owned as the remote's
 * token is when run as root.
 */
import { open, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'cordis'
import type { SettingsProvider } from 'dsh-settings'
import { makeHome, ownerFor, writeTemp } from 'dsh-remote'
import { catalogContent, catalogKinds, catalogText, deploymentFacts } from './catalog.ts'
import { CATALOG_FILE, readCatalog, type CatalogInstance, type CatalogKind } from './catalog-format.ts'

/** Defaults of {@link CatalogWriterOptions}. */
export const CATALOG_DELAY_MS = 200
export const CATALOG_LEAVE_GRACE_MS = 10_000

/** What a {@link CatalogWriter} reads and where it writes. */
export interface CatalogWriterOptions {
  home: string
  /** The settings service now, if one serves. */
  settings(): SettingsProvider | undefined
  /** The root context's `deployment` property (`dsh-loader`'s facts), read by shape. */
  deployment(): unknown
  logger: Logger
  /** How long changes are gathered before a write. */
  delayMs?: number
  /** How long an instance that left stays in the catalog while the host runs. */
  leaveGraceMs?: number
}

/** The key of one instance: namespace and scope. */
const keyOf = (ns: string, scope: string | undefined) => `${ns}\u0000${scope ?? ''}`

/** `kinds` with the instances of `kept` (and their kinds, when gone) put back where the live ones lack them. */
function withKept(kinds: CatalogKind[], kept: CatalogKind[], keys: ReadonlySet<string>): CatalogKind[] {
  if (!keys.size) return kinds
  const merged = new Map(kinds.map((kind) => [kind.ns, { ...kind, instances: [...kind.instances] }]))
  for (const old of kept) {
    const back = old.instances.filter((instance: CatalogInstance) => keys.has(keyOf(old.ns, instance.scope)))
    if (!back.length) continue
    const kind = merged.get(old.ns) ?? { ...old, instances: [] }
    for (const instance of back) if (!kind.instances.some((live) => live.scope === instance.scope)) kind.instances.push(instance)
    merged.set(old.ns, kind)
  }
  return [...merged.values()]
}

/** The catalog writer of one controller; {@link close} it with the controller's fiber. */
export class CatalogWriter {
  readonly path: string
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly leaving = new Map<string, ReturnType<typeof setTimeout>>()
  private chain: Promise<void> = Promise.resolve()
  /** The content last written (or found on disk), and the kinds it held. */
  private written: { content: string; kinds: CatalogKind[] } | undefined
  private closed = false
  private readonly delayMs: number
  private readonly leaveGraceMs: number

  constructor(private readonly options: CatalogWriterOptions) {
    this.path = join(options.home, CATALOG_FILE)
    this.delayMs = options.delayMs ?? CATALOG_DELAY_MS
    this.leaveGraceMs = options.leaveGraceMs ?? CATALOG_LEAVE_GRACE_MS
  }

  /** An instance was registered: written with the others of its burst. */
  registered(ns: string, scope?: string): void {
    const key = keyOf(ns, scope)
    clearTimeout(this.leaving.get(key))
    this.leaving.delete(key)
    this.schedule()
  }

  /** An instance went away: written once it has been gone for the grace, if the host still runs. */
  unregistered(ns: string, scope?: string): void {
    if (this.closed) return
    const key = keyOf(ns, scope)
    clearTimeout(this.leaving.get(key))
    const timer = setTimeout(() => {
      this.leaving.delete(key)
      this.schedule()
    }, this.leaveGraceMs)
    timer.unref?.()
    this.leaving.set(key, timer)
  }

  /** Write once the current burst is over. */
  schedule(): void {
    if (this.closed) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.flush(), this.delayMs)
    this.timer.unref?.()
  }

  /** Write now what the registered kinds say (nothing when it says what the file says), after any write under way. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    this.chain = this.chain.then(() => this.write()).catch((error: unknown) => {
      // The message of a file system error names the path and the call, never the catalog's content.
      this.options.logger.warn(`settings catalog: writing ${this.path} failed:`, error)
    })
    return this.chain
  }

  private async write(): Promise<void> {
    if (this.closed) return
    const settings = this.options.settings()
    // A host no loader started names no deployment, and a command uses a catalog only for the deployment it names.
    const deployment = deploymentFacts(this.options.deployment())
    if (!settings || !deployment) return
    if (!this.written) {
      const found = readCatalog(this.options.home)
      if ('catalog' in found) this.written = { content: catalogContent(found.catalog.kinds, found.catalog.deployment), kinds: found.catalog.kinds }
    }
    const kinds = withKept(catalogKinds(settings), this.written?.kinds ?? [], new Set(this.leaving.keys()))
    const content = catalogContent(kinds, deployment)
    if (content === this.written?.content) return
    await this.replace(catalogText(kinds, deployment, new Date()))
    this.written = { content, kinds }
  }

  /** Put `text` in place whole: an exclusive 0600 temp, synced, renamed over the catalog, then the folder synced. */
  private async replace(text: string): Promise<void> {
    const { home } = this.options
    const owner = await ownerFor(home)
    await makeHome(home, owner)
    const temp = await writeTemp(this.path, text, owner)
    try {
      await rename(temp, this.path)
    } catch (error) {
      await unlink(temp).catch(() => {})
      throw error
    }
    const folder = await open(home, 'r').catch(() => undefined)
    await folder?.sync().catch(() => {})
    await folder?.close()
  }

  /**
   * Stop: arrivals still gathering are written now (instances that left meanwhile kept, as the host is
   * stopping), then nothing more; instances that left stay in the file.
   */
  async close(): Promise<void> {
    if (this.timer && !this.closed) await this.flush()
    this.closed = true
    clearTimeout(this.timer)
    for (const timer of this.leaving.values()) clearTimeout(timer)
    this.leaving.clear()
    await this.chain
  }
}
