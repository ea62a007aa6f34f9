import { describe, expect, it } from 'vitest'
import { adoptDocument, changedSections, documentWith, getSection, transferToSeam, type SectionKey } from '../src/document.ts'
import type { SettingsDocument } from '../src/types.ts'

/** One section put into a new document. */
const withSection = (doc: SettingsDocument, key: SectionKey, section: unknown) => documentWith(doc, [{ ...key, section }])

/** Freeze a value and everything reachable from it, so any mutation throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

/** Section keys as sortable strings, so assertions do not depend on listing order. */
function ids(keys: SectionKey[]): string[] {
  return keys.map((key) => (key.scope === undefined ? key.ns : `${key.scope} ${key.ns}`)).sort()
}

describe('getSection', () => {
  const doc: SettingsDocument = {
    'ui-theme': { dark: true },
    scopes: { 'preset/coder': { 'ui-theme': { dark: false } } },
  }

  it('reads a global section', () => {
    expect(getSection(doc, 'ui-theme')).toEqual({ dark: true })
  })

  it('reads a scoped section', () => {
    expect(getSection(doc, 'ui-theme', 'preset/coder')).toEqual({ dark: false })
  })

  it('is undefined for an absent section, scope or namespace in a scope', () => {
    expect(getSection(doc, 'web-search')).toBeUndefined()
    expect(getSection(doc, 'ui-theme', 'preset/other')).toBeUndefined()
    expect(getSection(doc, 'web-search', 'preset/coder')).toBeUndefined()
    expect(getSection({}, 'ui-theme', 'preset/coder')).toBeUndefined()
  })

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'])('ignores the inherited key %j globally and in scopes', (key) => {
    expect(getSection(doc, key)).toBeUndefined()
    expect(getSection(doc, key, 'preset/coder')).toBeUndefined()
    expect(getSection(doc, 'ui-theme', key)).toBeUndefined()
  })

  it('ignores sections a document only inherits through its prototype chain', () => {
    const inherited = Object.create({ 'ui-theme': { dark: true } }) as SettingsDocument
    expect(getSection(inherited, 'ui-theme')).toBeUndefined()
    const scopes = Object.create({ 'preset/coder': { 'ui-theme': { dark: true } } }) as Record<string, never>
    expect(getSection({ scopes }, 'ui-theme', 'preset/coder')).toBeUndefined()
    const sections = Object.create({ 'ui-theme': { dark: true } }) as Record<string, unknown>
    expect(getSection({ scopes: { 'preset/coder': sections } }, 'ui-theme', 'preset/coder')).toBeUndefined()
  })

  it('reads own sections of a null-prototype document', () => {
    const bare = Object.assign(Object.create(null), { 'ui-theme': { dark: true } }) as SettingsDocument
    expect(getSection(bare, 'ui-theme')).toEqual({ dark: true })
    expect(getSection(bare, 'constructor')).toBeUndefined()
  })

  it('reads a malformed scopes map or scope entry as having no sections', () => {
    expect(getSection({ scopes: 'oops' } as unknown as SettingsDocument, 'ui-theme', 'preset/coder')).toBeUndefined()
    expect(getSection({ scopes: { 'preset/coder': 7 } } as unknown as SettingsDocument, 'ui-theme', 'preset/coder')).toBeUndefined()
    expect(getSection({ scopes: { 'preset/coder': ['x'] } } as unknown as SettingsDocument, '0', 'preset/coder')).toBeUndefined()
  })

  it('returns a stored non-object section as it is', () => {
    expect(getSection({ 'ui-theme': 'dark' }, 'ui-theme')).toBe('dark')
    expect(getSection({ 'ui-theme': null }, 'ui-theme')).toBeNull()
  })
})

