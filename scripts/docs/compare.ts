/**
 * The commands of a command block and the output the doc shows for them, and
 * how printed output is held to it. A `console` block is a transcript: `$ `
 * starts a command (a line ending in `\` continues it) and the lines up to the
 * next `$ ` are what it prints. An `sh` block is commands only, one per line
 * (blank lines and whole-line comments left out, `\` continuing a line).
 *
 * In shown output `…` stands for any text within one line (a token, a path, a
 * revision). Printed output is normalized first: colors removed, the test's
 * temp folders written as the doc writes them, and every loopback port as 5140.
 * Log lines (`[I] …`) are matched in any order, each shown line by its own
 * printed line, since plugins start concurrently; any other output must be
 * printed exactly, line for line.
 */
import type { Fence } from './fences.ts'

/** One command of a block, with the output the doc shows for it, if any. */
export interface DocCommand {
  /** The command as a shell reads it (continuation lines joined with their `\`). */
  line: string
  /** The lines the doc shows it printing; `undefined` when it shows none. */
  expected?: string[]
}

/** Drop trailing blank lines. */
function trimEnd(lines: string[]): string[] {
  const result = [...lines]
  while (result.length > 0 && result[result.length - 1]!.trim() === '') result.pop()
  return result
}

/** The commands of a `console` transcript. */
function transcriptCommands(lines: string[]): DocCommand[] {
  const commands: DocCommand[] = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    if (!line.startsWith('$ ')) {
      const current = commands[commands.length - 1]
      if (current) (current.expected ??= []).push(line)
      continue
    }
    let command = line.slice(2)
    while (command.endsWith('\\') && index + 1 < lines.length) command += `\n${lines[++index]}`
    commands.push({ line: command })
  }
  for (const command of commands) {
    if (command.expected) command.expected = trimEnd(command.expected)
    if (command.expected?.length === 0) delete command.expected
  }
  return commands
}

/** The commands of an `sh` block. */
function scriptCommands(lines: string[]): DocCommand[] {
  const commands: DocCommand[] = []
  for (let index = 0; index < lines.length; index++) {
    let command = lines[index]!
    if (command.trim() === '' || command.trim().startsWith('#')) continue
    while (command.endsWith('\\') && index + 1 < lines.length) command += `\n${lines[++index]}`
    commands.push({ line: command })
  }
  return commands
}

/** The commands of a command block, in order. */
export function blockCommands(block: Fence): DocCommand[] {
  const lines = block.body.split('\n')
  return block.lang === 'console' ? transcriptCommands(lines) : scriptCommands(lines)
}

/** Escape text for a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Every loopback port written as 5140, the default one the docs show. */
function samePort(line: string): string {
  return line.replace(/\b(127\.0\.0\.1|localhost):\d{1,5}\b/g, '$1:5140')
}

/**
 * Printed output as the doc would show it: colors removed, each `[from, to]`
 * replacement applied (longest `from` first, so a folder inside another is
 * replaced before it), ports normalized, trailing blank lines dropped.
 */
export function normalizeOutput(text: string, replacements: readonly (readonly [string, string])[] = []): string[] {
  // eslint-disable-next-line no-control-regex
  let clean = text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r\n?/g, '\n')
  for (const [from, to] of [...replacements].sort((a, b) => b[0].length - a[0].length)) clean = clean.split(from).join(to)
  return trimEnd(clean.split('\n').map((line) => samePort(line.replace(/\s+$/, ''))))
}

/** Whether a printed line is what the doc shows, `…` matching any text within the line. */
export function matchLine(expected: string, actual: string): boolean {
  const pattern = samePort(expected.replace(/\s+$/, '')).split('…').map(escape).join('.*?')
  return new RegExp(`^${pattern}$`).test(actual)
}

/** Whether every shown line is a log line (`[I] …`, `[W] …`), matched in any order. */
function logLines(expected: readonly string[]): boolean {
  return expected.every((line) => /^\[[DIWE]\] /.test(line))
}

/**
 * Why printed lines are not what the doc shows, or `undefined` when they are.
 * @param expected - the shown lines.
 * @param actual - the printed lines, normalized.
 */
export function outputMismatch(expected: readonly string[], actual: readonly string[]): string | undefined {
  const shown = trimEnd([...expected])
  if (logLines(shown)) {
    const left = [...actual]
    const missing = shown.filter((line) => {
      const at = left.findIndex((candidate) => matchLine(line, candidate))
      if (at < 0) return true
      left.splice(at, 1)
      return false
    })
    return missing.length === 0 ? undefined : `not printed:\n${missing.join('\n')}\n--- printed:\n${actual.join('\n')}`
  }
  const same = shown.length === actual.length && shown.every((line, index) => matchLine(line, actual[index]!))
  return same ? undefined : `the doc shows:\n${shown.join('\n')}\n--- printed:\n${actual.join('\n')}`
}
