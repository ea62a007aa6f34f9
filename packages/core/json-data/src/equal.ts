/**
 * Deep equality of JSON-shaped data (stored sections, resolved values,
 * documents): primitives by `===` (`NaN` equals `NaN`), arrays item by item,
 * other objects by their own enumerable keys. It never calls anything found in
 * the data: `fast-deep-equal` calls a value's own `valueOf`/`toString` when it
 * has one, so a stored key named `valueOf` would make every comparison throw.
 * Objects that are not arrays compare by keys whatever their prototype.
 */
export function dataEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b
  const arrayA = Array.isArray(a)
  if (arrayA !== Array.isArray(b)) return false
  if (arrayA) {
    const left = a as unknown[]
    const right = b as unknown[]
    if (left.length !== right.length) return false
    for (let index = 0; index < left.length; index++) if (!dataEqual(left[index], right[index])) return false
    return true
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  if (keys.length !== Object.keys(right).length) return false
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(right, key) || !dataEqual(left[key], right[key])) return false
  }
  return true
}
