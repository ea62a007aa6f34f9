import { useState } from 'preact/hooks'
import { blankValue, type Edit, type Field } from '../../model/index.ts'
import { fieldId } from '../format.ts'
import { FieldShell } from './FieldShell.tsx'
import { FieldView } from './FieldView.tsx'
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

/** An array: items with remove and, unless they hold secrets, move controls; an add button. */
function ArrayGroup({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const send = async (edit: Edit) => setProblem(await api.apply(edit))
  const items = field.children ?? []
  const move = (from: number, to: number) => {
    const order = items.map((_, index) => index)
    ;[order[from], order[to]] = [order[to]!, order[from]!]
    void send({ type: 'array-reorder', path: field.path, order })
  }
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      {items.length === 0 && <p class="empty">{m.noItems}</p>}
      <ol class={field.layout === 'table' ? 'items items-table' : 'items'}>
        {items.map((child, index) => {
          const name = m.itemName(label, showNumber(index + 1))
          return (
            <li key={index} class="item">
              <FieldView field={child} api={api} label={name} inList />
              <div class="actions item-actions">
                {field.reorderable && (
                  <>
                    <button type="button" class="quiet" disabled={api.disabled || index === 0} onClick={() => move(index, index - 1)} aria-label={m.moveUp(name)}>
                      ↑
                    </button>
                    <button type="button" class="quiet" disabled={api.disabled || index === items.length - 1} onClick={() => move(index, index + 1)} aria-label={m.moveDown(name)}>
                      ↓
                    </button>
                  </>
                )}
                <button type="button" class="quiet danger" disabled={api.disabled} onClick={() => void send({ type: 'array-remove', path: field.path, index })}>
                  {m.removeNamed(name)}
                </button>
              </div>
            </li>
          )
        })}
      </ol>
      {field.item && (
        <button type="button" disabled={api.disabled} onClick={() => void send({ type: 'array-add', path: field.path, value: blankValue(field.item!) })}>
          {m.addItem(label)}
        </button>
      )}
      {field.reorderable === false && items.length > 1 && <p class="field-hint">{m.secretOrder}</p>}
    </FieldShell>
  )
}

/** One dict entry's rename box. */
function RenameEntry({ api, field, entry, onDone }: { api: ControlProps['api']; field: Field; entry: string; onDone(problem?: string): void }) {
  const [draft, setDraft] = useState(entry)
  const boxId = `${fieldId(api.ns, [...field.path, entry])}-rename`
  return (
    <form
      class="rename"
      onSubmit={(event) => {
        event.preventDefault()
        if (draft === entry) return onDone()
        void api.apply({ type: 'dict-rename', path: field.path, from: entry, to: draft }).then((problem) => onDone(problem))
      }}
    >
      <label for={boxId}>{m.renameTo(entry)}</label>
      <input id={boxId} type="text" value={draft} autocomplete="off" onInput={(event) => setDraft(event.currentTarget.value)} />
      <button type="submit">{m.rename}</button>
      <button type="button" class="quiet" onClick={() => onDone()}>
        {m.cancel}
      </button>
    </form>
  )
}

/** A dict: entries with rename and remove; a key box to add one. */
function DictGroup({ field, api, id, label, inList }: ControlProps) {
  const [problem, setProblem] = useState<string | undefined>()
  const [renaming, setRenaming] = useState<string | undefined>()
  const [key, setKey] = useState('')
  const send = async (edit: Edit) => {
    const refused = await api.apply(edit)
    setProblem(refused)
    return refused
  }
  const addId = `${id}-new-key`
  return (
    <FieldShell field={field} api={api} id={id} label={label} problem={problem} group inList={inList}>
      {(field.children ?? []).length === 0 && <p class="empty">{m.noEntries}</p>}
      <ul class={field.layout === 'table' ? 'items items-table' : 'items'}>
        {(field.children ?? []).map((child) => {
          const entry = child.path.at(-1)!
          return (
            <li key={entry} class="item">
              <FieldView field={child} api={api} label={entry} inList />
              {renaming === entry ? (
                <RenameEntry
                  api={api}
                  field={field}
                  entry={entry}
                  onDone={(refused) => {
                    setProblem(refused)
                    setRenaming(undefined)
                  }}
                />
              ) : (
                <div class="actions item-actions">
                  <button type="button" class="quiet" disabled={api.disabled} onClick={() => setRenaming(entry)}>
                    {m.renameNamed(entry)}
                  </button>
                  <button type="button" class="quiet danger" disabled={api.disabled} onClick={() => void send({ type: 'dict-remove', path: field.path, key: entry })}>
                    {m.removeNamed(entry)}
                  </button>
                </div>
              )}
            </li>
          )
        })}
      </ul>
      {field.item && (
        <form
          class="add-entry"
          onSubmit={(event) => {
            event.preventDefault()
            void send({ type: 'dict-add', path: field.path, key: key.trim(), value: blankValue(field.item!) }).then((refused) => {
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
