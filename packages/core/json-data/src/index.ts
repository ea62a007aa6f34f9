/**
 * dsh-json-data: plain data parsed from JSON or YAML, for every part that holds it (the settings seam, the
 * file provider's codec) without one depending on the other.
 */
export { isPlainObject, setOwn, valueAt } from './data.ts'
export { dataEqual } from './equal.ts'
