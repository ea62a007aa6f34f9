/**
 * Usage: lock-holder.ts <lock path> <document path>
 * Takes the document lock, reports `@@ready`, then holds it; it releases the lock and exits
 * by itself after 30 s if nobody kills it first.
 */
import { acquireLock } from '../../src/store/lock.ts'
import { exitEventually, fail, send } from './protocol.ts'

exitEventually()
const [lockPath, file] = process.argv.slice(2)
if (!lockPath || !file) fail(new Error('usage: lock-holder.ts <lock path> <document path>'))

try {
  const lock = await acquireLock(lockPath, { timeoutMs: 10_000, file })
  send('ready', { pid: process.pid })
  setTimeout(() => {
    void lock.release().then(() => process.exit(0), fail)
  }, 30_000)
} catch (error) {
  fail(error)
}
