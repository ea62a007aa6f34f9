/**
 * Which namespaces the page must read again after the event stream spoke:
 * every `settings/document-updated` event names its section
 * (`{ ns, revision, scope? }`), so the page reads only the namespaces named,
 * skips a revision it already holds (its own write's answer IS the new view),
 * and holds back the events of a section whose write is on its way until that
 * write answers. No DOM, no timers: the session decides when to read.
 */
import type { RemoteEvent } from 'dsh-remote/client'

/** What the page needs to know about the sections it shows, to judge an event. */
export interface ShownSections {
  /** The named scope shown; `undefined` for the global scope. */
  scope: string | undefined
  /** The newest revision the page holds of a namespace's section in the shown scope; `undefined` when it holds none. */
  revisionOf(ns: string): number | undefined
}

/** What the session reads next: nothing, some namespaces, or everything (an event it could not read). */
export type PendingReads = { kind: 'none' } | { kind: 'some'; names: string[] } | { kind: 'all' }

/** A `settings/document-updated` payload as the controller sends it. */
interface SectionEvent {
  ns: string
  revision: number
  scope?: string
}

function sectionEvent(data: unknown): SectionEvent | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const { ns, revision, scope } = data as Record<string, unknown>
  if (typeof ns !== 'string' || typeof revision !== 'number' || (scope !== undefined && typeof scope !== 'string')) return undefined
  return scope === undefined ? { ns, revision } : { ns, revision, scope }
}

/** Gathers what the events since the last read ask the page to read again. */
export class LiveRefresh {
  private readonly stale = new Set<string>()
  private everything = false
  /** Per namespace: writes on their way, and the newest revision events named meanwhile. */
  private readonly sending = new Map<string, { count: number; heard?: number }>()

  /**
   * Take one event from the stream.
   * @returns whether there is now something to read (schedule a read).
   */
  hear(event: RemoteEvent, shown: ShownSections): boolean {
    // Every commit that changes a value announces its section first with
    // `settings/document-updated` (same namespace, same or global scope), so
    // `settings/updated`, which carries no revision, adds nothing to read.
    if (event.event !== 'settings/document-updated') return false
    const named = sectionEvent(event.data)
    if (!named) {
      this.everything = true
      return true
    }
    if (named.scope !== undefined && named.scope !== shown.scope) return false
    // A global section feeds what a named scope inherits, so its change is always read.
    if (named.scope === shown.scope) {
      const writing = this.sending.get(named.ns)
      if (writing) {
        // Most likely this write's own event: judged against its answer.
        writing.heard = Math.max(writing.heard ?? named.revision, named.revision)
        return false
      }
      const held = shown.revisionOf(named.ns)
      if (held !== undefined && held >= named.revision) return false
    }
    this.stale.add(named.ns)
    return true
  }

  /** A write of `ns` in the shown scope leaves: its section's events wait for its answer. */
  sent(ns: string): void {
    const writing = this.sending.get(ns)
    if (writing) writing.count++
    else this.sending.set(ns, { count: 1 })
  }

  /**
   * A write of `ns` answered with its section at `revision`, or failed
   * (`undefined`): what the events heard meanwhile named beyond the answer is
   * read again.
   * @returns whether there is now something to read.
   */
  answered(ns: string, revision: number | undefined): boolean {
    const writing = this.sending.get(ns)
    if (!writing) return false
    writing.count--
    if (writing.count > 0) return false
    this.sending.delete(ns)
    if (writing.heard === undefined || (revision !== undefined && writing.heard <= revision)) return false
    this.stale.add(ns)
    return true
  }

  /** Ask for `ns` to be read again (a write's answer that may be older than a read). */
  mark(ns: string): void {
    this.stale.add(ns)
  }

  /** Ask for everything to be read again. */
  markAll(): void {
    this.everything = true
  }

  /**
   * What to read now, once; the gathered names are cleared. More names than
   * `limit` read everything, which costs the same as naming them.
   */
  take(limit: number): PendingReads {
    const names = [...this.stale]
    const everything = this.everything || names.length > limit
    this.stale.clear()
    this.everything = false
    if (everything) return { kind: 'all' }
    return names.length ? { kind: 'some', names } : { kind: 'none' }
  }

  /** Forget everything gathered and every write in flight (another scope, a new load). */
  reset(): void {
    this.stale.clear()
    this.everything = false
    this.sending.clear()
  }
}
