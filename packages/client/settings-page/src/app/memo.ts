/**
 * A component that renders again only when one of its props changed identity.
 * Not `preact/compat`'s `memo`: importing compat switches the whole page to
 * React's event names (`onChange` on an input becomes `onInput`), which breaks
 * controls that commit on the native `change` event, a slider among them.
 */
import { createElement, type FunctionComponent } from 'preact'

/** Whether any prop of `next` differs (by identity) from `previous`, or a prop was added or removed. */
export function propsDiffer(previous: Record<string, unknown>, next: Record<string, unknown>): boolean {
  for (const key in previous) if (key !== 'children' && !(key in next)) return true
  for (const key in next) if (key !== 'children' && previous[key] !== next[key]) return true
  return previous.children !== next.children
}

/** `render` wrapped so it re-renders only when its props differ (see {@link propsDiffer}); its own state still re-renders it. */
export function memo<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
  function Memo(this: { props: P; shouldComponentUpdate?: (next: P) => boolean }, props: P) {
    this.shouldComponentUpdate = (next: P) => propsDiffer(this.props as Record<string, unknown>, next as Record<string, unknown>)
    return createElement(render, props)
  }
  Memo.displayName = `Memo(${render.displayName ?? render.name})`
  return Memo as FunctionComponent<P>
}
