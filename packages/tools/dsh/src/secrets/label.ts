/**
 * Each described secret slot a reference holds, labelled as a host's describe
 * labels it (`source`, `reference`): for a command with no host running. Kept
 * apart from the resolution so a read that finds no reference loads nothing more.
 */
import type { RedactedSecret, SettingsNamespaceView } from 'dsh-settings'
import type { HeldReference } from './references.ts'

/** The reference held at `path` of the section `ns` under `scope` (the global section when absent), if any. */
export function referenceAt(held: readonly HeldReference[], ns: string, scope: string | undefined, path: readonly string[]): HeldReference | undefined {
  return held.find((place) => place.ns === ns && place.scope === scope && place.path.length === path.length && place.path.every((key, index) => key === path[index]))
}

/** `view` with each set secret of a stored section that a reference holds labelled with its source and name. */
export function labelSources(view: SettingsNamespaceView, held: readonly HeldReference[]): SettingsNamespaceView {
  if (!held.length || !view.secrets.length) return view
  const secrets = view.secrets.map((slot): RedactedSecret => {
    if (!slot.set || (slot.layer !== 'global' && slot.layer !== 'scope')) return slot
    const place = referenceAt(held, view.ns, slot.layer === 'scope' ? view.scope : undefined, slot.path)
    return place ? { ...slot, source: place.reference.kind === 'secret' ? 'store' : place.reference.kind, reference: place.reference.name } : slot
  })
  return { ...view, secrets }
}
