import type { SettingsUndeclaredKey } from 'dsh-settings'
import { fieldId, showPath } from './format.ts'
import type { SettingsSession } from './session.ts'
import { m } from './i18n.ts'

/** Where a key the plugin does not use sits, when it is not in the shown section itself. */
function elsewhere(layer: SettingsUndeclaredKey['layer']): string {
  return layer === 'base' ? m.notUsedBase : m.notUsedGlobal
}

/**
 * The keys the stored settings hold that the plugin's schema does not declare
 * (left over from an earlier version of the plugin, or typed by hand): paths
 * only, never values. Each one the shown section holds can be removed with one
 * path op (`unset`), so nothing else in the section is touched.
 */
export function NotUsedKeys({ session, ns, keys, scoped, disabled }: { session: SettingsSession; ns: string; keys: readonly SettingsUndeclaredKey[]; scoped: boolean; disabled: boolean }) {
  if (!keys.length) return null
  const own = scoped ? 'scope' : 'global'
  const id = `${fieldId(ns, [])}-not-used`
  return (
    <section class="not-used" aria-labelledby={id}>
      <h3 id={id}>{m.notUsed}</h3>
      <p class="field-hint">{m.notUsedText}</p>
      <ul class="not-used-list">
        {keys.map((key) => (
          <li key={`${key.layer}\u0000${key.path.join('\u0000')}`} class="not-used-key">
            <code>{showPath(key.path)}</code>
            {key.layer === own ? (
              <button type="button" class="quiet danger" disabled={disabled} aria-label={m.removeNamed(showPath(key.path))} onClick={() => void session.apply(ns, { type: 'unset', path: key.path })}>
                {m.remove}
              </button>
            ) : (
              <span class="field-hint">{elsewhere(key.layer)}</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}
