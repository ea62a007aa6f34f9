/**
 * The data helpers the codec needs: the plain-data ones from `dsh-json-data`, which the seam uses too
 * (so the codec stands alone, importing nothing of `dsh-settings`), and how a place is written.
 */

/** A path into a document: object keys as strings, array indexes as numbers. */
export type DocumentPath = (string | number)[]

export { dataEqual, isPlainObject, setOwn, valueAt } from 'dsh-json-data'

/** A place as `$`-rooted path text (`$.a.b`, `$[0]`, `$["odd key"]`), each key cut to 64 characters: never a value. */
export function pathText(path: readonly (string | number)[]): string {
  let text = '$'
  for (const raw of path) {
    const segment = typeof raw === 'string' && raw.length > 64 ? `${raw.slice(0, 64)}…` : raw
    if (typeof segment === 'number') text += `[${segment}]`
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) text += `.${segment}`
    else text += `[${JSON.stringify(segment)}]`
  }
  return text
}
