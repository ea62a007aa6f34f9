import { useState } from 'preact/hooks'
import type { Edit, FieldVariant } from '../../model/index.ts'
import { m } from '../i18n.ts'
import { describedBy, FieldShell } from './FieldShell.tsx'
import { FieldView } from './FieldView.tsx'
import type { ControlProps } from './TextInput.tsx'

/** Up to this many forms are offered as radio buttons; more become a select. */
const MAX_RADIOS = 4

/**
 * A union: the forms it may take (an adapter's protocols, "off / on / a level"),
 * the chosen one's editor below. Switching sends one `choose-variant` edit,
 * which keeps what both forms share.
 */
export function UnionField({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const send = async (edit: Edit) => setProblem(await api.apply(edit))
  const variants = field.variants ?? []
  const chosen = variants[field.variant ?? -1]
  const pickId = `${id}-form`
  const choose = (index: number) => void send({ type: 'choose-variant', path: field.path, index })
  // A form named only by its type is named in the page's language.
  const name = (variant: FieldVariant) => (variant.type ? (m.typeWords[variant.type] ?? variant.label) : variant.label)
  const picker =
    variants.length <= MAX_RADIOS ? (
      <div class="radios" id={pickId} role="radiogroup" aria-label={m.form(label)} aria-describedby={describedBy(id, field, problem)}>
        {variants.map((variant, index) => (
          <label key={index} class="radio">
            <input type="radio" name={pickId} checked={index === field.variant} disabled={api.disabled} onChange={() => choose(index)} />
            {name(variant)}
          </label>
        ))}
      </div>
    ) : (
      <select id={pickId} aria-label={m.form(label)} disabled={api.disabled} value={String(field.variant ?? -1)} onChange={(event) => choose(Number(event.currentTarget.value))}>
        {!chosen && <option value="-1">{m.choose}</option>}
        {variants.map((variant, index) => (
          <option key={index} value={String(index)}>
            {name(variant)}
          </option>
        ))}
      </select>
    )
  // A chosen object form shows its fields right here; a chosen value form shows its editor, named like the union.
  const body =
    chosen && chosen.field.kind !== 'const'
      ? chosen.field.kind === 'object'
        ? (chosen.field.children ?? []).filter((child) => !child.hidden && child.kind !== 'const' && api.shows(child)).map((child) => <FieldView key={child.path.at(-1)} field={child} api={api} />)
        : [<FieldView key="value" field={{ ...chosen.field, description: undefined, overridden: false, required: false }} api={api} label={label} inList />]
      : []
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      {picker}
      {!chosen && variants.length > 0 && <p class="field-hint">{m.noForm}</p>}
      {body}
    </FieldShell>
  )
}
