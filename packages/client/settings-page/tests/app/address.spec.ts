import { describe, expect, it } from 'vitest'
import { keepSearchInAddress, searchInAddress, type AddressSites } from '../../src/app/address.ts'
import { takeToken, TOKEN_KEY } from '../../src/app/token.ts'

/** A location and history that behave like the browser's for `replaceState`. */
function browser(hash: string) {
  const location = { hash, pathname: '/', search: '' }
  const written: string[] = []
  const history = {
    replaceState: (_data: unknown, _unused: string, url?: string | URL | null) => {
      const text = String(url)
      written.push(text)
      const at = text.indexOf('#')
      location.hash = at < 0 ? '' : text.slice(at)
    },
  }
  const storage = new Map<string, string>()
  const sites: AddressSites = { location, history }
  const tokenSites = { location, history, storage: { getItem: (key: string) => storage.get(key) ?? null, setItem: (key: string, value: string) => void storage.set(key, value) } }
  return { location, written, sites, tokenSites, storage }
}

describe('the search in the address', () => {
  it('takes the token first and leaves the search in the fragment for the page to read', () => {
    const page = browser('#token=t-1&q=limit&modified=1')
    expect(takeToken(page.tokenSites)).toBe('t-1')
    expect(page.storage.get(TOKEN_KEY)).toBe('t-1')
    expect(page.location.hash).toBe('#q=limit&modified=1')
    expect(searchInAddress(page.sites)).toEqual({ text: 'limit', modified: true })
  })

  it('keeps the query in place, never writing the token back, and clears the fragment for an empty query', () => {
    const page = browser('')
    expect(takeToken(page.tokenSites)).toBeUndefined()
    keepSearchInAddress(page.sites, { text: 'lim', modified: false })
    keepSearchInAddress(page.sites, { text: 'limit', modified: true })
    expect(page.written).toEqual(['/#q=lim', '/#q=limit&modified=1'])
    expect(page.written.join()).not.toContain('token')
    keepSearchInAddress(page.sites, { text: '', modified: false })
    expect(page.written.at(-1)).toBe('/')
    expect(page.location.hash).toBe('')
  })

  it('writes nothing when the address already says the same', () => {
    const page = browser('#q=limit')
    keepSearchInAddress(page.sites, { text: 'limit', modified: false })
    const empty = browser('#')
    keepSearchInAddress(empty.sites, { text: '', modified: false })
    expect([...page.written, ...empty.written]).toEqual([])
  })

  it('survives a reload: the kept fragment and the stored token come back together', () => {
    const first = browser('#token=t-2')
    expect(takeToken(first.tokenSites)).toBe('t-2')
    keepSearchInAddress(first.sites, { text: 'region', modified: false })
    // A reload of the same tab: same address, same session storage.
    const reloaded = browser(first.location.hash)
    for (const [key, value] of first.storage) reloaded.storage.set(key, value)
    expect(takeToken(reloaded.tokenSites)).toBe('t-2')
    expect(reloaded.written).toEqual([])
    expect(searchInAddress(reloaded.sites)).toEqual({ text: 'region', modified: false })
  })
})
