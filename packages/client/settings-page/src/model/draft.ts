import type { SettingsPathOpView } from 'dsh-settings-controller'
import { isPlainObject } from './paths.ts'

/**
 * Applies one path op to a local copy of a value with the same rules as the
 * service's `mutate` (intermediate objects are created, a decimal segment
 * addresses an array element, `unset` closes the gap). The planner uses it
 * when it must send a whole array instead of an element op.
 */
export function applyToDraft(draft: unknown, op: SettingsPathOpView): unknown {
  if (op.path.length === 0) return op.op === 'set' ? op.value : undefined
  const [head, ...rest] = op.path as [string, ...string[]]
  const next: SettingsPathOpView = op.op === 'set' ? { op: 'set', path: rest, value: op.value } : { op: 'unset', path: rest }
  if (Array.isArray(draft) && /^\d+$/.test(head)) return applyToArray(draft, Number(head), next)
  const container: Record<string, unknown> = isPlainObject(draft) ? { ...draft } : {}
  if (op.op === 'unset' && !(isPlainObject(draft) && Object.hasOwn(draft, head))) return draft
  const child = applyToDraft(container[head], next)
  if (child === undefined) delete container[head]
  else container[head] = child
  return container
}

function applyToArray(draft: unknown[], index: number, next: SettingsPathOpView): unknown[] {
  const copy = [...draft]
  if (index > copy.length) return copy
  if (next.path.length === 0 && next.op === 'unset') {
    copy.splice(index, 1)
    return copy
  }
  const child = applyToDraft(copy[index], next)
  if (child !== undefined) copy[index] = child
  return copy
}
