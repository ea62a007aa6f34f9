import { useState } from 'preact/hooks'
import { blankValue, type Edit, type Field } from '../../model/index.ts'
import { FieldShell } from './FieldShell.tsx'
import { FieldView } from './FieldView.tsx'
import { ArrayItemActions, DictEntryActions } from './ItemActions.tsx'
import { ArrayTable, DictTable, tableColumns } from './TableGroup.tsx'
import type { ControlProps } from './TextInput.tsx'
import { m, showNumber } from '../i18n.ts'

/** The fields of an object to render: not hidden, and shown by the search. */
function visible(field: Field, shows: (child: Field) => boolean): Field[] {
  return (field.children ?? []).filter((child) => !child.hidden && shows(child))
}

/** A nested object: its fields in a group (those the search shows). */
function ObjectGroup({ field, api, id, label, inList }: ControlProps) {
  return (
    <FieldShell field={field} api={api} id={id} label={label} group inList={inList}>
      {visible(field, api.shows).map((child) => (
        <FieldView key={child.path.at(-1)} field={child} api={api} />
      ))}
    </FieldShell>
  )
}

/** A tuple: one field per position. */
function TupleGroup({ field, api, id, label, inList }: ControlProps) {
  return (
    <FieldShell field={field} api={api} id={id} label={label} group inList={inList}>
      {(field.children ?? []).map((child, index) => (
        <FieldView key={index} field={child} api={api} label={`${label} ${index + 1}`} inList />
      ))}
    </FieldShell>
  )
}

/** An array: items with remove and, unless they hold secrets, move controls; an add button. `layout: 'table'` of objects is a table. */
function ArrayGroup({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const send = (edit: Edit) => void api.apply(edit).then(setProblem)
  const items = field.children ?? []
  const table = tableColumns(field)
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      {items.length === 0 && <p class="empty">{m.noItems}</p>}
      {table && items.length > 0 ? (
        <ArrayTable field={field} api={api} id={id} label={label} columns={table} send={send} />
      ) : (
        <ol class="items">
          {items.map((child, index) => {
            const name = m.itemName(label, showNumber(index + 1))
            return (
              <li key={index} class="item">
                <FieldView field={child} api={api} label={name} inList />
                <ArrayItemActions field={field} api={api} index={index} count={items.length} name={name} send={send} />
              </li>
            )
          })}
        </ol>
      )}
      {field.item && (
        <button type="button" disabled={api.disabled} onClick={() => send({ type: 'array-add', path: field.path, value: blankValue(field.item!) })}>
          {m.addItem(label)}
        </button>
      )}
      {field.reorderable === false && items.length > 1 && <p class="field-hint">{m.secretOrder}</p>}
    </FieldShell>
  )
}

/** A dict: entries with rename and remove; a key box to add one. `layout: 'table'` of objects is a table. */
function DictGroup({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const [renaming, setRenaming] = useState<string | undefined>()
  const [key, setKey] = useState('')
  const send = (edit: Edit) => void api.apply(edit).then(setProblem)
  const rename = (entry: string) => (start: boolean, refused?: string) => {
    setRenaming(start ? entry : undefined)
    if (!start) setProblem(refused)
  }
  const entries = field.children ?? []
  const table = tableColumns(field)
  const addId = `${id}-new-key`
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      {entries.length === 0 && <p class="empty">{m.noEntries}</p>}
      {table && entries.length > 0 ? (
        <DictTable field={field} api={api} id={id} label={label} columns={table} send={send} renaming={renaming} rename={rename} />
      ) : (
        <ul class="items">
          {entries.map((child) => {
            const entry = child.path.at(-1)!
            return (
              <li key={entry} class="item">
                <FieldView field={child} api={api} label={entry} inList />
                <DictEntryActions field={field} api={api} entry={entry} renaming={renaming === entry} onRename={rename(entry)} send={send} />
              </li>
            )
          })}
        </ul>
      )}
      {field.item && (
        <form
          class="add-entry"
          onSubmit={(event) => {
            event.preventDefault()
            void api.apply({ type: 'dict-add', path: field.path, key: key.trim(), value: blankValue(field.item!) }).then((refused) => {
              setProblem(refused)
              if (!refused) setKey('')
            })
          }}
        >
          <label for={addId}>{m.newKey(label)}</label>
          <input id={addId} type="text" autocomplete="off" value={key} disabled={api.disabled} onInput={(event) => setKey(event.currentTarget.value)} />
          <button type="submit" disabled={api.disabled}>
            {m.add}
          </button>
        </form>
      )}
    </FieldShell>
  )
}

/** Objects, tuples, arrays and dicts. */
export function Collection(props: ControlProps) {
  switch (props.field.kind) {
    case 'tuple':
      return <TupleGroup {...props} />
    case 'array':
      return <ArrayGroup {...props} />
    case 'dict':
      return <DictGroup {...props} />
    default:
      return <ObjectGroup {...props} />
  }
}
