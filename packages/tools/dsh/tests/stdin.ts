/**
 * `dsh` run in process with a standard input of the test's choosing (a pipe
 * holding `input`, or none), a scan of everything printed for any slice of a
 * value given.
 */
import { Readable } from 'node:stream'
import { expect } from 'vitest'
import { dshIn, type Ran } from './hosts.ts'

/** Run `dsh <args>` with `DSH_HOME=dir` and `input` on standard input (not a terminal); `undefined`: no standard input. */
export function dshWithInput(dir: string, input: string | undefined, ...args: string[]): Promise<Ran> {
  return dshIn(dir, args, input === undefined ? undefined : Readable.from([Buffer.from(input)]))
}

/** Every slice of `value` of `size` characters (the whole value when shorter), spaces trimmed off its ends. */
export function slices(value: string, size = 6): string[] {
  const text = value.trim()
  if (text.length <= size) return [text]
  return Array.from({ length: text.length - size + 1 }, (_, index) => text.slice(index, index + size))
}

/** Assert no line of `ran` holds any slice of `value`. */
export function expectNoEcho(ran: Ran, value: string, size = 6): void {
  const printed = [...ran.out, ...ran.err].join('\n')
  const found = slices(value, size).filter((slice) => printed.includes(slice))
  expect({ value, found }).toEqual({ value, found: [] })
}

