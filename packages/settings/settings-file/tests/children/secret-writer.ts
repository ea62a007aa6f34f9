/**
 * Usage: secret-writer.ts <file> <secrets mode> <value> [step]
 * Boots a file provider on <file> with `secrets: <mode>`, registers `web-search` (apiKey: a secret) and
 * writes apiKey = <value>. With <step> (a `FileStep`), the process SIGKILLs itself when the document write
 * reaches it (the secret is already in the store then). Prints one line `@@result {…}`: the value the
 * plugin reads, or the start's error (name, code, message), never anything else.
 */
import { Context } from 'cordis'
import Schema from 'schemastery'
import type { FileStep } from '../../src/provider/provider.ts'
import { probedProvider } from '../probed.ts'

const [file, mode, value, step] = process.argv.slice(2)
const print = (result: unknown) => process.stdout.write(`@@result ${JSON.stringify(result)}\n`)
const root = new Context()
try {
  const Provider = probedProvider(step ? { [step as FileStep]: () => void process.kill(process.pid, 'SIGKILL') } : {})
  await root.plugin(Provider, { path: file, watch: false, editorSchema: false, secrets: mode as 'file' }).await()
  let read!: () => unknown
  let write!: () => Promise<void>
  await root.inject(['settings'], (ctx) => {
    const handle = ctx.settings.register('web-search', Schema.object({ engine: Schema.string().default('bing'), apiKey: Schema.string().role('secret') }))
    read = () => handle.get().apiKey
    write = () => handle.update({ apiKey: value! })
  })
  const before = read()
  await write()
  print({ before, after: read() })
} catch (error) {
  const { name, code, message } = error as Record<string, unknown>
  print({ error: { name, code, message } })
}
process.exit(0)
