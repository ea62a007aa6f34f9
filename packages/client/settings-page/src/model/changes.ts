import type { SettingsNamespaceView } from 'dsh-settings'
import { dataEqual } from 'dsh-settings/equal'
import { isPlainObject } from './paths.ts'

/** One field that differs between two reads of a namespace. */
export interface FieldChange {
  /** Path inside the section; `[]` when the whole value differs in shape. */
  path: string[]
  /** `value` for resolved data, `secret` when only a secret slot's state moved (the value is never known). */
  kind: 'value' | 'secret'
}

function diffValues(before: unknown, after: unknown, path: string[], out: FieldChange[]): void {
  if (dataEqual(before, after)) return
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)])
    for (const key of keys) diffValues(before[key], after[key], [...path, key], out)
    return
  }
  // Lists of one length are compared item by item; a length change is reported for the list itself.
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, index) => diffValues(item, after[index], [...path, String(index)], out))
    return
  }
  out.push({ path, kind: 'value' })
}

/**
 * The fields whose resolved value or secret state differs between an older
 * and a newer read of one namespace: what a page shows when a write meets a
 * conflict. Values stay out of the answer, so it can be shown as is.
 */
export function changedFields(before: SettingsNamespaceView, after: SettingsNamespaceView): FieldChange[] {
  const changes: FieldChange[] = []
  diffValues(before.value, after.value, [], changes)
  const key = (path: readonly string[]) => path.join('\0')
  const slots = new Map(before.secrets.map((slot) => [key(slot.path), slot]))
  for (const slot of after.secrets) {
    const old = slots.get(key(slot.path))
    slots.delete(key(slot.path))
    if (!old || old.set !== slot.set || old.layer !== slot.layer || old.source !== slot.source || old.reference !== slot.reference) changes.push({ path: [...slot.path], kind: 'secret' })
  }
  for (const old of slots.values()) if (old.set) changes.push({ path: [...old.path], kind: 'secret' })
  return changes
}
