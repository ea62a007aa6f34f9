/**
 * Usage: step-killer.ts <file> <ns> <step>
 * Registers <ns> ({ n: natural }) on a file provider whose write steps call a hook, and after `go`
 * updates `n` to 1. At the first time the write reaches <step> (a `FileStep`, e.g. `rename` or
 * `lock:link`), the process SIGKILLs itself: no cleanup, no release, as a crash would leave things.
 * The step `aside` is inside the portable replace (forced with `DSH_SETTINGS_PORTABLE_FS=1`), between
 * setting the document aside and linking the new version in its place: the process dies when it links
 * to the document's name.
 */
import { Context } from 'cordis'
import fs from 'node:fs'
import { basename } from 'node:path'
import Schema from 'schemastery'
import { probedProvider } from '../probed.ts'
import { exitEventually, fail, send, waitForGo } from './protocol.ts'

exitEventually()
const [file, ns, step] = process.argv.slice(2)
if (!file || !ns || !step) fail(new Error('usage: step-killer.ts <file> <ns> <step>'))

if (step === 'aside') {
  // Only the portable path sets the document aside (an exchange never leaves the path empty).
  process.env.DSH_SETTINGS_PORTABLE_FS = '1'
  const link = fs.linkSync
  // The replace links through the module object, so this is the call that would end the document's absence.
  fs.linkSync = (from, to) => {
    if (basename(String(to)) === basename(file!)) process.kill(process.pid, 'SIGKILL')
    return link(from, to)
  }
}

try {
  const root = new Context()
  const Provider = probedProvider({ [step!]: () => void process.kill(process.pid, 'SIGKILL') })
  await root.plugin(Provider, { path: file, watch: false, lockTimeoutMs: 10_000 })
  let update!: () => Promise<void>
  await root.inject(['settings'], (ctx) => {
    const handle = ctx.settings.register(ns!, Schema.object({ n: Schema.natural().default(0) }))
    update = () => handle.update({ n: 1 })
  })
  send('ready')
  await waitForGo()
  await update()
  send('result', { pid: process.pid, reached: false })
} catch (error) {
  fail(error)
}
