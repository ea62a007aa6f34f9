/**
 * What `dsh settings check` warns about without failing: keys a stored
 * section holds that its plugin's schema does not declare (left over from an
 * earlier version of the plugin, or typed by hand), and sections stored at
 * an older version of their plugin's settings, which migrate when the plugin
 * starts. Read from the seam's own descriptors (`undeclared`, `migration`),
 * so the check sees what a running host would.
 */
import type { SettingsDescriptor } from 'dsh-settings'

/** One warning about one stored section, before it has a position. */
export type SectionWarning =
  | { kind: 'undeclared'; ns: string; scope: string | undefined; path: string[] }
  | { kind: 'migrate'; ns: string; scope: string | undefined; from: number; to: number; steps: string[] }

/**
 * The warnings of one descriptor (described under `scope`): its own section's
 * undeclared keys (the global ones are the global descriptor's, and the
 * base's are the deployment file's business), and a migration it is due.
 */
export function descriptorWarnings(descriptor: SettingsDescriptor, scope: string | undefined): SectionWarning[] {
  const own = scope === undefined ? 'global' : 'scope'
  // A loop: a section may hold tens of thousands of undeclared keys.
  const warnings: SectionWarning[] = []
  for (const key of descriptor.undeclared) if (key.layer === own) warnings.push({ kind: 'undeclared', ns: descriptor.ns, scope, path: key.path })
  const migration = descriptor.migration
  if (migration?.state === 'pending') warnings.push({ kind: 'migrate', ns: descriptor.ns, scope, from: migration.stored, to: migration.version, steps: migration.steps })
  return warnings
}

/** A warning's rule, as its output line states it: never a stored value. */
export function warningRule(warning: SectionWarning): string {
  if (warning.kind === 'undeclared') return 'not used by this plugin: its schema declares no such key, so the value is kept but never read (remove it, or move it where the plugin reads it)'
  const steps = warning.steps.length ? ` (${warning.steps.join('; ')})` : ''
  return `stored at version ${warning.from} of the plugin's settings, which is at version ${warning.to}: it migrates when the plugin starts${steps}`
}
