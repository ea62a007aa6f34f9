/**
 * A plugin waiting for setup is not a failure. dsh-settings' `register` throws
 * `SettingsNeedsSetupError` when a section lacks values no layer gives (an
 * adapter's token), which stops the plugin's own code and fails its fiber
 * until a write gives them; cordis logs every failed fiber as an error with
 * its stack. A deployment's log shows that record as one info line instead:
 * the section and the paths it lacks, no stack.
 */
import type { Logger } from 'cordis'

/** One record as a logger exporter receives it. */
type LogRecord = Parameters<typeof Logger.format>[1]

/** What the loader reads of a `SettingsNeedsSetupError` (told by its stable code; the loader does not depend on dsh-settings). */
export interface WaitingForSetup extends Error {
  code: 'SETTINGS_NEEDS_SETUP'
  ns: string
  missing: string[][]
}

/** Whether `error` is a registration waiting for setup. */
export function isWaitingForSetup(error: unknown): error is WaitingForSetup {
  if (!(error instanceof Error)) return false
  const facts = error as Partial<WaitingForSetup>
  return facts.code === 'SETTINGS_NEEDS_SETUP' && typeof facts.ns === 'string' && Array.isArray(facts.missing)
}

/**
 * `record` as the deployment's log shows it: an error record whose one value
 * is a registration waiting for setup becomes an info line with the error's
 * message (it names the section and each missing path, never a value); any
 * other record is returned as it is.
 */
export function waitingAsInfo(record: LogRecord): LogRecord {
  const [only, ...rest] = record.args
  if (record.type !== 'error' || rest.length || !isWaitingForSetup(only)) return record
  // `%s` keeps a `%` in a key from being read as a format.
  return { ...record, type: 'info', args: ['%s (the plugin waits, and starts once they are given)', only.message] }
}
