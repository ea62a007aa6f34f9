import { useState } from 'preact/hooks'
import type { Edit, Field } from '../../model/index.ts'
import { fieldId } from '../format.ts'
import type { SectionApi } from './api.ts'
import { m } from '../i18n.ts'

/** The controls of one list item: move up and down (unless its items hold secrets), remove. */
export function ArrayItemActions({ field, api, index, count, name, send }: { field: Field; api: SectionApi; index: number; count: number; name: string; send(edit: Edit): void }) {
  const move = (to: number) => {
    const order = Array.from({ length: count }, (_, at) => at)
    ;[order[index], order[to]] = [order[to]!, order[index]!]
    send({ type: 'array-reorder', path: field.path, order })
  }
  return (
    <div class="actions item-actions">
      {field.reorderable && (
        <>
          <button type="button" class="quiet" disabled={api.disabled || index === 0} onClick={() => move(index - 1)} aria-label={m.moveUp(name)}>
            ↑
          </button>
          <button type="button" class="quiet" disabled={api.disabled || index === count - 1} onClick={() => move(index + 1)} aria-label={m.moveDown(name)}>
            ↓
          </button>
        </>
      )}
      <button type="button" class="quiet danger" disabled={api.disabled} onClick={() => send({ type: 'array-remove', path: field.path, index })}>
        {m.removeNamed(name)}
      </button>
    </div>
  )
}

/** One dict entry's rename box. */
export function RenameEntry({ api, field, entry, onDone }: { api: SectionApi; field: Field; entry: string; onDone(problem?: string): void }) {
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

/** The controls of one dict entry: rename (a box while renaming) and remove. */
export function DictEntryActions({
  field,
  api,
  entry,
  renaming,
  onRename,
  send,
}: {
  field: Field
  api: SectionApi
  entry: string
  renaming: boolean
  /** Start renaming (`true`), or stop with the refusal the rename met, if any. */
  onRename(start: boolean, problem?: string): void
  send(edit: Edit): void
}) {
  if (renaming) return <RenameEntry api={api} field={field} entry={entry} onDone={(problem) => onRename(false, problem)} />
  return (
    <div class="actions item-actions">
      <button type="button" class="quiet" disabled={api.disabled} onClick={() => onRename(true)}>
        {m.renameNamed(entry)}
      </button>
      <button type="button" class="quiet danger" disabled={api.disabled} onClick={() => send({ type: 'dict-remove', path: field.path, key: entry })}>
        {m.removeNamed(entry)}
      </button>
    </div>
  )
}
