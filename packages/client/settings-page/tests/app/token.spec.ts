import { describe, expect, it } from 'vitest'
import { fieldId, layerName, showPath, showValue } from '../../src/app/format.ts'
import { takeToken, TOKEN_KEY, type TokenSites } from '../../src/app/token.ts'

function sites(hash: string, stored?: string) {
  const storage = new Map<string, string>(stored === undefined ? [] : [[TOKEN_KEY, stored]])
  const urls: string[] = []
  const site: TokenSites = {
    location: { hash, pathname: '/', search: '?x=1' },
    history: { replaceState: (_data, _unused, url) => void urls.push(String(url)) },
    storage: { getItem: (key) => storage.get(key) ?? null, setItem: (key, value) => void storage.set(key, value) },
  }
  return { site, storage, urls }
}

describe('takeToken', () => {
  it('moves the fragment token into session storage and clears it from the address', () => {
    const { site, storage, urls } = sites('#token=abc-123')
    expect(takeToken(site)).toBe('abc-123')
    expect(storage.get(TOKEN_KEY)).toBe('abc-123')
    expect(urls).toEqual(['/?x=1'])
  })

  it('keeps the other fragment parameters', () => {
    const { site, urls } = sites('#token=t&scope=preset%2Fcoder')
    expect(takeToken(site)).toBe('t')
    expect(urls).toEqual(['/?x=1#scope=preset%2Fcoder'])
  })

  it('prefers a fresh fragment over the stored token', () => {
    const { site, storage } = sites('#token=new', 'old')
    expect(takeToken(site)).toBe('new')
    expect(storage.get(TOKEN_KEY)).toBe('new')
  })

  it('falls back to the stored token after a reload, touching no address', () => {
    const { site, urls } = sites('', 'kept')
    expect(takeToken(site)).toBe('kept')
    expect(urls).toEqual([])
  })

  it('answers undefined with no token anywhere', () => {
    expect(takeToken(sites('#other=1').site)).toBeUndefined()
  })
})

describe('display helpers', () => {
  it('makes distinct, selector-safe ids for distinct paths', () => {
    const ids = [fieldId('a', ['b.c']), fieldId('a', ['b', 'c']), fieldId('a.b', ['c']), fieldId('a', ['b c'])]
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it('shows paths with list positions counted from one', () => {
    expect(showPath(['mirrors', '0', 'url'])).toBe('mirrors › 1 › url')
    expect(showPath([])).toBe('the whole section')
  })

  it('shortens long values and names layers', () => {
    expect(showValue('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`)
    expect(showValue({ a: 1 })).toBe('{"a":1}')
    expect(layerName('scope', true)).toBe('set in this scope')
    expect(layerName('global', true)).toBe('inherited from the global settings')
    expect(layerName('global', false)).toBe('set in the settings file')
    expect(layerName(undefined, false)).toBe('from the schema default')
  })
})
