/**
 * Real-files stages about what stands at the document path: something that is
 * not a regular file (a FIFO, a directory, a socket, a device), at boot or
 * swapped in while the host runs; a root that is tagged (`--- !!set`) or not a
 * map, at boot or swapped in; and the editor schema after the host stops.
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFile, rename, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { StageContext } from './real-files-context.ts'
import { killOnExit, type FilesHost } from './real-files-host.ts'
import { baseDocument, documentSecrets, limitLine, lostBytes, readRegular } from './real-files-judge.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** How long `pnpm settings check` may take on a document that is not a regular file. */
const CHECK_MS = 20_000

/** What a stage can put at the document path instead of a regular file. */
type Odd = 'fifo' | 'directory' | 'socket' | 'device'
const ODD_KINDS: readonly Odd[] = ['fifo', 'directory', 'socket', 'device']

/**
 * Put `kind` at `path`. A socket is a listening server of this process (closed
 * by the returned function); a device is `/dev/null`'s (1, 3). `undefined` when
 * this machine cannot make it (mknod refused).
 */
function makeOdd(c: StageContext, kind: Odd, path: string): (() => Promise<void>) | undefined {
  try {
    if (kind === 'fifo') execFileSync('mkfifo', ['-m', '600', path], { stdio: 'ignore' })
    else if (kind === 'device') execFileSync('mknod', ['-m', '600', path, 'c', '1', '3'], { stdio: 'ignore' })
    else if (kind === 'directory') execFileSync('mkdir', ['-m', '700', path], { stdio: 'ignore' })
    else {
      const server: Server = createServer()
      server.listen(path)
      return () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => rm(path, { force: true }))
    }
  } catch {
    c.tally.unstaged.add(`${kind} (this machine refused to make one)`)
    return undefined
  }
  return () => rm(path, { recursive: true, force: true })
}

/** Wait `ms`. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A describe that must be answered: the host must keep serving. */
async function stillServing(c: StageContext, host: FilesHost): Promise<boolean> {
  return (await c.call(host, 'describe', [])).kind !== 'wedged'
}

/** A write that must be refused, clearly: never acknowledged, never `internal`. Resolves whether the host answered. */
async function mustRefuse(c: StageContext, host: FilesHost, limit: number, what: string): Promise<boolean> {
  const result = await c.mutate(host, 'web-search', [{ op: 'set', path: ['limit'], value: limit }])
  if (result.kind === 'value') c.wrong(`a write over ${what} was acknowledged`)
  else if (result.kind === 'error' && result.code === 'internal') c.wrong(`a write over ${what} failed as 'internal', not a clear refusal`)
  return result.kind !== 'wedged'
}

/** A FIFO (or another kind) swapped in at the document path while the host runs, then taken away again. */
export async function oddSwappedIn(c: StageContext): Promise<void> {
  const kind = c.pick(ODD_KINDS)
  c.variant = kind
  const text = baseDocument(documentSecrets(c.tally.sentinels))
  const { deploy, file } = await c.deployment(text)
  const host = await c.host({ file, home: deploy })
  if (c.upright(host) && (await c.setLimit(host, 11))) {
    const kept = readRegular(file) ?? ''
    await rename(file, `${file}.aside`)
    const remove = makeOdd(c, kind, file)
    c.tally.edits++
    // The host must answer at once, refuse a write, and still answer after its watcher and re-check looked.
    let answering = remove !== undefined
    if (answering) await pause(300)
    answering &&= await stillServing(c, host)
    answering &&= await mustRefuse(c, host, 12, `a ${kind}`)
    if (answering) await pause(1200)
    answering &&= await stillServing(c, host)
    await remove?.()
    await rename(`${file}.aside`, file)
    c.tally.edits++
    if (answering) {
      // Back to a regular file: writes land again (the watcher may first reload it).
      let landed = false
      for (let attempt = 0; attempt < 3 && !landed; attempt++) {
        const result = await c.mutate(host, 'web-search', [{ op: 'set', path: ['limit'], value: 13 }])
        landed = result.kind === 'value'
        if (result.kind === 'wedged') break
        if (!landed) await pause(1000)
      }
      if (!landed) c.wrong(`once the ${kind} was gone, writes did not land again`)
      else c.counts.lostBytes += lostBytes(kept, readRegular(file) ?? '', limitLine)
    }
  }
  await c.stop(host)
}

/** A FIFO (or another kind) at the document path when the host boots: refused at once, naming the path; the host serves on. */
export async function oddAtBoot(c: StageContext): Promise<void> {
  const kind = c.pick(ODD_KINDS)
  c.variant = kind
  const { deploy, file } = await c.deployment(undefined)
  const remove = makeOdd(c, kind, file)
  if (!remove) return
  try {
    const host = await c.host({ file, home: deploy })
    if (host.alive()) {
      if (host.provider?.ok) c.wrong(`the provider booted on a ${kind} as if it were a document`)
      else if (host.provider && !host.provider.message.includes(file)) c.wrong(`the refusal of a ${kind} does not name the path: ${host.provider.code} ${host.provider.message}`)
      await stillServing(c, host)
    }
    await c.stop(host)
    if (c.variation === 0) await checkOdd(c, kind, file)
  } finally {
    await remove()
  }
}

