/**
 * A value the command line leaves out, read where nothing keeps it: the whole
 * of standard input when it is not a terminal (a pipe, a file, a here-string),
 * else a prompt on the terminal that does not echo what is typed. Neither
 * lands in shell history or in the process's arguments (`/proc/<pid>/cmdline`).
 */
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { ValueError } from './value-error.ts'

/** Standard input as the command sees it: a stream, a terminal when `isTTY`. */
export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean }

/**
 * A writer that passes what is written to `target` until muted, then drops it:
 * given to `readline` as its output, the prompt shows and the keys typed after
 * it (which readline echoes itself, the terminal being in raw mode) do not.
 */
export class MutedWriter extends Writable {
  /** While true, nothing written reaches the target. */
  muted = false

  constructor(private readonly target: NodeJS.WritableStream) {
    super()
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (!this.muted) this.target.write(chunk)
    done()
  }
}

/**
 * The text of standard input with one trailing newline (`\n`, or `\r\n`)
 * dropped and nothing else changed: leading and trailing spaces, `#`, `*`,
 * quotes all stay.
 */
export function withoutTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2)
  return text.endsWith('\n') ? text.slice(0, -1) : text
}

/** All of `stream`, as UTF-8 text. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Ask for a value on a terminal without echoing it: `label` is shown on
 * `output`, the line typed is read from `input` (in raw mode, which readline
 * sets and restores) and kept in no history.
 * @throws {ValueError} `cancelled` when the prompt is interrupted (Ctrl-C) or closed (Ctrl-D) before Enter.
 */
export function promptHidden(input: InputStream, output: NodeJS.WritableStream, label: string): Promise<string> {
  const writer = new MutedWriter(output)
  const rl = createInterface({ input, output: writer, terminal: true, historySize: 0 })
  return new Promise<string>((resolve, reject) => {
    let answered = false
    rl.on('SIGINT', () => rl.close())
    rl.on('close', () => {
      writer.muted = false
      output.write('\n')
      if (!answered) reject(new ValueError('cancelled', 'no value entered: the prompt was closed before Enter'))
    })
    rl.question(`${label} (typing is not shown): `, (answer) => {
      answered = true
      resolve(answer)
      rl.close()
    })
    // The prompt is written; from here on, what readline echoes is dropped.
    writer.muted = true
  })
}

/**
 * The value for `field`, from `stdin`: a prompt that does not echo when it is a
 * terminal (written on `prompt`), else its whole text, one trailing newline dropped.
 * @throws {ValueError} `no-input` when there is no standard input to read or it holds nothing, `cancelled` as {@link promptHidden}.
 */
export async function readValue(stdin: InputStream | undefined, field: string, prompt: NodeJS.WritableStream = process.stderr): Promise<string> {
  if (!stdin) throw new ValueError('no-input', 'no value given, and no standard input to read one from')
  if (stdin.isTTY) return promptHidden(stdin, prompt, `value for ${field}`)
  const text = withoutTrailingNewline(await readAll(stdin))
  // An empty input is most often a mistake (a variable that was not set): storing "" would erase the value quietly.
  if (text === '') throw new ValueError('no-input', `no value on standard input for ${field} (it was empty); to remove a stored value use dsh settings unset`)
  return text
}