describe('documentWith', () => {
  function sample(): SettingsDocument {
    return deepFreeze({
      'ui-theme': { dark: true },
      'web-search': { engine: 'ddg' },
      scopes: {
        'preset/coder': { 'ui-theme': { dark: false }, 'web-search': { engine: 'kagi' } },
        'preset/writer': { 'ui-theme': { dark: true } },
      },
    })
  }

  it('sets a global section in a new document, sharing the untouched sections', () => {
    const doc = sample()
    const before = structuredClone(doc)
    const next = withSection(doc, { ns: 'ui-theme' }, { dark: false })
    expect(next).not.toBe(doc)
    expect(next['ui-theme']).toEqual({ dark: false })
    expect(next['web-search']).toBe(doc['web-search'])
    expect(next.scopes).toBe(doc.scopes)
    expect(doc).toEqual(before)
  })

  it('adds a new global section without touching the input', () => {
    const doc = sample()
    const before = structuredClone(doc)
    const next = withSection(doc, { ns: 'editor' }, { tabs: 2 })
    expect(next.editor).toEqual({ tabs: 2 })
    expect(doc).toEqual(before)
    expect(Object.hasOwn(doc, 'editor')).toBe(false)
  })

  it('sets a scoped section, sharing the other scopes and the other sections of that scope', () => {
    const doc = sample()
    const before = structuredClone(doc)
    const next = withSection(doc, { ns: 'ui-theme', scope: 'preset/coder' }, { dark: true })
    expect(next).not.toBe(doc)
    expect(next.scopes).not.toBe(doc.scopes)
    expect(next.scopes!['preset/coder']).not.toBe(doc.scopes!['preset/coder'])
    expect(next.scopes!['preset/coder']!['ui-theme']).toEqual({ dark: true })
    expect(next.scopes!['preset/coder']!['web-search']).toBe(doc.scopes!['preset/coder']!['web-search'])
    expect(next.scopes!['preset/writer']).toBe(doc.scopes!['preset/writer'])
    expect(next['ui-theme']).toBe(doc['ui-theme'])
    expect(next['web-search']).toBe(doc['web-search'])
    expect(doc).toEqual(before)
  })

  it('creates the scopes map when the document has none', () => {
    const doc = deepFreeze({ 'ui-theme': { dark: true } }) as SettingsDocument
    const next = withSection(doc, { ns: 'ui-theme', scope: 'preset/coder' }, { dark: false })
    expect(next).toEqual({ 'ui-theme': { dark: true }, scopes: { 'preset/coder': { 'ui-theme': { dark: false } } } })
    expect(doc).toEqual({ 'ui-theme': { dark: true } })
    expect(next['ui-theme']).toBe(doc['ui-theme'])
  })

  it('creates the map of a scope the document does not have yet', () => {
    const doc = sample()
    const before = structuredClone(doc)
    const next = withSection(doc, { ns: 'editor', scope: 'preset/new' }, { tabs: 4 })
    expect(next.scopes!['preset/new']).toEqual({ editor: { tabs: 4 } })
    expect(next.scopes!['preset/coder']).toBe(doc.scopes!['preset/coder'])
    expect(doc).toEqual(before)
  })

  it('replaces a malformed scopes map or scope entry with a fresh one on a scoped write', () => {
    const broken = deepFreeze({ scopes: 'oops' }) as unknown as SettingsDocument
    expect(withSection(broken, { ns: 'ui', scope: 'preset/a' }, { x: 1 }).scopes).toEqual({ 'preset/a': { ui: { x: 1 } } })
    const brokenEntry = deepFreeze({ scopes: { 'preset/a': 3 } }) as unknown as SettingsDocument
    expect(withSection(brokenEntry, { ns: 'ui', scope: 'preset/a' }, { x: 1 }).scopes).toEqual({ 'preset/a': { ui: { x: 1 } } })
    expect(brokenEntry).toEqual({ scopes: { 'preset/a': 3 } })
  })

  it('stores the given section object as the new section', () => {
    const section = { dark: false }
    const next = withSection(sample(), { ns: 'ui-theme' }, section)
    expect(getSection(next, 'ui-theme')).toBe(section)
  })
})

