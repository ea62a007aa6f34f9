/**
 * Usage: writer.ts <file> <index> <keys> <lockTimeoutMs> <pauseMs> <safetyMs>
 *
 * A settings writer of the torture: boots the file provider on <file> and
 * registers `w-<index>` (keys k0…k<keys-1>) and `shared` (key w<index>). Every
 * key has this writer alone, and each write sets one key to one more than its
 * last value, so values only grow. Prints:
 * - `start <key> <value>` per key: the value found in the document at boot (a
 *   restarted writer continues above it);
 * - `ready` once it writes;
 * - `ack <key> <value>` for every awaited `update()` that resolved;
 * - `fail <code> <message>` for every one that rejected;
 * - `done` after `stop` (or stdin closing), once the provider is disposed.
 */
import { Context } from 'cordis'
import Schema from 'schemastery'
import FileSettingsProvider from 'dsh-settings-file'
import { between, emit, errorCode, exitEventually, fail, sleep, stopSignal } from './common.ts'

const [file, indexText, keysText, lockTimeoutText, pauseText, safetyText] = process.argv.slice(2)
if (!file || !indexText || !keysText || !lockTimeoutText || !pauseText || !safetyText) fail(new Error('usage: writer.ts <file> <index> <keys> <lockTimeoutMs> <pauseMs> <safetyMs>'))
exitEventually(Number(safetyText))
const { stopping, stopped } = stopSignal()

const index = Number(indexText)
const own = `w-${index}`
const Section = Schema.object({ k: Schema.dict(Schema.natural()) })
/** Every key this writer owns: [namespace, key in `k`]. */
const keys: [string, string][] = [...Array.from({ length: Number(keysText) }, (_, i): [string, string] => [own, `k${i}`]), ['shared', `w${index}`]]

try {
  const root = new Context()
  const fiber = root.plugin(FileSettingsProvider, { path: file, watch: false, lockTimeoutMs: Number(lockTimeoutText) })
  await fiber
  let ctx!: Context
  await root.inject(['settings'], (inner) => {
    ctx = inner
    inner.settings.register(own, Section)
    inner.settings.register('shared', Section)
  })
  const last = new Map<string, number>()
  for (const [ns, key] of keys) {
    const value = (ctx.settings.get(ns) as { k?: Record<string, number> }).k?.[key] ?? 0
    last.set(`${ns}/${key}`, value)
    emit('start', `${ns}/${key}`, value)
  }
  emit('ready')
  for (let turn = 0; !stopping(); turn++) {
    const [ns, key] = keys[turn % keys.length]!
    const id = `${ns}/${key}`
    // One more than the last value tried, written or not: each key's values only ever grow.
    const value = last.get(id)! + 1
    last.set(id, value)
    try {
      await ctx.settings.update(ns, { k: { [key]: value } })
      emit('ack', id, value)
    } catch (error) {
      emit('fail', errorCode(error), JSON.stringify(error instanceof Error ? error.message : String(error)))
    }
    const pause = between(0, Number(pauseText))
    if (pause) await Promise.race([sleep(pause), stopped])
  }
  await fiber.dispose()
  emit('done')
  process.exit(0)
} catch (error) {
  fail(error)
}
