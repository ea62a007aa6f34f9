import type { SectionKey, SectionSource } from './document.ts'
import { layersAt } from './layers.ts'
import { readerOf } from './migrations.ts'
import type { Instance, Kind } from './registry.ts'
import { resolveKind } from './resolve.ts'

/** What resolving one instance against a document gave: its value, or why it did not resolve. */
export type ResolveResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

/**
 * Resolve one instance (or the kind alone under `scope`, where no instance
 * lives) against `doc`, without throwing.
 */
export function tryResolve(kind: Kind, instance: Instance | undefined, scope: string | undefined, doc: SectionSource): ResolveResult {
  try {
    return { ok: true, value: resolveKind(kind, layersAt(doc, { ns: kind.ns, scope, base: instance?.base, read: readerOf(kind) }), scope) }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * Resolve every value a written section feeds, against the document the write
 * would produce: each instance of the kind for a global section, the scope's
 * instance for a scoped one, and the kind alone where the written scope has no
 * instance, once each. A value that fails is the write's fault unless it
 * already failed against `prev`: then the instance keeps its last good value.
 * @returns each instance's result, to commit without resolving again.
 * @throws the first refusal the write caused.
 */
export function resolveAfterWrite(kind: Kind, key: SectionKey, next: SectionSource, prev: SectionSource): Map<Instance, ResolveResult> {
  const targets: [Instance | undefined, string | undefined][] = []
  if (key.scope === undefined) {
    for (const instance of kind.instances.values()) targets.push([instance, instance.scope])
    if (!kind.instances.has('')) targets.push([undefined, undefined])
  } else {
    targets.push([kind.instances.get(key.scope), key.scope])
  }
  const resolved = new Map<Instance, ResolveResult>()
  for (const [instance, scope] of targets) {
    const result = tryResolve(kind, instance, scope, next)
    // Only a failure needs the earlier document: it tells the write's fault from an old one.
    if (!result.ok && tryResolve(kind, instance, scope, prev).ok) throw result.error
    if (instance) resolved.set(instance, result)
  }
  return resolved
}
