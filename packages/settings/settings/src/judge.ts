import type { SectionKey, SectionSource } from './document.ts'
import { layersAt } from './layers.ts'
import { readerOf } from './migrations.ts'
import type { Instance, Kind } from './registry.ts'
import { resolveKind } from './resolve.ts'

/** What resolving one instance against a document gave: its value, or why it did not resolve. */
export type Judgment = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

/**
 * Resolve one site (an instance, or the kind alone under `scope` where no
 * instance lives) against `doc`, without throwing.
 */
export function judgeSite(kind: Kind, instance: Instance | undefined, scope: string | undefined, doc: SectionSource): Judgment {
  try {
    return { ok: true, value: resolveKind(kind, layersAt(doc, { ns: kind.ns, scope, base: instance?.base, read: readerOf(kind) }), scope) }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * Judge a document a write would produce: resolve every value the written
 * section feeds (each instance of the kind for a global section, the scope's
 * instance for a scoped one, and the kind alone where the written scope has no
 * instance), once each. A value that fails is the write's fault unless it
 * already failed against `prev`: then the instance keeps its last good value.
 * @returns each instance's judgment, to commit without resolving again.
 * @throws the first refusal the write caused.
 */
export function judgeWrite(kind: Kind, key: SectionKey, next: SectionSource, prev: SectionSource): Map<Instance, Judgment> {
  const sites: [Instance | undefined, string | undefined][] = []
  if (key.scope === undefined) {
    for (const instance of kind.instances.values()) sites.push([instance, instance.scope])
    if (!kind.instances.has('')) sites.push([undefined, undefined])
  } else {
    sites.push([kind.instances.get(key.scope), key.scope])
  }
  const judged = new Map<Instance, Judgment>()
  for (const [instance, scope] of sites) {
    const judgment = judgeSite(kind, instance, scope, next)
    // Only a failure needs the earlier document: it tells the write's fault from an old one.
    if (!judgment.ok && judgeSite(kind, instance, scope, prev).ok) throw judgment.error
    if (instance) judged.set(instance, judgment)
  }
  return judged
}
