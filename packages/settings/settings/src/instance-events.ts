/**
 * What the registry tells the outside when its instances change:
 * `settings/registered` once an instance is listed, `settings/unregistered`
 * once it is not. A surface that keeps a record of the registered kinds (the
 * settings controller's catalog) listens here instead of polling `describe`.
 */
import type { Context, Logger } from 'cordis'
import { emitContained } from './fanout.ts'
import { sectionLabel } from './ids.ts'
import type { Instance } from './registry.ts'

/**
 * Announce that `instance` joined (`present`) or left the registry. Listener
 * failures are logged and contained, an `INVARIANT`-coded one too: the call
 * comes from inside `register` or a disposal, where a throw would undo what
 * the registry already did.
 */
export function announceInstance(ctx: Context, logger: Logger, instance: Instance, present: boolean): void {
  const { ns } = instance.kind
  const { scope } = instance
  const name = present ? 'settings/registered' : 'settings/unregistered'
  const what = sectionLabel(ns, scope)
  const invariants: unknown[] = []
  emitContained(ctx, logger, invariants, name, scope === undefined ? [ns] : [ns, scope], what)
  for (const error of invariants) logger.warn(`settings: a ${name} listener for ${what} failed`, error)
}
