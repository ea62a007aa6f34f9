import { isPlainObject, setOwn } from './json.ts'

/**
 * A deep copy of `value` in which every plain object and array is frozen. The
 * input is never frozen or aliased, so schema defaults and caller objects stay writable.
 */
export function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T
  if (!isPlainObject(value)) return value
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(value)) setOwn(result, key, frozenCopy(value[key]))
  return Object.freeze(result) as T
}
