import { describe, expect, it } from 'vitest'
import { SettingsValidationError } from 'dsh-settings'
import { inspect, layerData, layersAt, layersBelow } from '../src/layers.ts'

const doc = {
  search: { engine: 'google', secret: null },
  scopes: { 'preset/a': { search: { limit: 9, nested: { key: 'x' } } } },
}

describe('layersAt', () => {
  it('lists base, global and scope lowest first, each named', () => {
    const layers = layersAt(doc, { ns: 'search', scope: 'preset/a', base: { engine: 'ddg' } })
    expect(layers).toEqual([
      { name: 'base', data: { engine: 'ddg' } },
      { name: 'global', data: { engine: 'google', secret: null } },
      { name: 'scope', data: { limit: 9, nested: { key: 'x' } } },
    ])
  })

  it('has no scope layer for the global section, and empty layers where nothing is stored', () => {
    expect(layersAt({}, { ns: 'search' })).toEqual([
      { name: 'base', data: undefined },
      { name: 'global', data: undefined },
    ])
  })

  it('reads a null section (every field commented out) as an empty layer, not as a problem', () => {
    const problems: string[] = []
    const empty = { search: null, scopes: { 'preset/a': { search: null } } }
    const layers = layersAt(empty, { ns: 'search', scope: 'preset/a', base: { engine: 'ddg' } }, (layer) => problems.push(layer))
    expect(layers).toEqual([
      { name: 'base', data: { engine: 'ddg' } },
      { name: 'global', data: undefined },
      { name: 'scope', data: undefined },
    ])
    expect(problems).toEqual([])
    expect(() => layersAt(empty, { ns: 'search', scope: 'preset/a' })).not.toThrow()
  })

  it('refuses a malformed stored section by default, naming the section', () => {
    const bad = { search: ['not', 'an', 'object'] }
    expect(() => layersAt(bad, { ns: 'search' })).toThrow(SettingsValidationError)
    expect(() => layersAt(bad, { ns: 'search' })).toThrow(/search.*must be an object/)
  })

  it('hands a malformed section to onProblem and leaves that layer empty when it returns', () => {
    const problems: string[] = []
    const bad = { scopes: { 'preset/a': { search: JSON.parse('{"__proto__": {"x": 1}}') } } }
    const layers = layersAt(bad, { ns: 'search', scope: 'preset/a' }, (layer, problem) => problems.push(`${layer}: ${problem}`))
    expect(layerData(layers, 'scope')).toBeUndefined()
    expect(problems).toEqual(['scope: holds prototype key "__proto__" at $.__proto__'])
  })
})

describe('layersBelow', () => {
  it('keeps only the layers under the named one', () => {
    const layers = layersAt(doc, { ns: 'search', scope: 'preset/a', base: {} })
    expect(layersBelow(layers, 'scope').map((layer) => layer.name)).toEqual(['base', 'global'])
    expect(layersBelow(layers, 'global').map((layer) => layer.name)).toEqual(['base'])
    expect(layersBelow(layers, 'base')).toEqual([])
  })
})

describe('inspect', () => {
  const layers = layersAt(doc, { ns: 'search', scope: 'preset/a', base: { engine: 'ddg', region: 'eu' } })

  it('names the highest layer holding the field', () => {
    expect(inspect(layers, ['engine'])).toBe('global')
    expect(inspect(layers, ['region'])).toBe('base')
    expect(inspect(layers, ['limit'])).toBe('scope')
    expect(inspect(layers, ['nested', 'key'])).toBe('scope')
  })

  it('counts a stored null, which masks the layers below', () => {
    expect(inspect(layers, ['secret'])).toBe('global')
  })

  it('answers defaults where no data layer holds the field', () => {
    expect(inspect(layers, ['missing'])).toBe('defaults')
    expect(inspect(layers, ['nested', 'other'])).toBe('defaults')
    expect(inspect([], ['engine'])).toBe('defaults')
  })
})