/** `pnpm settings check` on a document path holding `kind`: it must end (non-zero), not hang. */
async function checkOdd(c: StageContext, kind: Odd, file: string): Promise<void> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(ROOT, 'packages/tools/dsh/src/bin.ts'), 'settings', 'check', join(ROOT, 'cordis.yml'), file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  killOnExit(child)
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk))
  const code = await new Promise<number | null | 'hung'>((resolve) => {
    const timer = setTimeout(() => resolve('hung'), CHECK_MS)
    child.once('exit', (exit) => {
      clearTimeout(timer)
      resolve(exit)
    })
  })
  if (code === 'hung') {
    c.counts.wedges++
    c.note(`pnpm settings check on a ${kind} did not end in ${CHECK_MS / 1000} s`)
    try {
      process.kill(child.pid!, 'SIGKILL')
      c.tally.kills++
    } catch {}
  } else if (code === 0) c.wrong(`pnpm settings check passed a ${kind}: ${output.trim().slice(-200)}`)
}

/** Roots the provider must refuse as not a map, each as a user might write it. */
const FOREIGN_ROOTS: readonly { name: string; text: string }[] = [
  { name: 'a tagged !!set root', text: '--- !!set\n? web-search\n? assistant\n' },
  { name: 'a sequence root', text: '# a list, not a map\n- web-search\n- assistant\n' },
  { name: 'a scalar root', text: 'just some words\n' },
  { name: 'a tagged !!omap root', text: '--- !!omap\n- web-search: { limit: 5 }\n' },
]

/** A tagged or non-map root swapped in while the host runs: writes refused, nothing written over it. */
export async function foreignRootSwappedIn(c: StageContext): Promise<void> {
  // The canonical run swaps in both kinds the issue names: a tagged root and a root that is not a map.
  const roots = c.variation === 0 ? FOREIGN_ROOTS.slice(0, 2) : [c.pick(FOREIGN_ROOTS)]
  const text = baseDocument(documentSecrets(c.tally.sentinels))
  const { deploy, file } = await c.deployment(text)
  const host = await c.host({ file, home: deploy })
  if (c.upright(host)) {
    for (const root of roots) {
      await c.save(file, root.text)
      // Past the watcher's debounce, so the reload has seen it too.
      await pause(400)
      const answered = await mustRefuse(c, host, 17, root.name)
      const after = (await readFile(file, 'utf8').catch(() => '')) as string
      if (after !== root.text) {
        const lost = lostBytes(root.text, after, () => false)
        c.counts.lostBytes += lost || 1
        c.note(`${root.name} was written over (${lost} of its bytes gone)`)
      }
      if (!answered) break
      await c.save(file, text)
    }
  }
  await c.stop(host)
}

/** A tagged or non-map root when the host boots: refused at load, and nothing written over it. */
export async function foreignRootAtBoot(c: StageContext): Promise<void> {
  const root = c.pick(FOREIGN_ROOTS)
  c.variant = root.name
  const { deploy, file } = await c.deployment(root.text)
  const host = await c.host({ file, home: deploy })
  if (host.alive() && host.provider?.ok) {
    c.wrong(`the provider loaded ${root.name} instead of refusing it`)
    // What the first write then does to the user's file.
    await mustRefuse(c, host, 18, root.name)
  }
  await c.stop(host)
  const after = await readFile(file, 'utf8')
  if (after !== root.text) {
    c.counts.lostBytes += lostBytes(root.text, after, () => false) || 1
    c.note(`${root.name} present at boot was written over`)
  }
}

/** The namespaces the editor schema beside `file` names, or `undefined` when there is none. */
async function schemaNamespaces(file: string): Promise<string[] | undefined> {
  const text = await readFile(join(file, '..', 'settings.schema.json'), 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  const properties = (JSON.parse(text) as { properties?: Record<string, unknown> }).properties ?? {}
  return Object.keys(properties).filter((key) => key !== 'scopes')
}

/** The host stops (Ctrl-C or SIGTERM), then the user edits the document: the editor schema must still name every namespace. */
export async function stopThenEdit(c: StageContext): Promise<void> {
  const signal = c.pick(['SIGINT', 'SIGTERM'] as const)
  c.variant = signal
  const text = baseDocument(documentSecrets(c.tally.sentinels))
  const { deploy, file } = await c.deployment(text)
  const host = await c.host({ file, home: deploy })
  const expected = ['web-search', 'assistant']
  if (!c.upright(host)) return void (await c.stop(host))
  let named: string[] = []
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await pause(100)) {
    named = (await schemaNamespaces(file)) ?? []
    if (expected.every((ns) => named.includes(ns))) break
  }
  if (!expected.every((ns) => named.includes(ns))) c.note(`while the host ran, the editor schema named only ${JSON.stringify(named)}`)
  await c.stop(host, signal)
  await c.save(file, text.replace(/^(\s*limit:) \d+/m, '$1 15'))
  await pause(200)
  const after = (await schemaNamespaces(file)) ?? []
  const lost = expected.filter((ns) => !after.includes(ns))
  c.counts.schemaLost += lost.length
  if (lost.length) c.note(`after ${signal} and a hand edit, the editor schema no longer names ${lost.join(', ')}`)
}
