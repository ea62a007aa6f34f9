import { memo } from './memo.ts'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import type { FormMatch } from '../model/index.ts'
import { formBuilt } from './lazy-section.ts'
import { MountQueue } from './mount-queue.ts'
import { Section } from './Section.tsx'
import type { SectionState, SettingsSession } from './session.ts'

/** Sections mounted with the first render: about a screenful, so the page is usable at once. */
export const EAGER_SECTIONS = 6

/**
 * Up to this many namespaces every section is mounted with the first render,
 * as a typical deployment's page always was (the corpus of 36 published
 * Configs renders its 1,117 fields in well under a second).
 */
export const EAGER_ALL_UP_TO = 50

/**
 * Up to this many namespaces every section is also mounted in the background,
 * so the whole page is in the document soon (find in page, headings for a
 * screen reader). Beyond it a section mounts when it nears the viewport or is
 * jumped to: mounting a thousand forms would cost seconds of main thread and
 * hundreds of megabytes for sections nobody looks at.
 */
export const BACKGROUND_MOUNT_LIMIT = 100

/** A section re-renders only when its own state, the search result for it, or writability changes. */
const MemoSection = memo(Section)

/**
 * The page's section slots: each one's element (for the namespace list to
 * follow and to find the ones near the viewport), how to mount each
 * placeholder, and the queue that mounts the rest in the background.
 */
export class SectionSlots {
  readonly queue = new MountQueue()
  private readonly elements = new Map<string, HTMLElement>()
  private readonly mounters = new Map<string, () => void>()

  /** The slot element of a namespace, while it is on the page. */
  readonly elementOf = (ns: string): HTMLElement | undefined => this.elements.get(ns)

  /** Mount `ns`'s section now (to jump to it); nothing when it is mounted already. */
  mountNow(ns: string): void {
    this.mounters.get(ns)?.()
  }

  /** Mount the sections near the viewport that are still placeholders. */
  readonly mountNear = (names: readonly string[]): void => {
    for (const ns of names) this.mounters.get(ns)?.()
  }

  /** Track a slot until `release` is called; `mount` mounts its section. */
  track(ns: string, element: HTMLElement, mount?: () => void): () => void {
    this.elements.set(ns, element)
    if (mount) this.mounters.set(ns, mount)
    return () => {
      if (this.elements.get(ns) === element) this.elements.delete(ns)
      if (mount && this.mounters.get(ns) === mount) this.mounters.delete(ns)
    }
  }

  /** Stop mounting (the forms went away). */
  close(): void {
    this.queue.clear()
  }
}

/** A section's height before it is rendered, from how many top-level settings it has: the scrollbar stays about right. */
function estimatedHeight(view: SettingsNamespaceView): number {
  const value = view.value
  const fields = typeof value === 'object' && value !== null ? Object.keys(value).length : 1
  return 120 + 80 * Math.min(fields, 40)
}

/** What one slot renders. */
interface SlotProps {
  session: SettingsSession
  section: SectionState
  view: SettingsNamespaceView
  writable: boolean
  match: FormMatch | undefined
  /** The search hides it: it stays mounted (and keeps any draft), out of sight and of the accessibility tree. */
  hidden: boolean
  eager: boolean
  /** Mount it in the background when its turn comes, not only when it nears the viewport. */
  background: boolean
  slots: SectionSlots
}

/**
 * One namespace's place on the page: a placeholder of about its height until
 * its turn comes (or it nears the viewport), then the section. Off-screen
 * sections skip layout and paint (`content-visibility: auto`).
 */
const SectionSlot = memo(function SectionSlot({ session, section, view, writable, match, hidden, eager, background, slots }: SlotProps) {
  const [mounted, setMounted] = useState(eager)
  const element = useRef<HTMLDivElement>(null)
  // While hidden, the section keeps what the search last showed of it, so hiding costs it no render.
  const lastMatch = useRef(match)
  if (!hidden) lastMatch.current = match
  useEffect(() => {
    const mount = mounted ? undefined : () => setMounted(true)
    const release = slots.track(view.ns, element.current!, mount)
    const dequeue = mount && background ? slots.queue.add(mount) : undefined
    return () => {
      release()
      dequeue?.()
    }
  }, [mounted, background, slots, view.ns])
  const height = estimatedHeight(view)
  return (
    <div ref={element} class={mounted ? 'section-slot section-slot-mounted' : 'section-slot'} data-ns={view.ns} hidden={hidden} style={mounted ? { containIntrinsicSize: `auto ${height}px` } : { minHeight: `${height}px` }}>
      {mounted && <MemoSection session={session} section={section} writable={writable} match={lastMatch.current} />}
    </div>
  )
})

/**
 * Build the forms nobody has rendered yet in the background, a few per task,
 * so the first search over a thousand namespaces finds them ready instead of
 * building them all on the first keystroke.
 */
export function useWarmForms(sections: readonly SectionState[], slots: SectionSlots): void {
  useEffect(() => {
    const cancels = sections.filter((section) => !formBuilt(section)).map((section) => slots.queue.add(() => void section.form))
    return () => cancels.forEach((cancel) => cancel())
  }, [sections, slots])
}

/** One entry of the list: the section, the search's result for it, and whether the search shows it. */
export interface ListedSection {
  section: SectionState
  view: SettingsNamespaceView
  match: FormMatch | undefined
  shown: boolean
}

/** Every namespace's slot, in page order; the first few mounted at once, the rest as they near the viewport (and, on a page of few, in the background). */
export function SectionList({ session, listed, writable, slots, scope }: { session: SettingsSession; listed: readonly ListedSection[]; writable: boolean; slots: SectionSlots; scope: string | undefined }) {
  return (
    <>
      {listed.map(({ section, view, match, shown }, index) => (
        <SectionSlot
          key={`${scope ?? ''}\0${view.ns}`}
          session={session}
          section={section}
          view={view}
          writable={writable}
          match={match}
          hidden={!shown}
          eager={listed.length <= EAGER_ALL_UP_TO || index < EAGER_SECTIONS}
          background={listed.length <= BACKGROUND_MOUNT_LIMIT}
          slots={slots}
        />
      ))}
    </>
  )
}
