/** One dispatched Server-Sent Events frame, before its data is decoded. */
export interface SseFrame {
  id?: string
  event: string
  data: string
}

/**
 * An incremental Server-Sent Events parser (the framing of the HTML spec):
 * lines end with CRLF, LF or CR, even split across chunks; a blank line
 * dispatches the frame; `:` lines are comments; several `data:` lines are
 * joined with `\n`; one space after the colon is dropped. A frame without
 * `data:` is not dispatched. Browser-safe: no Node imports.
 */
export class SseParser {
  private buffer = ''
  /** The previous chunk ended with CR, so a leading LF in this one belongs to that line end. */
  private pendingCr = false
  private id: string | undefined
  private event = ''
  private data: string[] = []

  /** Feed decoded text; returns the frames it completed. */
  push(text: string): SseFrame[] {
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1)
    this.pendingCr = false
    this.buffer += text
    const frames: SseFrame[] = []
    let start = 0
    for (let index = 0; index < this.buffer.length; index++) {
      const char = this.buffer[index]
      if (char !== '\n' && char !== '\r') continue
      const line = this.buffer.slice(start, index)
      if (char === '\r') {
        if (index + 1 === this.buffer.length) this.pendingCr = true
        else if (this.buffer[index + 1] === '\n') index++
      }
      start = index + 1
      const frame = this.line(line)
      if (frame) frames.push(frame)
    }
    this.buffer = this.buffer.slice(start)
    return frames
  }

  /** Forget a half-received frame (after the connection dropped). */
  reset(): void {
    this.buffer = ''
    this.pendingCr = false
    this.id = undefined
    this.event = ''
    this.data = []
  }

  private line(line: string): SseFrame | undefined {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id' && !value.includes('\0')) this.id = value
    return undefined
  }

  private dispatch(): SseFrame | undefined {
    const frame: SseFrame | undefined = this.data.length ? { event: this.event || 'message', data: this.data.join('\n'), ...(this.id === undefined ? {} : { id: this.id }) } : undefined
    this.event = ''
    this.data = []
    return frame
  }
}
