import type { DocumentHistory, JournalNote } from './history.ts'

/**
 * How long an answered write's note (who wrote the text, in the history
 * journal) waits for more writes to gather: a burst then costs one journal
 * append, not one per write.
 */
export const NOTES_AFTER_MS = 50

/**
 * Notes who wrote each stored text in the history journal once the write has
 * been answered, gathered: one append for a burst of writes. A note changes no
 * document and is safe beside another writer's without the lock (an append
 * adds whole lines); only trimming the journal takes the lock. A journal that
 * cannot be written (a full disk) costs only its records: warned, never thrown.
 * Owns its timer: dispose it with the host (a cordis effect).
 */
export class JournalNotes {
  private gathered: JournalNote[] = []
  /** The last gathering's work, which {@link flush} waits for. */
  private done: Promise<void> = Promise.resolve()
  /** The pause before the gathered notes are written, and what ends it early: set while notes are due. */
  private timer: ReturnType<typeof setTimeout> | undefined
  private now: (() => void) | undefined

  constructor(
    private readonly history: DocumentHistory,
    private readonly options: {
      /** Run `trim` holding the document's lock, after every write queued before it. */
      locked(trim: () => Promise<void>): Promise<void>
      warn(message: string, error: unknown): void
    },
  ) {}

  /** Note `note` after {@link NOTES_AFTER_MS}, with whatever else gathers meanwhile. */
  add(note: JournalNote): void {
    this.gathered.push(note)
    // Due already: the gathering to come takes this too.
    if (this.now) return
    const pause = new Promise<void>((resolve) => {
      this.now = resolve
      this.timer = setTimeout(resolve, NOTES_AFTER_MS)
    })
    this.done = this.done
      .then(() => pause)
      .then(() => this.write())
      .catch((error: unknown) => this.options.warn('noting who wrote the document failed:', error))
  }

  /** Write what has gathered now, without the pause; resolves once every note so far is written. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.now?.()
    return this.done
  }

  /** The gathered notes, in one append; the journal trimmed under the lock once past its bound. */
  private async write(): Promise<void> {
    clearTimeout(this.timer)
    this.now = undefined
    const notes = this.gathered.splice(0)
    let overBound = false
    try {
      if (notes.length) overBound = this.history.noteAll(notes)
    } catch (error) {
      this.options.warn('recording who wrote it failed:', error)
    }
    if (!overBound) return
    try {
      await this.options.locked(() => this.history.trimJournal())
    } catch (error) {
      this.options.warn('trimming the history journal failed:', error)
    }
  }
}
