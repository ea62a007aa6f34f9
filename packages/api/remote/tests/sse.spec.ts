/** The client's Server-Sent Events parser, fed the awkward splits a network produces. */
import { describe, expect, it } from 'vitest'
import { SseParser } from '../src/sse.ts'

const feed = (...chunks: string[]) => {
  const parser = new SseParser()
  return chunks.flatMap((chunk) => parser.push(chunk))
}

describe('SseParser', () => {
  it('dispatches a frame at the blank line', () => {
    expect(feed('id: 1\nevent: a\ndata: {"x":1}\n\n')).toEqual([{ id: '1', event: 'a', data: '{"x":1}' }])
  })

  it('handles CRLF and CR line ends, also split between chunks', () => {
    expect(feed('id: 1\r\nevent: a\r\ndata: 1\r', '\n\r', '\n')).toEqual([{ id: '1', event: 'a', data: '1' }])
    expect(feed('event: b\rdata: 2\r\r')).toEqual([{ event: 'b', data: '2' }])
  })

  it('handles a frame split anywhere, one character at a time', () => {
    const text = 'id: 7\nevent: demo/x\ndata: {"a":"b"}\n\n'
    expect(feed(...text.split(''))).toEqual([{ id: '7', event: 'demo/x', data: '{"a":"b"}' }])
  })

  it('ignores comments, joins data lines and drops one space after the colon only', () => {
    expect(feed(': ping\n\n', 'data:a\ndata:  b\n: note\ndata\n\n')).toEqual([{ event: 'message', data: 'a\n b\n' }])
  })

  it('does not dispatch a frame without data, and forgets a half frame on reset', () => {
    const parser = new SseParser()
    expect(parser.push('event: lonely\n\n')).toEqual([])
    expect(parser.push('event: half\ndata: 1')).toEqual([])
    parser.reset()
    expect(parser.push('\n\ndata: 2\n\n')).toEqual([{ event: 'message', data: '2' }])
  })
})
