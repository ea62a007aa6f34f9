/** The `sessionStorage` key the bearer token is kept under for the tab's lifetime. */
export const TOKEN_KEY = 'dsh-settings-token'

/** The browser pieces {@link takeToken} touches, so it can be exercised without a page. */
export interface TokenSites {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>
  history: Pick<History, 'replaceState'>
  storage: Pick<Storage, 'getItem' | 'setItem'>
}

/**
 * Read the token from the URL fragment (`#token=…`, as `pnpm start` prints it),
 * keep it in `sessionStorage` and clear it from the address bar, so it does not
 * linger in history or get copied along with the URL. Without a fragment the
 * token a reload of this tab kept is used.
 * @returns the token, or `undefined` when neither place has one.
 */
export function takeToken(sites: TokenSites): string | undefined {
  const fragment = new URLSearchParams(sites.location.hash.replace(/^#/, ''))
  const fromUrl = fragment.get('token')
  if (fromUrl) {
    sites.storage.setItem(TOKEN_KEY, fromUrl)
    fragment.delete('token')
    const rest = fragment.toString()
    sites.history.replaceState(null, '', `${sites.location.pathname}${sites.location.search}${rest ? `#${rest}` : ''}`)
    return fromUrl
  }
  return sites.storage.getItem(TOKEN_KEY) ?? undefined
}
