import { useState } from 'preact/hooks'
import type { SettingsSession } from './session.ts'
import { m } from './i18n.ts'

const GLOBAL = ''

/** Picks the scope the forms show, and opens a named scope by id (also one nothing is registered under yet). */
export function ScopeBar({ session, scope, scopes }: { session: SettingsSession; scope: string | undefined; scopes: string[] }) {
  const [draft, setDraft] = useState('')
  const [problem, setProblem] = useState<string | undefined>()

  const open = async (event: Event) => {
    event.preventDefault()
    const refused = await session.openScope(draft)
    setProblem(refused)
    if (!refused) setDraft('')
  }

  return (
    <div class="scope-bar">
      <div class="scope-pick">
        <label for="scope-pick">{m.scope}</label>
        <select id="scope-pick" value={scope ?? GLOBAL} onChange={(event) => void session.showScope((event.currentTarget.value || undefined) as string | undefined)}>
          <option value={GLOBAL}>{m.global}</option>
          {scopes.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </div>
      <form class="scope-open" onSubmit={(event) => void open(event)}>
        <label for="scope-open-id">{m.openScope}</label>
        <input
          id="scope-open-id"
          type="text"
          placeholder="kind/id"
          autocomplete="off"
          spellcheck={false}
          value={draft}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'scope-open-problem' : undefined}
          onInput={(event) => {
            setDraft(event.currentTarget.value)
            setProblem(undefined)
          }}
        />
        <button type="submit">{m.open}</button>
        {problem && (
          <p id="scope-open-problem" class="field-error" role="alert">
            {problem}
          </p>
        )}
      </form>
    </div>
  )
}
