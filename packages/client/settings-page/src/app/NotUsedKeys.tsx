import type { SettingsUndeclaredKey } from 'dsh-settings'
import { fieldId, showPath } from './format.ts'
import type { SettingsSession } from './session.ts'

/** Where a key the plugin does not use sits, when it is not in the shown section itself. */
function elsewhere(layer: SettingsUndeclaredKey['layer']): string {
  return layer === 'base' ? 'in the deployment file (cordis.yml); remove it there' : 'in the global settings; remove it there'
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
      <h3 id={id}>Not used by this plugin</h3>
      <p class="field-hint">
        The stored settings hold these keys, but this plugin does not declare them: left over from an earlier version, or typed by hand. Their values are kept and never
        shown here.
      </p>
      <ul class="not-used-list">
        {keys.map((key) => (
          <li key={`${key.layer}\u0000${key.path.join('\u0000')}`} class="not-used-key">
            <code>{showPath(key.path)}</code>
            {key.layer === own ? (
              <button type="button" class="quiet danger" disabled={disabled} aria-label={`Remove ${showPath(key.path)}`} onClick={() => void session.apply(ns, { type: 'unset', path: key.path })}>
                Remove
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
