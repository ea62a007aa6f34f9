/**
 * One secret-scan case: register a generated schema (globally, and in
 * `preset/x` when scoped), then set a fresh secret at its leaf by every way in:
 * wire update, mutate (leaf and field) and replace, an in-process update, a
 * hand edit of the YAML file, a `validate` and a `watch` callback that throw
 * quoting the whole value, a schema refusal and a conflict carrying the
 * secret; then switch every union's branch. Every answer, error and log line
 * this produces is what the scan searches.
 */
import { randomBytes } from 'node:crypto'
import { rename, writeFile } from 'node:fs/promises'
import { inspect } from 'node:util'
import { formatLogValue } from 'dsh-loader'
import { sleep } from './harness.ts'
import { freshNumber, freshSecret, type SecretSchema } from './secret-schemas.ts'
import type { SecretLedger } from './secret-search.ts'
import type { Stack } from './stack.ts'
import { parseDocument } from './yaml.ts'

/** What a case produced besides the stack's own records. */
export interface CaseRecord {
  /**
   * What callers saw besides wire answers: every error a call threw, as text a caller could print
   * (inspection, message, stack, causes, own fields), and every in-process redacted describe.
   */
  texts: { surface: string; text: string }[]
  /** Values set (each a fresh secret). */
  set: number
  handEdits: number
  /** Ways in that did not do what they should (a write refused, a hand edit never picked up): coverage lost, reported. */
  misses: string[]
}

/** How long a hand edit may take to be published by the provider's watcher. */
const PICKUP_MS = 4000

/**
 * Register `secrets` under `ns` (and `preset/x`) with the owner hooks that quote the value when its
 * note says so: `validate` on `REFUSE`, `watch` on `WATCH` (a `settings/updated` listener on `EVENT` is the scan's).
 */
export async function registerSecretKind(stack: Stack, ns: string, secrets: SecretSchema, ledger: SecretLedger): Promise<{ scope: string | undefined; dispose(): Promise<void> }> {
  const scope = secrets.plan.scoped ? 'preset/x' : undefined
  const validate = (value: { note?: string }) => {
    // The owner's check quotes the whole value: the seam must scrub it before it reaches any surface.
    if (value.note === 'REFUSE') throw new Error(`refusing ${JSON.stringify(value)}`)
  }
  let base: Record<string, unknown> | undefined
  if (secrets.plan.withBase) {
    const secret = secrets.plan.leaf === 'number' ? freshNumber() : freshSecret()
    base = secrets.section(secret)
    ledger.add(secret, { schema: secrets.label, setBy: 'base layer', path: secrets.leafPath.join('.') })
  }
  for (const secret of secrets.builtIn) ledger.add(secret, { schema: secrets.label, setBy: 'schema default', path: secrets.leafPath.join('.') })
  const options = { validate, ...(base ? { base } : {}) }
  // The owner's watcher quotes the whole value when it throws: the log line must not carry it.
  const watcher = (next: { note?: string }) => {
    if (next.note === 'WATCH') throw new Error(`watcher cannot take ${JSON.stringify(next)}`)
  }
  const fibers = [await stack.register(ns, secrets.schema, options)]
  if (scope) fibers.push(await stack.register(ns, secrets.schema, options, scope))
  for (const { handle } of fibers) handle.watch(watcher as (next: unknown) => void)
  return { scope, dispose: async () => void (await Promise.all(fibers.map(({ fiber }) => fiber.dispose()))) }
}

