import type { Context } from 'cordis'
import { getSection, putSection, readsHold, SettingsProvider, type SettingsDocument, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'

/**
 * Where a transaction can be held: before it reads (`gate`), before it stores
 * (`persist`), after it stored and before it answers (`leave`); and `close`,
 * the provider's own teardown, which the seam calls once it has stopped.
 */
export type GatePoint = 'gate' | 'persist' | 'leave' | 'close'

/**
 * A test provider whose storage the test controls: it can hold transactions at
 * a gate, fail the next persist, change the stored document without telling
 * the seam (a missed watcher event, another process), and count persists.
 */
export class ControlledProvider extends SettingsProvider {
  stored: SettingsDocument
  persistCount = 0
  /** How many transactions reached the store (a group derived again after the store moved counts again). */
  applyCount = 0
  /** Whether `stored` changed behind the seam's back since the provider last told it. */
  private unseen = false
  /** When set, a transaction waits for it before reading the document. */
  gate: Promise<void> | undefined
  /** When set, a transaction waits for it after checking its reads and before storing its changes. */
  persistGate: Promise<void> | undefined
  /** When set, a transaction waits for it after storing and before it answers (a lock being released, say). */
  leaveGate: Promise<void> | undefined
  /** When set, the next store throws it (after the reads were checked). */
  failNextPersist: Error | undefined
  /** Called with every document the provider is asked to persist. */
  persisted: SettingsDocument[] = []
  private chain: Promise<void> = Promise.resolve()
  private readonly arrivals = new Map<GatePoint, { count: number; waiters: { nth: number; resolve(): void }[] }>()

  /**
   * Resolves once the `nth` transaction (counting from the provider's start)
   * has arrived at `point`, whether or not a gate is set there: a test's fence
   * for "the write is now held at the gate".
   */
  reached(point: GatePoint, nth = 1): Promise<void> {
    const arrivals = this.arrivalsAt(point)
    if (arrivals.count >= nth) return Promise.resolve()
    return new Promise((resolve) => arrivals.waiters.push({ nth, resolve }))
  }

  private arrivalsAt(point: GatePoint) {
    let arrivals = this.arrivals.get(point)
    if (!arrivals) this.arrivals.set(point, (arrivals = { count: 0, waiters: [] }))
    return arrivals
  }

  private arrive(point: GatePoint): void {
    const arrivals = this.arrivalsAt(point)
    arrivals.count++
    for (const waiter of arrivals.waiters.filter((waiter) => waiter.nth <= arrivals.count)) waiter.resolve()
    arrivals.waiters = arrivals.waiters.filter((waiter) => waiter.nth > arrivals.count)
  }

  constructor(ctx: Context, config: { document?: SettingsDocument; writable?: boolean; documentPath?: string } = {}) {
    super(ctx)
    this.stored = structuredClone(config.document ?? {})
    this.canWrite = config.writable ?? true
    this.path = config.documentPath
  }

  private readonly canWrite: boolean
  private readonly path: string | undefined

  override get writable(): boolean {
    return this.canWrite
  }

  override get documentPath(): string | undefined {
    return this.path
  }

  protected load(): SettingsDocument {
    return structuredClone(this.stored)
  }

  protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    const run = this.chain.then(async (): Promise<SettingsStoreResult> => {
      this.arrive('gate')
      if (this.gate) await this.gate
      this.applyCount++
      // What changed behind the seam's back is told first, as a store's watcher would.
      if (this.unseen) {
        this.unseen = false
        this.publish(structuredClone(this.stored))
      }
      if (!readsHold(transaction.reads, (ns, scope) => getSection(this.stored, ns, scope))) return { moved: true }
      this.arrive('persist')
      if (this.persistGate) await this.persistGate
      if (this.failNextPersist) {
        const error = this.failNextPersist
        this.failNextPersist = undefined
        throw error
      }
      const next = structuredClone(this.stored)
      for (const change of transaction.changes) putSection(next, change, structuredClone(change.section))
      this.stored = next
      this.persisted.push(structuredClone(next))
      this.persistCount++
      this.arrive('leave')
      if (this.leaveGate) await this.leaveGate
    })
    this.chain = run.then(
      () => {},
      () => {},
    )
    return run
  }

  protected override async close(): Promise<void> {
    this.arrive('close')
  }

  /** Change storage behind the seam's back. */
  silentlyStore(document: SettingsDocument): void {
    this.stored = structuredClone(document)
    this.unseen = true
  }

  /** Store and publish an outside edit, as a watcher would. */
  externalEdit(document: SettingsDocument): void {
    this.stored = structuredClone(document)
    this.unseen = false
    this.publish(structuredClone(document))
  }
}
