/**
 * The README's curl examples, run verbatim with `bash` against a live server
 * exposing the README's `echo` service (a fresh server per block, so ids
 * start at 1), each compared with the ```text block that follows it. A block
 * that opens the event stream gets `echo.say('hello')` called while it
 * listens, and ends when the server stops.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import { exposeEcho } from './echo.ts'
import { startServer, until, type LiveServer } from './harness.ts'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** Each ```sh block with the ```text block after it (its expected output). */
function examples(markdown: string): Array<{ script: string; expected: string }> {
  const blocks = [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({ lang: match[1]!, body: match[2]! }))
  const pairs: Array<{ script: string; expected: string }> = []
  blocks.forEach((block, index) => {
    if (block.lang !== 'sh') return
    const next = blocks[index + 1]
    if (next?.lang !== 'text') throw new Error(`README: the sh block ${JSON.stringify(block.body)} has no text block after it`)
    pairs.push({ script: block.body, expected: next.body })
  })
  return pairs
}

const servers: LiveServer[] = []
afterEach(async () => {
  for (const live of servers.splice(0)) await live.cleanup()
})

/** Run a script with bash; resolves with its exit code and output. */
function run(script: string, env: Record<string, string>): { done: Promise<{ code: number | null; stdout: string; stderr: string }>; kill(): void } {
  const child = spawn('bash', ['-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
  // Only this child, by its own handle: never anything found by name.
  return { done, kill: () => child.kill() }
}

const found = examples(README)

describe('README curl examples', () => {
  it('has a call, an error and the event stream', () => {
    expect(found.length).toBeGreaterThanOrEqual(3)
    expect(found.some((example) => example.script.includes('/remote/events'))).toBe(true)
    for (const example of found) {
      expect(example.script).toContain('$DSH_URL')
      expect(example.script).toContain('$DSH_TOKEN')
    }
  })

  it.each(found.map((example, index) => [index + 1, example] as const))('example %i runs verbatim and prints what the README says', async (_index, example) => {
    const live = await startServer()
    servers.push(live)
    await live.root.plugin({ inject: ['remoteServer'], apply: exposeEcho })
    const remote = createRemote<{ echo: { say(text: string): Promise<string> } }>({ url: live.url, token: live.token })

    let exited = false
    const child = run(example.script, { DSH_URL: live.url, DSH_TOKEN: live.token })
    const done = child.done.finally(() => (exited = true))
    try {
      await until(() => exited || live.server.streams > 0, 10_000, 'curl to finish or to open the stream')
      if (!exited) {
        // A streaming example: make something happen, then end the stream by stopping the server.
        expect(await remote.echo.say('hello')).toBe('hello')
        await live.stop()
      }
      const result = await done
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout.trimEnd()).toBe(example.expected.trimEnd())
    } finally {
      if (!exited) child.kill()
    }
  })
})
