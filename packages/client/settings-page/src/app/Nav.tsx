import { memo } from './memo.ts'
import { useEffect, useRef } from 'preact/hooks'
import { fieldId } from './format.ts'
import { m } from './i18n.ts'

/** One entry of the namespace list. */
export interface NavEntry {
  ns: string
  /** The plugin waits for setup: listed first, and marked. */
  setup: boolean
}

/** Scroll the list (and nothing else) so `item` is in its view, centred when it had to move. */
function keepInView(list: HTMLElement, item: HTMLElement): void {
  const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop
  const bottom = top + item.offsetHeight
  if (top >= list.scrollTop && bottom <= list.scrollTop + list.clientHeight) return
  list.scrollTop = Math.max(0, top - (list.clientHeight - item.offsetHeight) / 2)
}

/**
 * The namespace list: a scroll container of its own beside the forms (sticky,
 * the viewport's height), whose entry for the section at the top of the
 * viewport is marked `aria-current` and kept in the list's view. A click asks
 * `onJump` to show the section; the address (which keeps the search) is left alone.
 */
export const Nav = memo(function Nav({ entries, current, onJump }: { entries: readonly NavEntry[]; current: string | undefined; onJump(ns: string): void }) {
  const list = useRef<HTMLElement>(null)
  useEffect(() => {
    const nav = list.current
    const item = current === undefined ? null : nav?.querySelector<HTMLElement>(`[data-ns="${CSS.escape(current)}"]`)
    if (nav && item) keepInView(nav, item)
  }, [current, entries])
  const waiting = entries.length > 0 && entries[0]!.setup
  return (
    <nav class="toc" aria-label={m.namespaces} ref={list}>
      {waiting && <p class="toc-head">{m.needsSetupList}</p>}
      <ul>
        {entries.map(({ ns, setup }) => (
          <li key={ns} class={setup ? 'toc-setup' : undefined} data-ns={ns}>
            <a
              href={`#${fieldId(ns, [])}`}
              aria-current={ns === current ? 'location' : undefined}
              onClick={(event) => {
                event.preventDefault()
                onJump(ns)
              }}
            >
              {ns}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
})