/** Run every way in for one registered kind; see the module comment. */
export async function runSecretCase(stack: Stack, ns: string, secrets: SecretSchema, scope: string | undefined, ledger: SecretLedger): Promise<CaseRecord> {
  const record: CaseRecord = { texts: [], set: 0, handEdits: 0, misses: [] }
  const { remote, settings } = stack
  const leafPath = secrets.leafPath.join('.')
  /** A fresh secret of the leaf's type, or (`wrongType`) of the other type, which the schema refuses. */
  const fresh = (setBy: string, path = leafPath, wrongType = false) => {
    const secret = (secrets.plan.leaf === 'number') !== wrongType ? freshNumber() : freshSecret()
    ledger.add(secret, { schema: secrets.label, setBy, path })
    record.set++
    return secret
  }
  const describe = async () => {
    await remote.settings.describe(scope).catch((error: unknown) => void keepError(record, 'wire describe error', error))
    // The in-process redacted read is what every wire surface starts from.
    record.texts.push({ surface: 'in-process describe({ redactSecrets: true })', text: JSON.stringify(settings.describe({ redactSecrets: true, scope })) })
  }
  const expect = async (what: string, run: () => Promise<unknown>, refused: boolean) => {
    try {
      await run()
      if (refused) record.misses.push(`${what} was accepted, expected a refusal (${secrets.label})`)
    } catch (error) {
      keepError(record, `${what} error`, error)
      if (!refused) record.misses.push(`${what} was refused: ${error instanceof Error ? error.message.slice(0, 160) : String(error)} (${secrets.label})`)
    }
    await describe()
  }
  await expect('wire update', () => remote.settings.update(ns, secrets.section(fresh('wire update')), null, scope), false)
  await expect('wire mutate (leaf)', () => remote.settings.mutate(ns, [{ op: 'set', path: secrets.leafPath, value: fresh('wire mutate') }], null, scope), false)
  await expect('wire mutate (field)', () => remote.settings.mutate(ns, [{ op: 'set', path: secrets.top.path, value: secrets.top.value(fresh('wire mutate', secrets.top.path.join('.'))) }], null, scope), false)
  await expect('wire replace', () => remote.settings.replace(ns, secrets.section(fresh('wire replace')), null, scope), false)
  await expect('in-process update', () => settings.update(ns, secrets.section(fresh('in-process update')), undefined, scope), false)
  // A scope no plugin registered under is described from the kind alone: its section must be redacted all the same.
  await expect('wire update (unregistered scope)', () => remote.settings.update(ns, secrets.section(fresh('wire update into a scope nobody registered')), null, 'preset/nobody'), false)
  await remote.settings.describe('preset/nobody').catch((error: unknown) => void keepError(record, 'wire describe error', error))
  await expect('validate refusal (wire)', () => remote.settings.update(ns, secrets.section(fresh('wire update refused by validate'), 'REFUSE'), null, scope), true)
  await expect('validate refusal (in-process)', () => settings.update(ns, secrets.section(fresh('in-process update refused by validate'), 'REFUSE'), undefined, scope), true)
  await expect('schema refusal (wire)', () => remote.settings.update(ns, { ...secrets.section(fresh('wire update refused by the schema')), count: -1 }, null, scope), true)
  // schemastery's own messages quote the value they refuse ("expected number but got …"): the seam's must not.
  await expect('wrong type (wire mutate)', () => remote.settings.mutate(ns, [{ op: 'set', path: secrets.leafPath, value: fresh('wire mutate of the wrong type', leafPath, true) }], null, scope), true)
  await expect('conflict (wire)', () => remote.settings.update(ns, secrets.section(fresh('wire update with a stale revision')), 1, scope), true)
  await expect('watcher throws (wire update)', () => remote.settings.update(ns, secrets.section(fresh('wire update seen by a throwing watcher'), 'WATCH'), null, scope), false)
  await expect('listener throws (wire update)', () => remote.settings.update(ns, secrets.section(fresh('wire update seen by a throwing listener'), 'EVENT'), null, scope), false)
  let secret = fresh('hand edit')
  await handEdit(stack, ns, scope, secrets.section(secret), String(secret), record, 'accepted')
  await describe()
  secret = fresh('hand edit refused by validate')
  await handEdit(stack, ns, scope, secrets.section(secret, 'REFUSE'), String(secret), record, 'owner')
  await describe()
  secret = fresh('hand edit of the wrong type', leafPath, true)
  await handEdit(stack, ns, scope, secrets.section(secret), String(secret), record, 'schema')
  await describe()
  // A union switched to the branch that does not know the secret's key: the key stays in the stored value.
  if (secrets.unions.length) {
    await expect('wire update before the switch', () => remote.settings.replace(ns, secrets.section(fresh('wire replace, then a union switch')), null, scope), false)
    for (const path of secrets.unions) {
      await expect('union switch (wire mutate)', () => remote.settings.mutate(ns, [{ op: 'set', path: [...path, 'kind'], value: 'b' }], null, scope), false)
    }
  }
  return record
}

/** Keep a thrown error as a caller would see or print it: its inspection, the deployment's log format, and its JSON. */
function keepError(record: CaseRecord, surface: string, error: unknown): void {
  let json = ''
  try {
    json = JSON.stringify(error)
  } catch {}
  record.texts.push({ surface, text: `${inspect(error, { depth: 6 })}\n${formatLogValue(error)}\n${json}` })
}

/**
 * Edit the section in the YAML file as an editor would (temp file, rename), then wait for the provider to
 * publish it: `accepted`, the owner's value holds the secret; `owner` or `schema`, describe reports the
 * section as not in effect, refused by the owner's check (a problem at the section) or by the schema (at a field).
 */
async function handEdit(stack: Stack, ns: string, scope: string | undefined, section: Record<string, unknown>, secret: string, record: CaseRecord, expected: 'accepted' | 'owner' | 'schema'): Promise<void> {
  const document = parseDocument(await stack.readDocument())
  document.setIn(scope ? ['scopes', scope, ns] : [ns], section)
  const temp = `${stack.file}.${randomBytes(4).toString('hex')}.edit`
  await writeFile(temp, document.toString(), { mode: 0o600 })
  await rename(temp, stack.file)
  record.handEdits++
  const deadline = Date.now() + PICKUP_MS
  while (Date.now() < deadline) {
    const problem = stack.settings.describe({ scope }).find((view) => view.ns === ns)?.problem
    if (expected === 'accepted' ? JSON.stringify(stack.settings.get(ns, scope)).includes(secret) : problem && (problem.path.length > 0) === (expected === 'schema')) return
    await sleep(25)
  }
  record.misses.push(`hand edit (${expected}) not picked up within ${PICKUP_MS} ms (${ns})`)
}
