import { useEffect, useState } from 'preact/hooks'
import type { SessionState, SettingsSession } from './session.ts'

/** Anything with a replaced-on-change `state` and a `subscribe`: the session, the history view. */
export interface Store<T> {
  readonly state: T
  subscribe(listener: () => void): () => void
}

/** A store's current state, re-rendering the component whenever it changes. */
export function useStore<T>(store: Store<T>): T {
  const [state, setState] = useState(store.state)
  useEffect(() => {
    setState(store.state)
    return store.subscribe(() => setState(store.state))
  }, [store])
  return state
}

/** The session's current state, re-rendering the component whenever it changes. */
export function useSession(session: SettingsSession): SessionState {
  return useStore(session)
}
