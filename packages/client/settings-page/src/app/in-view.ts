/**
 * Where the reader is among the sections: which one is at the top of the
 * viewport, for the namespace list to follow (the last section, in page
 * order, whose top edge is at or above the line just under the top), and
 * which ones lie within a margin of the viewport, to be rendered. Sections
 * are in page order, so their tops only grow and binary searches read about
 * thirty positions per frame however many sections there are: no observer
 * watches each of a thousand elements.
 */
import { useEffect, useState } from 'preact/hooks'

/** How far below the viewport's top edge a section's top may start and still count as "at the top", in px. */
export const TOP_LINE_PX = 8

/** How far above and below the viewport a section is rendered before it is scrolled into view, in px. */
export const NEAR_VIEWPORT_PX = 1000

/**
 * The index of the last item whose top is at or above `line`, or 0 when none
 * is (the first one is still below it); -1 for no items.
 * @param topOf - the top of item `index`, in viewport coordinates; non-decreasing in `index`.
 */
export function lastAtOrAbove(count: number, topOf: (index: number) => number, line: number): number {
  if (count === 0) return -1
  let low = 0
  let high = count - 1
  let found = 0
  while (low <= high) {
    const middle = (low + high) >> 1
    if (topOf(middle) <= line) {
      found = middle
      low = middle + 1
    } else high = middle - 1
  }
  return found
}

/**
 * The namespace of the section at the top of the viewport, followed while the
 * page scrolls or resizes, and while sections above change height as they
 * render (once per frame at most); each time, `onNear` hears the sections
 * within {@link NEAR_VIEWPORT_PX} of the viewport.
 * @param order - the shown namespaces, in page order.
 * @param elementOf - each shown namespace's element on the page.
 * @param container - the element holding the sections, watched for size changes.
 */
export function useSectionAtTop(
  order: readonly string[],
  elementOf: (ns: string) => Element | undefined,
  container: { current: Element | null },
  onNear: (names: readonly string[]) => void,
): string | undefined {
  const [current, setCurrent] = useState<string | undefined>(undefined)
  useEffect(() => {
    let frame = 0
    const measure = () => {
      frame = 0
      const topOf = (at: number) => elementOf(order[at]!)?.getBoundingClientRect().top ?? Number.POSITIVE_INFINITY
      const index = lastAtOrAbove(order.length, topOf, TOP_LINE_PX)
      setCurrent(index < 0 ? undefined : order[index])
      if (index < 0) return
      const first = lastAtOrAbove(order.length, topOf, -NEAR_VIEWPORT_PX)
      const last = lastAtOrAbove(order.length, topOf, window.innerHeight + NEAR_VIEWPORT_PX)
      onNear(order.slice(first, last + 1))
    }
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure)
    }
    schedule()
    window.addEventListener('scroll', schedule, { passive: true })
    window.addEventListener('resize', schedule, { passive: true })
    // A section rendering above the viewport moves the others without any scroll event.
    const resized = typeof ResizeObserver === 'function' ? new ResizeObserver(schedule) : undefined
    if (container.current) resized?.observe(container.current)
    return () => {
      cancelAnimationFrame(frame)
      resized?.disconnect()
      window.removeEventListener('scroll', schedule)
      window.removeEventListener('resize', schedule)
    }
  }, [order, elementOf, container, onNear])
  return current
}
