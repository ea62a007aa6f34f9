import type { SearchQuery } from '../model/index.ts'
import type { SettingsSession } from './session.ts'

/** How many namespaces a search shows, as the bar reports it. */
export interface SearchTally {
  shown: number
  total: number
}

/**
 * The search box and the "Modified only" filter. Both apply as you type or
 * tick; the address keeps them (`#q=…&modified=1`).
 */
export function SearchBar({ session, query, scoped, tally }: { session: SettingsSession; query: SearchQuery; scoped: boolean; tally?: SearchTally | undefined }) {
  const text = query.text.trim()
  return (
    <div class="search-bar" role="search" aria-label="Settings">
      <div class="search-box">
        <label for="search-text">Search settings</label>
        <input
          id="search-text"
          type="search"
          autocomplete="off"
          spellcheck={false}
          placeholder="key, title or description"
          aria-describedby="search-hint"
          value={query.text}
          onInput={(event) => session.setSearch({ ...query, text: event.currentTarget.value })}
        />
      </div>
      <div class="search-modified">
        <input id="search-modified" type="checkbox" checked={query.modified} aria-describedby="search-modified-hint" onChange={(event) => session.setSearch({ ...query, modified: event.currentTarget.checked })} />
        <label for="search-modified">Modified only</label>
        <p id="search-modified-hint" class="field-hint">
          {scoped ? 'Fields this scope sets itself.' : 'Fields the settings file sets.'}
        </p>
      </div>
      <div class="search-summary">
        <p id="search-hint" class="search-result" aria-live="polite">
          {tally
            ? tally.shown === 0
              ? `Nothing matches${text ? ` “${text}”` : ''}${query.modified ? ' among the modified fields' : ''}.`
              : `Showing ${tally.shown} of ${tally.total} ${tally.total === 1 ? 'namespace' : 'namespaces'}.`
            : ''}
        </p>
        {tally && (
          <button type="button" class="quiet" onClick={() => session.setSearch({ text: '', modified: false })}>
            Clear search
          </button>
        )}
      </div>
    </div>
  )
}
