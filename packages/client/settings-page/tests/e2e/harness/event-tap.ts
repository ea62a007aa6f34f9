/**
 * A second reader of a deployment's event stream (`/remote/events`) that keeps
 * every byte it is sent: the same broadcasts the page gets, so a spec can look
 * for a secret in the stream's frames, which the browser's response records
 * cannot hold (a stream's body never ends).
 */

/** The stream's text so far, and how to close it. */
export interface EventTap {
  /** Every byte received so far, as text (all frames, in order). */
  text(): string
  /** Close the stream. Calling it again does nothing. */
  stop(): void
}

/**
 * Open the event stream of the remote server at `url` with its bearer
 * `token`; resolves once the server answered. The spec must `stop()` it
 * before the deployment is disposed.
 * @throws {Error} when the server refuses the stream (its status is named).
 */
export async function tapEvents(url: string, token: string): Promise<EventTap> {
  const abort = new AbortController()
  const response = await fetch(`${url}/remote/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal })
  if (!response.ok || !response.body) {
    abort.abort()
    throw new Error(`the event stream answered ${response.status}`)
  }
  let text = ''
  const decoder = new TextDecoder()
  const reader = response.body.getReader()
  // Reading ends when the stream is aborted or the server closes it; either is the end of the record.
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      text += decoder.decode(value, { stream: true })
    }
  })().catch(() => undefined)
  return { text: () => text, stop: () => abort.abort() }
}
