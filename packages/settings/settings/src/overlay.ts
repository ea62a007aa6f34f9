import { dataEqual } from './equal.ts'
import { getSection, sectionId, type SectionKey } from './document.ts'
import type { SettingsDocument } from './types.ts'

/** A section a write pass read from the committed document: what the seam held, and at which revision. */
export interface SettingsSectionRead {
  readonly ns: string
  /** The named scope of the section; absent for a global section. */
  readonly scope?: string
  /** The raw section as the seam held it (`undefined`: not stored). Shared: never change it. */
  readonly section: unknown
  /** Its revision then: with store-owned revisions, the store version the seam last took. */
  readonly revision: number
}

/** One section as a write stores it, or as a store reports it changed. */
export interface SettingsSectionChange {
  readonly ns: string
  /** The named scope of the section; absent for a global section. */
  readonly scope?: string
  /** The raw section; `undefined` when the section is removed. Shared: never change it. */
  readonly section: unknown
  /** With store-owned revisions, in a published change: the store's version of the section now. */
  readonly version?: number
}

/**
 * One write pass's view of the document: the committed sections, with the
 * sections the pass derived on top. It notes every committed section the pass
 * reads (to derive a write, or to resolve a value the write feeds), so the
 * provider can store the pass only while the store still holds those.
 */
export class SectionOverlay {
  private readonly written = new Map<string, SectionKey & { section: unknown }>()
  private readonly taken = new Map<string, SettingsSectionRead>()

  constructor(
    private readonly committed: SettingsDocument,
    private readonly revision: (key: SectionKey) => number,
  ) {}

  /** A section as the pass sees it now (a `SectionSource`). */
  readonly read = (ns: string, scope?: string): unknown => {
    const id = sectionId(ns, scope)
    const own = this.written.get(id)
    if (own) return own.section
    const read = this.taken.get(id)
    if (read) return read.section
    const section = getSection(this.committed, ns, scope)
    const key = scope === undefined ? { ns } : { ns, scope }
    this.taken.set(id, { ...key, section, revision: this.revision(key) })
    return section
  }

  /** The view with `key` holding `section`, without keeping it: what a write would make of the document. */
  with(key: SectionKey, section: unknown): (ns: string, scope?: string) => unknown {
    const id = sectionId(key.ns, key.scope)
    return (ns, scope) => (sectionId(ns, scope) === id ? section : this.read(ns, scope))
  }

  /** Keep a derived section; a later write of the pass builds on it. */
  write(key: SectionKey, section: unknown): void {
    this.written.set(sectionId(key.ns, key.scope), { ...(key.scope === undefined ? { ns: key.ns } : { ns: key.ns, scope: key.scope }), section })
  }

  /** The committed sections the pass read, each once. */
  reads(): SettingsSectionRead[] {
    return [...this.taken.values()]
  }

  /** The sections the pass stores, in the order they were first written, each with its last content. */
  changes(): SettingsSectionChange[] {
    return [...this.written.values()]
  }
}

/**
 * Whether a store still holds every section a transaction read, judged by
 * content: `current` answers what the store holds now (`undefined` for a
 * section it does not hold). The very object the seam read counts as
 * unchanged at once; anything else is compared.
 */
export function readsHold(reads: readonly SettingsSectionRead[], current: (ns: string, scope?: string) => unknown): boolean {
  for (const read of reads) {
    const now = current(read.ns, read.scope)
    if (now !== read.section && !dataEqual(now, read.section)) return false
  }
  return true
}

/**
 * Whether a store with its own section versions still holds every section a
 * transaction read: `version` answers the store's version of a section now
 * (0 for one it never stored).
 */
export function readsHoldVersions(reads: readonly SettingsSectionRead[], version: (ns: string, scope?: string) => number): boolean {
  return reads.every((read) => version(read.ns, read.scope) === read.revision)
}
