import { useState } from 'preact/hooks'
import type { Edit, Field, FieldVariant } from '../../model/index.ts'
import { fieldId } from '../format.ts'
import { m } from '../i18n.ts'
import type { SectionApi } from './api.ts'
import { describedBy, FieldShell } from './FieldShell.tsx'
import { FieldView } from './FieldView.tsx'
import type { ControlProps } from './TextInput.tsx'

/** Up to this many forms are offered as radio buttons; more become a select. */
const MAX_RADIOS = 4

/** The index of the form a toggle's state picks: the form fixing that boolean, else the form for every other value. */
function toggledForm(variants: readonly FieldVariant[], on: boolean): number {
  const tagged = variants.findIndex((variant) => variant.tag === on)
  return tagged >= 0 ? tagged : variants.findIndex((variant) => !('tag' in variant))
}

/** The chosen form's own fields: the discriminator is the picker, so it is not shown twice. */
function formFields(field: Field, chosen: Field, api: SectionApi): Field[] {
  return (chosen.children ?? []).filter((child) => !child.hidden && child.kind !== 'const' && child.path.at(-1) !== (field.toggle ? field.discriminator : undefined) && api.shows(child))
}

/**
 * A union: the forms it may take (an adapter's protocols, "off / on / a level"),
 * the chosen one's editor below. Forms told apart by a boolean ("enable to
 * reveal") are picked with a checkbox of that boolean. Switching sends one
 * `choose-variant` edit, which keeps what both forms share; a switch to a form
 * that needs values the section lacks is held in the page until they are given.
 * At the section root the picker is named by the key that tells the forms apart
 * (`protocol`, with the schema's description of it): the section heading already
 * names the plugin.
 */
export function UnionField({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const send = async (edit: Edit) => setProblem(await api.apply(edit))
  const variants = field.variants ?? []
  const chosen = variants[field.variant ?? -1]
  const pickId = `${id}-form`
  const root = field.path.length === 0
  const choose = (index: number) => void send({ type: 'choose-variant', path: field.path, index })
  // A form named only by its type is named in the page's language.
  const name = (variant: FieldVariant) => (variant.type ? (m.typeWords[variant.type] ?? variant.label) : variant.label)
  const pickerName = field.discriminator ?? m.form(label)
  const shell = root && field.discriminator !== undefined ? { field: { ...field, description: field.discriminatorDescription }, label: field.discriminator } : { field, label }
  const described = describedBy(id, shell.field, problem)
  let picker
  if (field.toggle && field.discriminator !== undefined) {
    const toggleId = fieldId(api.ns, [...field.path, field.discriminator])
    picker = (
      <label class="toggle" for={toggleId}>
        <input id={toggleId} type="checkbox" checked={chosen?.tag === true} disabled={api.disabled} aria-describedby={described} onChange={(event) => choose(toggledForm(variants, event.currentTarget.checked))} />
        {field.discriminator}
      </label>
    )
  } else if (variants.length <= MAX_RADIOS) {
    picker = (
      <div class="radios" id={pickId} role="radiogroup" aria-label={pickerName} aria-describedby={described}>
        {variants.map((variant, index) => (
          <label key={index} class="radio">
            <input type="radio" name={pickId} checked={index === field.variant} disabled={api.disabled} onChange={() => choose(index)} />
            {name(variant)}
          </label>
        ))}
      </div>
    )
  } else {
    picker = (
      <select id={pickId} aria-label={pickerName} disabled={api.disabled} value={String(field.variant ?? -1)} onChange={(event) => choose(Number(event.currentTarget.value))}>
        {!chosen && <option value="-1">{m.choose}</option>}
        {variants.map((variant, index) => (
          <option key={index} value={String(index)}>
            {name(variant)}
          </option>
        ))}
      </select>
    )
  }
  // Below the root, the key that picks the form is named above the picker, with what the schema says of it.
  const caption = !root && field.discriminator !== undefined && !field.toggle && (
    <p class="picker-caption">
      <strong>{field.discriminator}</strong>
      {field.discriminatorDescription ? ` ${field.discriminatorDescription}` : ''}
    </p>
  )
  // A chosen object form shows its fields right here; a chosen value form shows its editor, named like the union.
  const body =
    chosen && chosen.field.kind !== 'const'
      ? chosen.field.kind === 'object'
        ? formFields(field, chosen.field, api).map((child) => <FieldView key={child.path.at(-1)} field={child} api={api} />)
        : [<FieldView key="value" field={{ ...chosen.field, description: undefined, overridden: false, required: false }} api={api} label={label} inList />]
      : []
  return (
    <FieldShell field={shell.field} api={api} id={id} label={shell.label} problem={problem} group inList={inList}>
      {caption}
      {picker}
      {!chosen && variants.length > 0 && <p class="field-hint">{field.value === undefined ? m.chooseForm : m.noForm}</p>}
      {body}
    </FieldShell>
  )
}
