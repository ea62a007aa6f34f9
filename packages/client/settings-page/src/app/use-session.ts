import { useEffect, useState } from 'preact/hooks'
import type { SessionState, SettingsSession } from './session.ts'

/** The session's current state, re-rendering the component whenever it changes. */
export function useSession(session: SettingsSession): SessionState {
  const [state, setState] = useState(session.state)
  useEffect(() => {
    setState(session.state)
    return session.subscribe(() => setState(session.state))
  }, [session])
  return state
}
