/**
 * How `remote.events` reads the bytes of a stream, against a scripted `fetch`
 * whose bodies arrive in the awkward pieces a network makes: frames split
 * anywhere (inside a multi-byte character too), CRLF and CR line ends,
 * comments, events without an `event:` name, data that is not JSON, and a
 * connection that drops in the middle of a frame. The framing itself is
 * `eventsource-parser`'s; what is ours is feeding it, one parser per
 * connection, and turning frames into `RemoteEvent`s.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import type { FetchLike } from '../src/transport.ts'
import type { RemoteEvent } from '../src/types.ts'
import { until } from './harness.ts'

const controllers: AbortController[] = []

afterEach(() => {
  for (const controller of controllers.splice(0)) controller.abort()
})

/** A stream body that yields `chunks` (text or raw bytes) one read at a time, then ends. */
function body(chunks: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let next = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === chunks.length) return controller.close()
      const chunk = chunks[next++]!
      controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
    },
  })
}

/**
 * A fetch that answers the n-th connection with the n-th script, and after
 * the last one keeps the stream open (without data) until the request is aborted.
 */
function scripted(scripts: readonly (readonly (string | Uint8Array)[])[]): { fetch: FetchLike; connections: () => number } {
  let connections = 0
  const fetch: FetchLike = async (_input, init) => {
    const script = scripts[connections++]
    if (script) return new Response(body(script), { status: 200, headers: { 'content-type': 'text/event-stream' } })
    const open = new ReadableStream<Uint8Array>({
      start(controller) {
        init.signal?.addEventListener('abort', () => controller.close(), { once: true })
      },
    })
    return new Response(open, { status: 200, headers: { 'content-type': 'text/event-stream' } })
  }
  return { fetch, connections: () => connections }
}

/** Subscribe through `fetch` and collect events and reported errors. */
function subscribe(fetch: FetchLike): { events: RemoteEvent[]; errors: unknown[]; reconnections: () => number } {
  const controller = new AbortController()
  controllers.push(controller)
  const events: RemoteEvent[] = []
  const errors: unknown[] = []
  let reconnections = 0
  const remote = createRemote({ url: 'http://127.0.0.1:1', token: 't', fetch })
  void remote.events((event) => void events.push(event), {
    signal: controller.signal,
    error: (error) => void errors.push(error),
    reconnected: () => void reconnections++,
  })
  return { events, errors, reconnections: () => reconnections }
}

describe('remote.events framing', () => {
  it('delivers a frame split one character at a time, with its id as a number and its data decoded', async () => {
    const { fetch } = scripted([[...'id: 7\nevent: demo/x\ndata: {"a":"b"}\n\n'.split('')]])
    const { events } = subscribe(fetch)
    await until(() => events.length === 1, 2000, 'the event')
    expect(events).toEqual([{ id: 7, event: 'demo/x', data: { a: 'b' } }])
  })

  it('reads CRLF and CR line ends, also when a CRLF is split between chunks', async () => {
    // A CR ending a chunk may be half a CRLF, so the frame it ends is dispatched once the next chunk (a ping) arrives.
    const { fetch } = scripted([['id: 1\r\nevent: a\r\ndata: 1\r', '\n\r', '\n', 'id: 2\revent: b\rdata: 2\r\r', ': ping\n\n']])
    const { events } = subscribe(fetch)
    await until(() => events.length === 2, 2000, 'both events')
    expect(events).toEqual([
      { id: 1, event: 'a', data: 1 },
      { id: 2, event: 'b', data: 2 },
    ])
  })

  it('decodes a multi-byte character split between chunks', async () => {
    const bytes = new TextEncoder().encode('id: 3\nevent: t\ndata: {"text":"€"}\n\n')
    const cut = bytes.indexOf(0xe2) + 1
    const { fetch } = scripted([[bytes.slice(0, cut), bytes.slice(cut)]])
    const { events } = subscribe(fetch)
    await until(() => events.length === 1, 2000, 'the event')
    expect(events[0]!.data).toEqual({ text: '€' })
  })

  it('skips comments (pings), joins data lines, and names an unnamed event "message"', async () => {
    const { fetch } = scripted([[': ping\n\n', 'id: 4\ndata: [1,\n: note\ndata: 2]\n\n']])
    const { events } = subscribe(fetch)
    await until(() => events.length === 1, 2000, 'the event')
    expect(events).toEqual([{ id: 4, event: 'message', data: [1, 2] }])
  })

  it('reports a frame whose data is not JSON and keeps reading', async () => {
    const { fetch } = scripted([['id: 5\nevent: bad\ndata: {nope\n\n', 'id: 6\nevent: good\ndata: true\n\n']])
    const { events, errors } = subscribe(fetch)
    await until(() => events.length === 1, 2000, 'the good event')
    expect(events).toEqual([{ id: 6, event: 'good', data: true }])
    expect(errors).toContainEqual(expect.objectContaining({ code: 'remote/bad-request', message: 'the event bad carried data that is not JSON' }))
  })

  it('forgets half a frame when the connection drops, and reads the next connection afresh', async () => {
    const { fetch, connections } = scripted([
      ['id: 1\nevent: whole\ndata: 1\n\n', 'id: 2\nevent: half\ndata: {"cut":'],
      ['data: 99\n\n', 'id: 3\nevent: after\ndata: 3\n\n'],
    ])
    const { events, errors, reconnections } = subscribe(fetch)
    await until(() => events.length === 3, 5000, 'the events of both connections')
    expect(connections()).toBeGreaterThanOrEqual(2)
    expect(reconnections()).toBe(1)
    // The next connection's first frame is its own, not the end of the half one.
    expect(events).toEqual([
      { id: 1, event: 'whole', data: 1 },
      { id: Number.NaN, event: 'message', data: 99 },
      { id: 3, event: 'after', data: 3 },
    ])
    expect(errors).toContainEqual(expect.objectContaining({ code: 'remote/unavailable', message: 'the event stream ended' }))
  })
})