describe('adoptDocument', () => {
  it('copies the document so neither side aliases the other', () => {
    const input = {
      'ui-theme': { dark: true, colors: ['red'] },
      scopes: { 'preset/coder': { 'ui-theme': { dark: false } } },
    }
    const { doc, problems } = adoptDocument(input)
    expect(problems).toEqual([])
    expect(doc).toEqual(input)
    expect(doc).not.toBe(input)
    expect(doc['ui-theme']).not.toBe(input['ui-theme'])
    expect((doc['ui-theme'] as { colors: string[] }).colors).not.toBe(input['ui-theme'].colors)
    expect(doc.scopes).not.toBe(input.scopes)
    expect(doc.scopes!['preset/coder']).not.toBe(input.scopes['preset/coder'])

    ;(doc['ui-theme'] as { dark: boolean }).dark = false
    ;(doc.scopes!['preset/coder']!['ui-theme'] as { dark: boolean }).dark = true
    expect(input['ui-theme'].dark).toBe(true)
    expect(input.scopes['preset/coder']['ui-theme'].dark).toBe(false)

    input['ui-theme'].colors.push('blue')
    expect((doc['ui-theme'] as { colors: string[] }).colors).toEqual(['red'])
  })

  it.each([
    ['an array', [{ 'ui-theme': {} }]],
    ['a string', 'ui-theme: dark'],
    ['a number', 42],
    ['a boolean', true],
  ])('reports a document that is %s and reads it as empty', (_label, input) => {
    const { doc, problems } = adoptDocument(input)
    expect(doc).toEqual({})
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/document/)
  })

  it.each([undefined, null])('reads a missing document (%j) as empty without a problem', (input) => {
    expect(adoptDocument(input)).toEqual({ doc: {}, problems: [] })
  })

  it('reports a scopes entry that is not a map, keeps the global sections and leaves the input alone', () => {
    const input = { 'ui-theme': { dark: true }, scopes: ['preset/coder'] }
    const before = structuredClone(input)
    const { doc, problems } = adoptDocument(input)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain('scopes')
    expect(doc['ui-theme']).toEqual({ dark: true })
    expect(getSection(doc, 'ui-theme', 'preset/coder')).toBeUndefined()
    expect(input).toEqual(before)
  })

  it('reports each scope whose entry is not a map (null is an empty one), keeps the well-formed scopes and leaves the input alone', () => {
    const input = {
      scopes: {
        'preset/good': { 'ui-theme': { dark: true } },
        'preset/number': 3,
        'preset/null': null,
        'preset/list': [{ 'ui-theme': {} }],
      },
    }
    const before = structuredClone(input)
    const { doc, problems } = adoptDocument(input)
    expect(problems).toHaveLength(2)
    for (const scope of ['preset/number', 'preset/list']) {
      expect(problems.some((problem) => problem.includes(JSON.stringify(scope)))).toBe(true)
    }
    // An empty scope entry (YAML `preset/null:` with nothing under it) holds no sections: nothing to report.
    expect(problems.some((problem) => problem.includes('preset/good') || problem.includes('preset/null'))).toBe(false)
    expect(getSection(doc, 'ui-theme', 'preset/null')).toBeUndefined()
    expect(getSection(doc, 'ui-theme', 'preset/good')).toEqual({ dark: true })
    expect(getSection(doc, '0', 'preset/list')).toBeUndefined()
    expect(input).toEqual(before)
  })

  it('does not judge the sections themselves', () => {
    const { doc, problems } = adoptDocument({ 'ui-theme': 'dark', scopes: { 'preset/a': { 'ui-theme': [1] } } })
    expect(problems).toEqual([])
    expect(getSection(doc, 'ui-theme')).toBe('dark')
    expect(getSection(doc, 'ui-theme', 'preset/a')).toEqual([1])
  })

  it('copies a prototype key in the input as plain data without touching any prototype', () => {
    const input = JSON.parse('{"ui-theme": {"__proto__": {"polluted": true}}}') as Record<string, unknown>
    const { doc } = adoptDocument(input)
    const section = getSection(doc, 'ui-theme') as Record<string, unknown>
    expect(Object.hasOwn(section, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(section)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('changedSections', () => {
  const base: SettingsDocument = {
    'ui-theme': { dark: true },
    'web-search': { engine: 'ddg', sites: ['a'] },
    scopes: {
      'preset/coder': { 'ui-theme': { dark: false } },
      'preset/writer': { 'web-search': { engine: 'kagi' } },
    },
  }

  it('lists nothing for deep-equal documents that share no objects', () => {
    expect(changedSections(base, structuredClone(base))).toEqual([])
    expect(changedSections({}, {})).toEqual([])
  })

  it('lists nothing for the same sections stored with different key order', () => {
    const reordered: SettingsDocument = {
      scopes: { 'preset/writer': { 'web-search': { engine: 'kagi' } }, 'preset/coder': { 'ui-theme': { dark: false } } },
      'web-search': { sites: ['a'], engine: 'ddg' },
      'ui-theme': { dark: true },
    }
    expect(changedSections(base, reordered)).toEqual([])
  })

  it('lists an added global section', () => {
    expect(changedSections(base, { ...base, editor: { tabs: 2 } })).toEqual([{ ns: 'editor' }])
  })

  it('lists a removed global section', () => {
    const { 'ui-theme': _removed, ...rest } = base
    expect(changedSections(base, rest)).toEqual([{ ns: 'ui-theme' }])
  })

  it('lists a changed global section, including a deep change', () => {
    const next = structuredClone(base)
    ;(next['web-search'] as { sites: string[] }).sites.push('b')
    expect(changedSections(base, next)).toEqual([{ ns: 'web-search' }])
  })

  it('lists added, removed and changed scoped sections with their scope', () => {
    const next: SettingsDocument = {
      'ui-theme': { dark: true },
      'web-search': { engine: 'ddg', sites: ['a'] },
      scopes: {
        'preset/coder': { 'ui-theme': { dark: true }, editor: { tabs: 4 } },
        'preset/writer': {},
      },
    }
    expect(ids(changedSections(base, next))).toEqual(['preset/coder editor', 'preset/coder ui-theme', 'preset/writer web-search'])
  })

  it('lists every section of a scope that appears or disappears', () => {
    const { scopes: _scopes, ...withoutScopes } = base
    expect(ids(changedSections(base, withoutScopes))).toEqual(['preset/coder ui-theme', 'preset/writer web-search'])
    expect(ids(changedSections(withoutScopes, base))).toEqual(['preset/coder ui-theme', 'preset/writer web-search'])
  })

  it('tells a global section from the same namespace under a scope', () => {
    const next = withSection(base, { ns: 'ui-theme', scope: 'preset/coder' }, { dark: true })
    expect(changedSections(base, next)).toEqual([{ ns: 'ui-theme', scope: 'preset/coder' }])
    const globalOnly = withSection(base, { ns: 'ui-theme' }, { dark: false })
    expect(changedSections(base, globalOnly)).toEqual([{ ns: 'ui-theme' }])
  })

  it('lists each changed section once', () => {
    const next = withSection(withSection(base, { ns: 'ui-theme' }, { dark: false }), { ns: 'ui-theme', scope: 'preset/coder' }, {})
    const changed = changedSections(base, next)
    expect(ids(changed)).toEqual(['preset/coder ui-theme', 'ui-theme'])
  })

  it('does not report the scopes map itself as a section', () => {
    const changed = changedSections(base, { scopes: {} })
    expect(changed.some((key) => key.ns === 'scopes' && key.scope === undefined)).toBe(false)
  })
})

describe('adoptDocument reusing what the seam holds', () => {
  it('reuses sections that are the very objects of the previous document, copies the rest, and keeps key order', () => {
    const kept = { n: 1 }
    const scoped = { m: 2 }
    const previous = { alpha: kept, scopes: { 'preset/a': { beta: scoped } }, gamma: { o: 3 } }
    const input = { alpha: kept, scopes: { 'preset/a': { beta: scoped, delta: { p: 4 } } }, gamma: { o: 3 } }
    const { doc } = adoptDocument(input, previous)
    expect(Object.keys(doc)).toEqual(['alpha', 'scopes', 'gamma'])
    expect(doc.alpha).toBe(kept)
    expect((doc.scopes as any)['preset/a'].beta).toBe(scoped)
    expect(doc.gamma).toEqual({ o: 3 })
    expect(doc.gamma).not.toBe(input.gamma)
    expect((doc.scopes as any)['preset/a'].delta).not.toBe(input.scopes['preset/a'].delta)
    expect(doc.scopes).not.toBe(input.scopes)
  })
})

describe('transferToSeam: a provider gives the seam a value it built for it alone', () => {
  it('is adopted without a copy, and a later version sharing parts of it copies only what is new', () => {
    const entries = [{ id: 'a' }, { id: 'b' }]
    const input = transferToSeam({ big: { entries, counter: 1 }, small: { on: true } })
    const first = adoptDocument(input).doc
    expect(first.big).toBe(input.big)
    expect((first.big as { entries: unknown }).entries).toBe(entries)
    // The next parse shares `entries` and builds a new `big` around it.
    const next = { big: { entries, counter: 2 }, small: input.small }
    const second = adoptDocument(next, first).doc
    expect(second.big).not.toBe(next.big)
    expect((second.big as { entries: unknown }).entries).toBe(entries)
    expect(second.small).toBe(input.small)
  })

  it('leaves a container holding anything but plain data to be copied as before', () => {
    const when = new Date(0)
    const input = transferToSeam({ dated: { when }, plain: { n: 1 } })
    const doc = adoptDocument(input).doc
    expect(doc.plain).toBe(input.plain)
    expect(doc.dated).not.toBe(input.dated)
    expect(doc.dated).toEqual(input.dated)
  })

  it('copies every container on the way to something that is not plain data, however deep it lies', () => {
    const when = new Date(0)
    const input = transferToSeam({ ns: { outer: { inner: { when } }, list: [1, 2] } })
    const doc = adoptDocument(input).doc as { ns: { outer: { inner: { when: Date } }; list: number[] } }
    expect(doc.ns).not.toBe(input.ns)
    expect(doc.ns.outer).not.toBe(input.ns.outer)
    expect(doc.ns.outer.inner).not.toBe(input.ns.outer.inner)
    expect(doc.ns.outer.inner.when.getTime()).toBe(0)
    // The plain part beside it is still taken as it is.
    expect(doc.ns.list).toBe(input.ns.list)
  })

  it('without it, what a provider hands over is copied', () => {
    const input = { ns: { list: [1, 2] } }
    const doc = adoptDocument(input).doc
    expect(doc.ns).not.toBe(input.ns)
    expect(doc.ns).toEqual(input.ns)
  })
})
