import { dataEqual } from 'dsh-settings/equal'
import { useState } from 'preact/hooks'
import type { Edit, Field } from '../../model/index.ts'
import { showValue } from '../format.ts'
import { describedBy, FieldShell } from './FieldShell.tsx'
import type { ControlProps } from './TextInput.tsx'
import { m } from '../i18n.ts'

/** Up to this many constants render as radio buttons; more become a select. */
const MAX_RADIOS = 3

/**
 * What a choice shows: its value, or, where nothing resolved one yet (a plugin
 * waiting for setup reads only what is given), the default the schema will apply.
 */
function shownValue(field: Field): unknown {
  return field.value === undefined ? field.default : field.value
}

/** Boolean, union-of-constants and constant fields: each change is sent at once. */
export function ChoiceInput({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const send = async (edit: Edit) => setProblem(await api.apply(edit))

  if (field.kind === 'const') {
    return (
      <FieldShell field={field} api={api} id={id} label={label} inList={inList}>
        <output id={id} aria-describedby={describedBy(id, field, undefined)}>
          {showValue(field.constant)}
        </output>
      </FieldShell>
    )
  }

  if (field.kind === 'boolean') {
    return (
      <FieldShell field={field} api={api} id={id} label={label} problem={problem} inList={inList}>
        <input
          id={id}
          type="checkbox"
          class="toggle"
          checked={shownValue(field) === true}
          disabled={api.disabled}
          aria-describedby={describedBy(id, field, problem)}
          onChange={(event) => void send({ type: 'set', path: field.path, value: event.currentTarget.checked })}
        />
      </FieldShell>
    )
  }

  const options = field.options ?? []
  const selected = options.findIndex((option) => dataEqual(option.value, shownValue(field)))
  const choose = (index: number) => {
    const option = options[index]
    if (option) void send({ type: 'set', path: field.path, value: option.value })
  }

  if (options.length <= MAX_RADIOS) {
    return (
      <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
        <div class="radios" id={id} role="radiogroup" aria-describedby={describedBy(id, field, problem)}>
          {options.map((option, index) => (
            <label key={index} class="radio">
              <input type="radio" name={id} checked={index === selected} disabled={api.disabled} onChange={() => choose(index)} />
              {option.label}
            </label>
          ))}
        </div>
      </FieldShell>
    )
  }

  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} inList={inList}>
      <select id={id} disabled={api.disabled} aria-describedby={describedBy(id, field, problem)} value={selected >= 0 ? String(selected) : ''} onChange={(event) => choose(Number(event.currentTarget.value))}>
        {selected < 0 && <option value="">{field.default !== undefined ? m.defaultChoice(showValue(field.default)) : m.choose}</option>}
        {options.map((option, index) => (
          <option key={index} value={String(index)}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldShell>
  )
}
