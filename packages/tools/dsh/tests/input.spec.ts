/**
 * A value read where nothing keeps it: all of standard input with one
 * trailing newline dropped and nothing else changed, or on a terminal a prompt
 * whose typing is not echoed (readline's own echo goes to a muted writer; the
 * terminal is put in raw mode and back). A real pseudo-terminal is driven in
 * `prompt-pty.spec.ts`.
 */
import { PassThrough, Readable, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { MutedWriter, promptHidden, readValue, withoutTrailingNewline } from '../src/values/input.ts'
import { ValueError } from '../src/values/value-error.ts'

/** A writable that keeps everything written to it. */
function sink(): Writable & { text(): string } {
  let written = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written += String(chunk)
      done()
    },
  })
  return Object.assign(stream, { text: () => written })
}

/** A stream that says it is a terminal, recording the raw modes asked of it. */
function fakeTerminal(): PassThrough & { isTTY: true; modes: boolean[]; setRawMode(mode: boolean): void } {
  const modes: boolean[] = []
  return Object.assign(new PassThrough(), { isTTY: true as const, modes, setRawMode: (mode: boolean) => void modes.push(mode) })
}

describe('readValue from standard input that is not a terminal', () => {
  it('takes the whole input, one trailing newline dropped, nothing else changed', async () => {
    for (const [input, value] of [
      ['*sk-live-AAAA\n', '*sk-live-AAAA'],
      ['  sk-live #4444  \n\n', '  sk-live #4444  \n'],
      ['multi\nline', 'multi\nline'],
      ['crlf\r\n', 'crlf'],
      ['&x', '&x'],
    ]) {
      expect(await readValue(Readable.from([Buffer.from(input!)]), 'ns.key')).toBe(value)
    }
    expect(withoutTrailingNewline('a\r')).toBe('a\r')
  })

  it('refuses an empty input (a value erased by a variable that was not set), and no input at all', async () => {
    for (const input of ['', '\n']) {
      await expect(readValue(Readable.from([Buffer.from(input)]), 'ns.key')).rejects.toMatchObject({ name: 'ValueError', code: 'no-input', exit: 2 })
    }
    await expect(readValue(undefined, 'ns.key')).rejects.toBeInstanceOf(ValueError)
  })
})

describe('the prompt on a terminal', () => {
  it('shows the prompt, reads the line typed in raw mode, and echoes none of it', async () => {
    const input = fakeTerminal()
    const output = sink()
    const answer = readValue(input, 'web-search.apiKey', output)
    input.write('*sk-live-PROMPT #1 \r')
    expect(await answer).toBe('*sk-live-PROMPT #1 ')
    expect(output.text()).toContain('value for web-search.apiKey (typing is not shown): ')
    expect(output.text()).not.toContain('sk-live')
    expect(output.text()).not.toContain('PROMPT')
    expect(input.modes).toEqual([true, false])
  })

  it('is cancelled by Ctrl-C, or Ctrl-D on an empty line, with nothing of what was typed shown', async () => {
    for (const keys of ['sk-live-HALF\x03', '\x04']) {
      const input = fakeTerminal()
      const output = sink()
      const answer = promptHidden(input, output, 'value for ns.key')
      input.write(keys)
      await expect(answer).rejects.toMatchObject({ code: 'cancelled', exit: 2 })
      expect(output.text()).not.toContain('sk-live')
    }
  })

  it('the muted writer passes what is written until muted, then drops it', () => {
    const target = sink()
    const writer = new MutedWriter(target)
    writer.write('shown ')
    writer.muted = true
    writer.write('hidden')
    writer.muted = false
    writer.write('again')
    expect(target.text()).toBe('shown again')
  })
})
