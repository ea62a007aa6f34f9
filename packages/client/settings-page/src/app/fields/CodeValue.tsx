import { useState } from 'preact/hooks'
import { dataEqual } from 'dsh-settings/equal'
import { validateField, type Edit } from '../../model/index.ts'
import { showValue } from '../format.ts'
import { m, showIssue, showNumber } from '../i18n.ts'
import { describedBy, FieldShell } from './FieldShell.tsx'
import type { ControlProps } from './TextInput.tsx'

/** A bitset: one checkbox per flag; the value is the sum of the flags ticked. */
export function BitsetInput({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const value = typeof field.value === 'number' ? field.value : typeof field.default === 'number' ? field.default : 0
  const flags = field.options ?? []
  const toggle = async (bit: number, on: boolean) => setProblem(await api.apply({ type: 'set', path: field.path, value: on ? value | bit : value & ~bit }))
  const count = flags.filter((flag) => (value & (flag.value as number)) !== 0).length
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      <p class="field-hint" id={`${id}-count`}>
        {m.flags(showNumber(count))}
      </p>
      <div class="flags" id={id} aria-describedby={describedBy(id, field, problem)}>
        {flags.map((flag) => (
          <label key={flag.label} class="flag">
            <input type="checkbox" checked={(value & (flag.value as number)) !== 0} disabled={api.disabled} onChange={(event) => void toggle(flag.value as number, event.currentTarget.checked)} />
            {flag.label}
          </label>
        ))}
      </div>
    </FieldShell>
  )
}

/** Any JSON value (`Schema.any()`): edited as JSON text, saved when it parses and differs. */
export function JsonInput({ field, api, id, label, inList }: ControlProps) {
  const original = field.value === undefined ? '' : JSON.stringify(field.value, null, 2)
  const [draft, setDraft] = useState(original)
  const [problem, setProblem] = useState<string | undefined>()
  const commit = async () => {
    api.setEditing(id, false)
    let edit: Edit
    if (draft.trim() === '') {
      if (!field.overridden) return
      edit = { type: 'unset', path: field.path }
    } else {
      let value: unknown
      try {
        value = JSON.parse(draft)
      } catch {
        setProblem(m.jsonInvalid)
        return
      }
      if (dataEqual(value, field.value)) return
      const issues = validateField(api.form, field, value)
      if (issues.length) return setProblem(showIssue(issues[0]!))
      edit = { type: 'set', path: field.path, value }
    }
    setProblem(await api.apply(edit))
  }
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} inList={inList}>
      <textarea
        id={id}
        class="json"
        rows={Math.min(8, Math.max(2, draft.split('\n').length))}
        spellcheck={false}
        disabled={api.disabled}
        placeholder={field.default !== undefined ? showValue(field.default) : ''}
        aria-describedby={describedBy(id, field, problem)}
        value={draft}
        onInput={(event) => {
          setDraft(event.currentTarget.value)
          setProblem(undefined)
          api.setEditing(id, true)
        }}
        onBlur={() => void commit()}
      />
      <p class="field-hint">{m.jsonHint}</p>
    </FieldShell>
  )
}

/** A value only the plugin's code can supply (a function, a class instance): shown, with why it cannot be edited here. */
export function ReadonlyValue({ field, api, id, label, inList }: ControlProps) {
  const reason = field.reason?.includes('function') ? m.codeFunction : field.reason?.includes('class') ? m.codeClass : m.codeNever
  return (
    <FieldShell field={field} api={api} id={id} label={label} inList={inList}>
      <output id={id}>{field.value === undefined ? m.notSet : showValue(field.value)}</output>
      <p class="field-hint">{m.notEditable(reason)}</p>
    </FieldShell>
  )
}
