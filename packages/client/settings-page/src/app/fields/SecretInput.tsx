import { useEffect, useRef, useState } from 'preact/hooks'
import { isHostSecret, validateField } from '../../model/index.ts'
import { layerName, secretOrigin } from '../format.ts'
import { describedBy, FieldShell } from './FieldShell.tsx'
import type { ControlProps } from './TextInput.tsx'
import { m, showIssue } from '../i18n.ts'

/**
 * A write-only secret: the page only knows whether one is set and by which
 * layer. "Replace" opens a password box whose text is sent once and then
 * dropped with the box; "Clear" removes the secret this section holds. A
 * secret the host supplies (an environment variable, a file) shows where it
 * comes from instead, read-only; one kept in the secret store says so.
 */
export function SecretInput({ field, api, id, label, inList }: ControlProps) {
  const [open, setOpen] = useState(false)
  const [problem, setProblem] = useState<string | undefined>()
  const box = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (open) box.current?.focus()
  }, [open])
  // A control the search hides (or any that goes away) holds no draft any more.
  useEffect(() => () => api.setEditing(id, false), [])
  const state = field.secret ?? { set: false }
  const own = state.set && state.layer === (api.scoped ? 'scope' : 'global')
  const origin = secretOrigin(state)
  if (isHostSecret(field)) {
    return (
      <FieldShell field={field} api={api} id={id} label={label} group inList={inList}>
        <p class="secret-state secret-origin" id={`${id}-state`}>
          {origin}
        </p>
        <p class="field-hint">{m.secretHostNote}</p>
      </FieldShell>
    )
  }

  const close = () => {
    setOpen(false)
    api.setEditing(id, false)
  }
  const save = async (event: Event) => {
    event.preventDefault()
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('secret') as HTMLInputElement
    const value = input.value
    const issues = validateField(api.form, field, value)
    if (issues.length > 0) {
      setProblem(showIssue(issues[0]!))
      return
    }
    // The text leaves the DOM before the request is on its way.
    input.value = ''
    close()
    setProblem(await api.apply({ type: 'replace-secret', path: field.path, value }))
  }

  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      <p class="secret-state" id={`${id}-state`}>
        {state.set ? m.secretSet(layerName(state.layer, api.scoped)) : m.notSet}
      </p>
      {origin !== undefined && <p class="field-hint secret-origin">{origin}</p>}
      {open ? (
        <form class="secret-form" onSubmit={(event) => void save(event)}>
          <label for={id}>{m.newSecret(label)}</label>
          <input
            id={id}
            name="secret"
            type="password"
            autocomplete="new-password"
            spellcheck={false}
            aria-describedby={describedBy(id, field, problem)}
            onInput={() => {
              setProblem(undefined)
              api.setEditing(id, true)
            }}
            onKeyDown={(event) => {
              if (event.key === 'Escape') close()
            }}
            ref={box}
          />
          <div class="actions">
            <button type="submit">{m.saveNamed(label)}</button>
            <button type="button" class="quiet" onClick={close}>
              {m.cancel}
            </button>
          </div>
        </form>
      ) : (
        <div class="actions">
          <button type="button" disabled={api.disabled} aria-describedby={`${id}-state`} onClick={() => setOpen(true)}>
            {m.replaceNamed(label)}
          </button>
          {own && (
            <button type="button" class="quiet" disabled={api.disabled} onClick={() => void api.apply({ type: 'clear-secret', path: field.path }).then(setProblem)}>
              {m.clearNamed(label)}
            </button>
          )}
        </div>
      )}
    </FieldShell>
  )
}
