import { expect } from 'vitest'
import { SettingsInputError } from '../src/errors.ts'

/** Run `fn` and return what it threw; fail the test when it returns normally. */
export function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the call to throw')
}

/** Assert `fn` throws a SettingsInputError (a TypeError) whose message contains every fragment. */
export function expectInputError(fn: () => unknown, ...fragments: string[]): SettingsInputError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(SettingsInputError)
  expect(error).toBeInstanceOf(TypeError)
  expect(error.name).toBe('SettingsInputError')
  expect((error as SettingsInputError).code).toBe('SETTINGS_BAD_INPUT')
  for (const fragment of fragments) expect(error.message).toContain(fragment)
  return error as SettingsInputError
}

/** As {@link expectInputError}, and the error names `path`. */
export function expectInputErrorAt(fn: () => unknown, path: unknown, ...fragments: string[]): SettingsInputError {
  const error = expectInputError(fn, ...fragments)
  expect(error.path).toEqual(path)
  return error
}

/** Every object and array reachable from `value` (including itself). */
export function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value === 'object' && value !== null && !into.has(value)) {
    into.add(value)
    for (const key of Object.keys(value)) containers((value as Record<string, unknown>)[key], into)
  }
  return into
}

/** Whether `result` shares no object or array with any of `inputs`. */
export function sharesNothing(result: unknown, ...inputs: unknown[]): boolean {
  const seen = new Set<object>()
  for (const input of inputs) containers(input, seen)
  for (const node of containers(result)) if (seen.has(node)) return false
  return true
}

/** A class instance: data that is an object but not plain, for the input checks to refuse. */
export class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}
