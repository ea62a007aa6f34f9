import type { ComponentChildren } from 'preact'
import type { Edit, Field } from '../../model/index.ts'
import { FieldView } from './FieldView.tsx'
import { ArrayItemActions, DictEntryActions } from './ItemActions.tsx'
import type { SectionApi } from './api.ts'
import { m, showNumber } from '../i18n.ts'

/** One column of a `role('table')` list: a field of its items' objects. */
export interface TableColumn {
  key: string
  label: string
  description?: string | undefined
}

/**
 * The columns of a list or dict laid out as a table (`role('table')`) whose
 * items are objects: their visible fields, in the schema's order. `undefined`
 * when it is not such a list, or an item is not an object (then it is laid out
 * as a list).
 */
export function tableColumns(field: Field): TableColumn[] | undefined {
  if (field.layout !== 'table' || field.item?.kind !== 'object') return undefined
  if ((field.children ?? []).some((row) => row.kind !== 'object')) return undefined
  const columns = (field.item.children ?? []).filter((child) => !child.hidden).map((child) => ({ key: child.path.at(-1)!, label: child.label, description: child.description }))
  return columns.length ? columns : undefined
}

/** The field of `row` in `column`. */
function cellOf(row: Field, column: TableColumn): Field | undefined {
  return row.children?.find((child) => child.path.at(-1) === column.key)
}

/** What both kinds of table share. */
interface TableProps {
  field: Field
  api: SectionApi
  /** The group's control id; the table's caption takes `-caption`. */
  id: string
  label: string
  columns: TableColumn[]
  send(edit: Edit): void
}

/**
 * The frame of a table: it scrolls sideways on its own on a narrow screen
 * (focusable, so the keyboard can scroll it too), named by a caption; a header
 * row names the row column, each field of the items, and the actions.
 */
function TableFrame({ id, label, columns, rowHeader, children }: { id: string; label: string; columns: TableColumn[]; rowHeader: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-labelledby={`${id}-caption`} tabIndex={0}>
      <table class="field-table">
        <caption id={`${id}-caption`} class="visually-hidden">
          {label}
        </caption>
        <thead>
          <tr>
            <th scope="col">{rowHeader}</th>
            {columns.map((column) => (
              <th key={column.key} scope="col">
                {column.label}
                {column.description && <span class="column-desc">{column.description}</span>}
              </th>
            ))}
            <th scope="col">{m.tableActions}</th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

/** One row's cells: each field's control, labelled by its column and its row for a screen reader. */
function Cells({ row, api, columns, rowName }: { row: Field; api: SectionApi; columns: TableColumn[]; rowName: string }) {
  return (
    <>
      {columns.map((column) => {
        const cell = cellOf(row, column)
        return <td key={column.key}>{cell && !cell.hidden && <FieldView field={cell} api={api} label={m.cellLabel(column.label, rowName)} inList />}</td>
      })}
    </>
  )
}

/** A list of objects as a table: one row per item, numbered; move and remove in the last cell. */
export function ArrayTable({ field, api, id, label, columns, send }: TableProps) {
  const items = field.children ?? []
  return (
    <TableFrame id={id} label={label} columns={columns} rowHeader={m.tableItem}>
      {items.map((row, index) => {
        const name = m.itemName(label, showNumber(index + 1))
        return (
          <tr key={index}>
            <th scope="row">{showNumber(index + 1)}</th>
            <Cells row={row} api={api} columns={columns} rowName={name} />
            <td>
              <ArrayItemActions field={field} api={api} index={index} count={items.length} name={name} send={send} />
            </td>
          </tr>
        )
      })}
    </TableFrame>
  )
}

/** A dict of objects as a table: one row per entry, headed by its key; rename and remove in the last cell. */
export function DictTable({ field, api, id, label, columns, send, renaming, rename }: TableProps & { renaming: string | undefined; rename(entry: string): (start: boolean, problem?: string) => void }) {
  return (
    <TableFrame id={id} label={label} columns={columns} rowHeader={m.tableKey}>
      {(field.children ?? []).map((row) => {
        const entry = row.path.at(-1)!
        return (
          <tr key={entry}>
            <th scope="row">
              <code>{entry}</code>
            </th>
            <Cells row={row} api={api} columns={columns} rowName={entry} />
            <td>
              <DictEntryActions field={field} api={api} entry={entry} renaming={renaming === entry} onRename={rename(entry)} send={send} />
            </td>
          </tr>
        )
      })}
    </TableFrame>
  )
}
