import { useEffect, useRef, useState } from 'preact/hooks'
import { validateField, type Edit, type Field } from '../../model/index.ts'
import { showValue } from '../format.ts'
import type { SectionApi } from './api.ts'
import { describedBy, FieldShell } from './FieldShell.tsx'
import { m, showIssue } from '../i18n.ts'

/** Props of every field control. */
export interface ControlProps {
  field: Field
  api: SectionApi
  id: string
  label: string
  inList?: boolean
}

const NUMERIC = new Set(['number', 'slider'])

function textOf(value: unknown): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value)
}

/** The edit a committed draft means, or a problem to show instead. */
function editFor(field: Field, api: SectionApi, draft: string): Edit | string | undefined {
  if (draft === '') {
    // An emptied field falls back to the layers below; an empty string is stored only where nothing is stored yet.
    if (field.overridden) return { type: 'unset', path: field.path }
    if (NUMERIC.has(field.kind)) return undefined
  }
  const value = NUMERIC.has(field.kind) ? Number(draft) : draft
  if (NUMERIC.has(field.kind) && !Number.isFinite(value)) return m.expectedNumber
  const issues = validateField(api.form, field, value)
  if (issues.length > 0) return showIssue(issues[0]!)
  return { type: 'set', path: field.path, value }
}

/**
 * Text, link, textarea, number and slider fields. The draft is local until
 * it is committed (Enter, leaving the field, or releasing the slider); then it
 * is checked against the schema and sent. Emptying a field resets it.
 */
export function TextInput({ field, api, id, label, inList }: ControlProps) {
  const original = textOf(field.value)
  const [draft, setDraft] = useState(original)
  const [problem, setProblem] = useState<string | undefined>()
  const sending = useRef(false)
  useEffect(() => {
    setDraft(original)
    setProblem(undefined)
  }, [original])
  // A control the search hides (or any that goes away) holds no draft any more.
  useEffect(() => () => api.setEditing(id, false), [])

  const change = (next: string) => {
    setDraft(next)
    setProblem(undefined)
    api.setEditing(id, next !== original)
  }
  const commit = async () => {
    if (sending.current || draft === original) return
    const edit = editFor(field, api, draft)
    if (edit === undefined) {
      change(original)
      return
    }
    if (typeof edit === 'string') {
      setProblem(edit)
      return
    }
    sending.current = true
    try {
      setProblem(await api.apply(edit))
    } finally {
      sending.current = false
      api.setEditing(id, false)
    }
  }

  const common = {
    id,
    disabled: api.disabled,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': describedBy(id, field, problem),
    'aria-required': field.required || undefined,
    placeholder: field.default !== undefined ? showValue(field.default) : api.scoped && field.inherited !== undefined ? showValue(field.inherited) : undefined,
    onBlur: () => void commit(),
  }
  let control
  if (field.kind === 'textarea') {
    control = (
      <textarea
        {...common}
        rows={4}
        value={draft}
        onInput={(event) => change(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void commit()
        }}
      />
    )
  } else if (field.kind === 'slider') {
    control = (
      <div class="slider">
        <input {...common} type="range" min={field.min ?? 0} max={field.max ?? 100} step={field.step ?? 1} value={draft || String(field.min ?? 0)} onInput={(event) => change(event.currentTarget.value)} onChange={() => void commit()} />
        <output for={id}>{draft || '—'}</output>
      </div>
    )
  } else {
    const type = field.kind === 'link' ? 'url' : NUMERIC.has(field.kind) ? 'number' : 'text'
    control = (
      <input
        {...common}
        // One element for three input types; the props below are valid for each of them.
        type={type as 'text'}
        min={field.kind === 'number' ? field.min : undefined}
        max={field.kind === 'number' ? field.max : undefined}
        step={field.kind === 'number' ? (field.step ?? 'any') : undefined}
        spellcheck={type === 'text' ? undefined : false}
        value={draft}
        onInput={(event) => change(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault()
            void commit()
          }
          if (event.key === 'Escape') change(original)
        }}
      />
    )
  }
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} inList={inList}>
      {control}
    </FieldShell>
  )
}
