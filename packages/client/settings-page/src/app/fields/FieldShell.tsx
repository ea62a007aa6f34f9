import type { ComponentChildren } from 'preact'
import type { Field } from '../../model/index.ts'
import { showValue } from '../format.ts'
import type { SectionApi } from './api.ts'
import { m } from '../i18n.ts'

/** What a shell needs besides the field. */
export interface ShellProps {
  field: Field
  api: SectionApi
  /** The id of the field's control (or group). */
  id: string
  /** The label shown; the field's key unless the parent names it (list items). */
  label: string
  /** A problem found before sending or a refusal, shown under the control. */
  problem?: string | undefined
  /** Render as a `fieldset` with a `legend` (groups, radios) instead of a `label`. */
  group?: boolean
  /** Inside a list: the list's own controls replace the field's reset. */
  inList?: boolean
  children: ComponentChildren
}

/** The ids of the texts describing a control, for `aria-describedby`. */
export function describedBy(id: string, field: Field, problem: string | undefined): string | undefined {
  const ids = [field.description ? `${id}-desc` : '', problem ? `${id}-problem` : ''].filter(Boolean)
  return ids.length ? ids.join(' ') : undefined
}

/** Whether a field is a leaf whose inherited value is worth a hint. */
function showsInherited(field: Field): boolean {
  return field.inherited !== undefined && !field.children && field.kind !== 'secret'
}

/**
 * The frame around every field: its label, description, layer marks
 * ("set here", what it inherits), a reset button, and the problem text.
 */
export function FieldShell({ field, api, id, label, problem, group, inList, children }: ShellProps) {
  const key = field.path.join('\0')
  const serverProblem = api.fieldError && api.fieldError.path.join('\0') === key ? api.fieldError.message : undefined
  const missing = api.missing?.has(key) ? m.issue.required({}) : undefined
  const shown = problem ?? serverProblem ?? missing
  // Resetting a required value with no default would leave the plugin waiting for setup: only a scope (which inherits) offers it.
  const resettable = field.overridden && !inList && field.path.length > 0 && (api.scoped || !field.required || field.default !== undefined)
  const marks = (
    <>
      {api.staged?.(field.path) && !inList ? (
        <span class="mark mark-unsaved">{m.unsaved}</span>
      ) : (
        field.overridden &&
        !inList && (
          <span class="mark" title={api.scoped ? m.setHere : m.setInFile}>
            {api.scoped ? m.setHere : m.modified}
          </span>
        )
      )}
      {field.required && <span class="mark mark-required">{m.required}</span>}
    </>
  )
  const body = (
    <>
      {field.description && (
        <p id={`${id}-desc`} class="field-desc">
          {field.description}
        </p>
      )}
      {children}
      {api.scoped && showsInherited(field) && (
        <p class="field-hint">
          {field.overridden ? m.overridesInherited : m.inherited}
          <code>{showValue(field.inherited)}</code>
        </p>
      )}
      {shown && (
        <p id={`${id}-problem`} class="field-error" role="alert">
          {shown}
        </p>
      )}
      {resettable && (
        <button type="button" class="quiet reset" disabled={api.disabled} onClick={() => void api.apply({ type: 'unset', path: field.path })}>
          {m.resetField(label, api.scoped)}
        </button>
      )}
    </>
  )
  if (group && field.collapsed) {
    // A group the plugin folds (`collapse()`): its fields show once opened.
    return (
      <details class={`field field-${field.kind}`}>
        <summary>
          {label} {marks}
        </summary>
        <fieldset aria-describedby={field.description ? `${id}-desc` : undefined}>
          <legend class="visually-hidden">{label}</legend>
          {body}
        </fieldset>
      </details>
    )
  }
  if (group) {
    return (
      <fieldset class={`field field-${field.kind}`} aria-describedby={field.description ? `${id}-desc` : undefined}>
        <legend>
          {label} {marks}
        </legend>
        {body}
      </fieldset>
    )
  }
  return (
    <div class={`field field-${field.kind}`}>
      <div class="field-label">
        <label for={id}>{label}</label> {marks}
      </div>
      {body}
    </div>
  )
}
