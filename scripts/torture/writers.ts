/**
 * The writer processes of the kill storm and the hand edits: a pool of
 * children/writer.ts slots that tracks every acknowledged value per key,
 * SIGKILLs a random running writer on request, and restarts writers that died
 * while the pool runs.
 */
import { CHILD_SAFETY_MS, spawnChild, type Child } from './harness.ts'

/** How the pool's writers are started. */
export interface PoolOptions {
  file: string
  writers: number
  /** Keys per writer in its own namespace (it owns one more in `shared`). */
  keys: number
  lockTimeoutMs: number
  /** Longest random pause between a writer's writes (0: back to back). */
  pauseMs: number
}

interface Slot {
  index: number
  child: Child
  ready: boolean
  /** Set when the pool killed it, so its death is not taken for a crash. */
  killed: boolean
}

/** A pool of writer processes; see the module comment. */
export class WriterPool {
  /** The highest acknowledged value per key (`ns/key`). */
  readonly maxAcked = new Map<string, number>()
  /** Every acknowledged value per key, in the order acknowledged. */
  readonly ackedValues = new Map<string, number[]>()
  acks = 0
  kills = 0
  restarts = 0
  /** Kills of a writer that had not started writing yet. */
  killsDuringStartUp = 0
  /** Writes that failed with SETTINGS_LOCK_TIMEOUT. */
  stuck = 0
  /** Failed writes by error code. */
  readonly failures: Record<string, number> = {}
  /** A (re)started writer found a key below a value acknowledged before it started. */
  startRegressions = 0
  /** Writers that died without being killed or stopped. */
  crashes = 0
  /** Messages that help reproduce a finding (bounded). */
  readonly notes: string[] = []
  private readonly slots: Slot[] = []
  private running = false

  constructor(private readonly options: PoolOptions) {}

  /** Start every writer; they restart when they die until {@link stop}. */
  start(): void {
    this.running = true
    for (let index = 0; index < this.options.writers; index++) this.slots.push(this.spawn(index))
  }

  /** Every key the pool's writers own, as `ns/key`. */
  keyIds(): string[] {
    const ids: string[] = []
    for (let index = 0; index < this.options.writers; index++) {
      for (let key = 0; key < this.options.keys; key++) ids.push(`w-${index}/k${key}`)
      ids.push(`shared/w${index}`)
    }
    return ids
  }

  /** Whether every key has been acknowledged at least once (every namespace exists in the document). */
  allWritten(): boolean {
    return this.keyIds().every((id) => this.maxAcked.has(id))
  }

  /** Whether every writer is writing. */
  allReady(): boolean {
    return this.slots.length === this.options.writers && this.slots.every((slot) => slot.ready && slot.child.alive())
  }

  /**
   * SIGKILL one random live writer, whether it is writing or still starting up
   * (a kill while it loads the document is as fair as one mid-write); false when none is alive.
   */
  killRandom(): boolean {
    const alive = this.slots.filter((slot) => slot.child.alive() && !slot.killed)
    const slot = alive[Math.floor(Math.random() * alive.length)]
    if (!slot) return false
    slot.killed = true
    if (!slot.child.kill()) return false
    this.kills++
    if (!slot.ready) this.killsDuringStartUp++
    return true
  }

  /** Stop restarting, then end every writer: SIGKILL (`kill`) or a graceful `stop`; resolves once all are gone. */
  async stop(how: 'kill' | 'stop'): Promise<void> {
    this.running = false
    for (const slot of this.slots) {
      slot.killed = true
      if (how === 'kill') slot.child.kill()
      else slot.child.send('stop')
    }
    await Promise.all(this.slots.map((slot) => slot.child.closed))
  }

  private note(text: string): void {
    if (this.notes.length < 20) this.notes.push(text)
  }

  private spawn(index: number): Slot {
    const { file, keys, lockTimeoutMs, pauseMs } = this.options
    const args = [file, String(index), String(keys), String(lockTimeoutMs), String(pauseMs), String(CHILD_SAFETY_MS)]
    const slot: Slot = { index, ready: false, killed: false, child: undefined! }
    slot.child = spawnChild('writer', args, (line) => this.onLine(slot, line))
    void slot.child.closed.then(({ code, signal }) => {
      if (!slot.killed && !(code === 0 && !this.running)) {
        this.crashes++
        this.note(`writer w-${index} (pid ${slot.child.pid}) exited (code ${code}, signal ${signal}): ${slot.child.stderr().trim().split('\n').slice(-3).join(' / ')}`)
      }
      // A writer that keeps crashing is not restarted forever: the crashes already fail the row.
      if (this.running && this.crashes < 20) {
        this.restarts++
        this.slots[this.slots.indexOf(slot)] = this.spawn(index)
      }
    })
    return slot
  }

  private onLine(slot: Slot, line: string): void {
    const [tag, first, second] = line.split(' ', 3)
    if (tag === 'ack') {
      this.acks++
      const value = Number(second)
      if (value > (this.maxAcked.get(first!) ?? 0)) this.maxAcked.set(first!, value)
      const values = this.ackedValues.get(first!) ?? []
      values.push(value)
      this.ackedValues.set(first!, values)
    } else if (tag === 'start') {
      // Every earlier writer of this key is dead, and all its acks were read (restarts wait for 'close').
      const acked = this.maxAcked.get(first!) ?? 0
      if (Number(second) < acked) {
        this.startRegressions++
        this.note(`writer w-${slot.index} restarted and found ${first} = ${second}, below the acknowledged ${acked}`)
      }
    } else if (tag === 'ready') {
      slot.ready = true
    } else if (tag === 'fail') {
      this.failures[first!] = (this.failures[first!] ?? 0) + 1
      if (first === 'SETTINGS_LOCK_TIMEOUT') this.stuck++
      this.note(`writer w-${slot.index}: ${first} ${line.slice(tag.length + first!.length + 2)}`)
    }
  }
}
