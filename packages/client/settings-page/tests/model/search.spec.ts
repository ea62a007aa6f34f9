import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { fieldAt, fieldShown, flatten, hashWithSearch, isModified, isSearching, NO_SEARCH, sameSearch, searchForm, searchFromHash, type FormMatch, type FormModel, type SearchQuery } from '../../src/model/index.ts'
import { deploy, type Deployment } from './harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing').description('Search engine.'),
  limit: Schema.natural().default(10).description('Results per query.'),
  filters: Schema.object({
    safe: Schema.boolean().default(true),
    region: Schema.string().default('us').description('Region code.'),
  }),
  apiKey: Schema.string().role('secret').description('API key of the engine.'),
  mirrors: Schema.array(Schema.object({ url: Schema.string().role('link'), token: Schema.string().role('secret') })).default([]),
  internal: Schema.string().hidden().description('Never shown.'),
}).description('Web search.')

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

async function formOf(document: Record<string, unknown> = {}, scope?: string): Promise<FormModel> {
  current = await deploy(Search, { document, ...(scope ? { scope } : {}) })
  return current.form(scope)
}

const query = (text: string, modified = false): SearchQuery => ({ text, modified })

/** The paths a match shows, as dotted strings, in form order (the root is ''). */
function shownPaths(form: FormModel, match: FormMatch | undefined): string[] {
  return flatten(form.root)
    .filter((field) => fieldShown(match, field.path))
    .map((field) => field.path.join('.'))
}

describe('searchForm: text', () => {
  it('finds a field by its key, case-insensitively, with the groups around it', async () => {
    const form = await formOf()
    const match = searchForm(form, query('LIMIT'))
    expect(shownPaths(form, match)).toEqual(['', 'limit'])
    expect(match?.count).toBe(1)
  })

  it('finds a field by its description, and a nested one inside its group', async () => {
    const form = await formOf()
    expect(shownPaths(form, searchForm(form, query('results per')))).toEqual(['', 'limit'])
    expect(shownPaths(form, searchForm(form, query('region code')))).toEqual(['', 'filters', 'filters.region'])
  })

  it('shows everything in a group whose own key matches', async () => {
    const form = await formOf()
    expect(shownPaths(form, searchForm(form, query('filter')))).toEqual(['', 'filters', 'filters.safe', 'filters.region'])
  })

  it('shows a whole list when something inside it matches, the blank item of an empty list included', async () => {
    const form = await formOf({ demo: { mirrors: [{ url: 'https://a.example', token: 't' }] } })
    const match = searchForm(form, query('url'))
    expect(shownPaths(form, match)).toEqual(['', 'mirrors', 'mirrors.0', 'mirrors.0.url', 'mirrors.0.token'])
    const empty = await formOf()
    expect(shownPaths(empty, searchForm(empty, query('token')))).toEqual(['', 'mirrors'])
  })

  it('shows the whole section when the namespace name (or its description) matches', async () => {
    const form = await formOf()
    const all = flatten(form.root).filter((field) => !field.hidden).map((field) => field.path.join('.'))
    expect(shownPaths(form, searchForm(form, query('DEM')))).toEqual(all)
    expect(shownPaths(form, searchForm(form, query('web search')))).toEqual(all)
  })

  it('hides the section when nothing matches, and never matches a hidden field', async () => {
    const form = await formOf()
    expect(searchForm(form, query('no-such-thing'))).toBeUndefined()
    expect(searchForm(form, query('never shown'))).toBeUndefined()
  })

  it('ignores spaces around the text, and shows everything for an empty query', async () => {
    const form = await formOf()
    expect(shownPaths(form, searchForm(form, query('  limit ')))).toEqual(['', 'limit'])
    expect(searchForm(form, NO_SEARCH)?.count).toBeGreaterThan(0)
    expect(isSearching(NO_SEARCH)).toBe(false)
    expect(isSearching(query('  '))).toBe(false)
    expect(isSearching(query('', true))).toBe(true)
    expect(sameSearch(query(' a '), query('a'))).toBe(true)
    expect(sameSearch(query('a', true), query('a'))).toBe(false)
  })
})

describe('searchForm: modified', () => {
  it('shows only what the section sets: plain fields, nested ones, and a secret it holds', async () => {
    const form = await formOf({ demo: { limit: 3, filters: { region: 'eu' }, apiKey: 'sk-1' } })
    expect(shownPaths(form, searchForm(form, query('', true)))).toEqual(['', 'limit', 'filters', 'filters.region', 'apiKey'])
    // A secret is never in the redacted user layer; its slot says which layer set it.
    expect(fieldAt(form, ['apiKey'])?.overridden).toBe(false)
    expect(isModified(fieldAt(form, ['apiKey'])!, false)).toBe(true)
  })

  it('combines with the text: both must hold', async () => {
    const form = await formOf({ demo: { limit: 3, filters: { region: 'eu' } } })
    expect(shownPaths(form, searchForm(form, query('filters', true)))).toEqual(['', 'filters', 'filters.region'])
    expect(searchForm(form, query('engine', true))).toBeUndefined()
    // A matching namespace name still shows only what the section sets.
    expect(shownPaths(form, searchForm(form, query('demo', true)))).toEqual(['', 'limit', 'filters', 'filters.region'])
  })

  it('hides a section that sets nothing', async () => {
    const form = await formOf()
    expect(searchForm(form, query('', true))).toBeUndefined()
  })

  it('in a named scope, counts only what the scope itself sets', async () => {
    const form = await formOf({ demo: { limit: 3, apiKey: 'global-key' }, scopes: { 'preset/coder': { demo: { engine: 'google' } } } }, 'preset/coder')
    expect(shownPaths(form, searchForm(form, query('', true)))).toEqual(['', 'engine'])
    expect(isModified(fieldAt(form, ['apiKey'])!, true)).toBe(false)
  })
})

describe('the search in the address', () => {
  it('reads `q` and `modified` from the fragment and ignores the rest', () => {
    expect(searchFromHash('#q=limit')).toEqual({ text: 'limit', modified: false })
    expect(searchFromHash('#q=api+key&modified=1')).toEqual({ text: 'api key', modified: true })
    expect(searchFromHash('#modified=true&other=x')).toEqual({ text: '', modified: true })
    expect(searchFromHash('')).toEqual(NO_SEARCH)
    expect(searchFromHash('#')).toEqual(NO_SEARCH)
    // A bare anchor holds no parameters.
    expect(searchFromHash('#f-search')).toEqual(NO_SEARCH)
    expect(searchFromHash('#q=%C3%A9t%C3%A9%20%26%20co')).toEqual({ text: 'été & co', modified: false })
  })

  it('writes the query, keeping the other parameters and dropping a bare anchor', () => {
    expect(hashWithSearch('', query('limit'))).toBe('#q=limit')
    expect(hashWithSearch('', query('api key', true))).toBe('#q=api+key&modified=1')
    expect(hashWithSearch('#q=old&modified=1', query('', false))).toBe('')
    expect(hashWithSearch('#scope=preset%2Fcoder&q=old', query('new'))).toBe('#scope=preset%2Fcoder&q=new')
    expect(hashWithSearch('#f-search', query('x'))).toBe('#q=x')
    expect(hashWithSearch('', query('a&b=c'))).toBe('#q=a%26b%3Dc')
  })

  it('round-trips every query', () => {
    for (const sample of [query('limit'), query('api key', true), query('', true), query('a&b=c #x'), NO_SEARCH]) {
      expect(searchFromHash(hashWithSearch('', sample))).toEqual(sample)
    }
  })
})
