import type { SearchQuery } from '../model/index.ts'
import type { SettingsSession } from './session.ts'
import { m, showNumber } from './i18n.ts'

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
    <div class="search-bar" role="search" aria-label={m.settings}>
      <div class="search-box">
        <label for="search-text">{m.searchLabel}</label>
        <input
          id="search-text"
          type="search"
          autocomplete="off"
          spellcheck={false}
          placeholder={m.searchPlaceholder}
          aria-describedby="search-hint"
          value={query.text}
          onInput={(event) => session.setSearch({ ...query, text: event.currentTarget.value })}
        />
      </div>
      <div class="search-modified">
        <input id="search-modified" type="checkbox" checked={query.modified} aria-describedby="search-modified-hint" onChange={(event) => session.setSearch({ ...query, modified: event.currentTarget.checked })} />
        <label for="search-modified">{m.modifiedOnly}</label>
        <p id="search-modified-hint" class="field-hint">
          {m.modifiedHint(scoped)}
        </p>
      </div>
      <div class="search-summary">
        <p id="search-hint" class="search-result" aria-live="polite">
          {tally
            ? tally.shown === 0
              ? m.nothingMatches(text, query.modified)
              : m.showing(showNumber(tally.shown), showNumber(tally.total), tally.total === 1)
            : ''}
        </p>
        {tally && (
          <button type="button" class="quiet" onClick={() => session.setSearch({ text: '', modified: false })}>
            {m.clearSearch}
          </button>
        )}
      </div>
    </div>
  )
}
