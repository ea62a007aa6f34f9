/**
 * The provider's SQL, for operators and tools that read or measure the store
 * directly (the benchmark's floor runs these very statements): the table names
 * of a prefix and the statements the provider runs on them.
 */
export { statements, tablesFor, type Tables } from './sql.ts'
