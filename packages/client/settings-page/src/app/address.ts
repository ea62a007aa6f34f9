/**
 * The search kept in the address's fragment (`#q=limit&modified=1`), so a link
 * opens the page filtered and a reload keeps the filter. The token arrives in
 * the fragment too (`#token=…`); {@link takeToken} removes it first, and
 * nothing here ever writes it back.
 */
import { hashWithSearch, searchFromHash, type SearchQuery } from '../model/index.ts'

/** The browser pieces the address helpers touch, so they can be exercised without a page. */
export interface AddressSites {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>
  history: Pick<History, 'replaceState'>
}

/** The search the address asks for (the empty query when it asks for none). */
export function searchInAddress(sites: AddressSites): SearchQuery {
  return searchFromHash(sites.location.hash)
}

/**
 * Put `query` in the address in place (no new history entry, no `hashchange`),
 * leaving the fragment's other parameters as they are. Does nothing when the
 * address already says the same.
 */
export function keepSearchInAddress(sites: AddressSites, query: SearchQuery): void {
  const current = sites.location.hash === '#' ? '' : sites.location.hash
  const next = hashWithSearch(current, query)
  if (next === current) return
  sites.history.replaceState(null, '', `${sites.location.pathname}${sites.location.search}${next}`)
}
