import type { Context, Logger } from 'cordis'
import type { SectionKey } from './document.ts'
import { emitContained, Inflight } from './fanout.ts'
import { sectionLabel } from './ids.ts'
import type { Instance } from './registry.ts'
import { scrubbedError, secretTexts } from './scrub.ts'
import type { SettingsUpdateSource } from './types.ts'

/**
 * What a commit tells the outside: `settings/document-updated` for a raw
 * section's new revision, then each changed value to its instance's watchers
 * and to `settings/updated` listeners. Listener failures are contained (see
 * `emitContained`); watcher calls are tracked so a stop can wait for them.
 */
export class SettingsEvents {
  /** Watcher calls not yet finished, over every instance. */
  readonly inflight = new Inflight()

  constructor(
    private readonly ctx: Context,
    private readonly logger: Logger,
    /** Whether a queued watcher call may still start (the service has not begun stopping). */
    private readonly running: () => boolean,
  ) {}

  /** Announce a raw section's new revision. */
  sectionChanged(key: SectionKey, revision: number, invariants: unknown[]): void {
    const args = key.scope === undefined ? [key.ns, revision] : [key.ns, revision, key.scope]
    emitContained(this.ctx, this.logger, invariants, 'settings/document-updated', args, sectionLabel(key.ns, key.scope))
  }

  /** Hand an instance's new value to its watchers, then to `settings/updated` listeners. */
  valueChanged(instance: Instance, next: unknown, prev: unknown, source: SettingsUpdateSource, invariants: unknown[]): void {
    const { ns } = instance.kind
    const { scope } = instance
    for (const watcher of instance.watchers) {
      const run = watcher.enqueue(next, prev, () => instance.alive && this.running())
      this.inflight.track(run)
      instance.inflight.track(run)
    }
    const args = scope === undefined ? [ns, next, prev, source] : [ns, next, prev, source, scope]
    // A listener's error may quote the values it was handed: their secrets are cut out before it is logged.
    const secrets = () => secretTexts(instance.kind.redactor, [next, prev])
    emitContained(this.ctx, this.logger, invariants, 'settings/updated', args, sectionLabel(ns, scope), (error) => scrubbedError(error, secrets()))
  }
}
