/** Deep equality of JSON-shaped data (stored sections, resolved values, documents): see `dsh-json-data`. */
export { dataEqual } from 'dsh-json-data'
