import { describe, expect, it } from 'vitest'
import { DocumentError } from '../src/codec/errors.ts'
import { SettingsDocumentError, settingsErrorOf } from '../src/provider/errors.ts'
import { formatOf } from '../src/codec/format.ts'

describe('formatOf', () => {
  it('reads .yaml and .yml as YAML', () => {
    expect(formatOf('/home/u/.dsh/settings.yaml')).toBe('yaml')
    expect(formatOf('settings.yml')).toBe('yaml')
  })

  it('reads .json as JSON', () => {
    expect(formatOf('/etc/dsh/settings.json')).toBe('json')
  })

  it('matches extensions in any letter case', () => {
    expect(formatOf('settings.YML')).toBe('yaml')
    expect(formatOf('settings.Yaml')).toBe('yaml')
    expect(formatOf('settings.Json')).toBe('json')
    expect(formatOf('SETTINGS.JSON')).toBe('json')
  })

  it('goes by the last extension only', () => {
    expect(formatOf('settings.json.yaml')).toBe('yaml')
    expect(formatOf('my.settings.v2.json')).toBe('json')
  })

  it('refuses .toml as not supported, naming the file and the allowed extensions', () => {
    let caught: unknown
    try {
      formatOf('/home/u/.dsh/settings.toml')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(DocumentError)
    expect(caught).toMatchObject({ code: 'DOCUMENT_INVALID', file: '/home/u/.dsh/settings.toml' })
    caught = settingsErrorOf(caught)
    expect(caught).toBeInstanceOf(SettingsDocumentError)
    const error = caught as SettingsDocumentError
    expect(error.message).toContain('not supported')
    expect(error.message).toContain('.toml')
    expect(error.message).toContain('/home/u/.dsh/settings.toml')
    expect(error.message).toMatch(/\.yaml.*\.yml.*\.json/)
    expect(error.file).toBe('/home/u/.dsh/settings.toml')
    expect(error.code).toBe('SETTINGS_DOCUMENT')
  })

  it('refuses a path without an extension or with a look-alike one', () => {
    for (const file of ['settings', 'settings.yaml.bak', 'settings.ya', 'settings.jsonc']) {
      expect(() => formatOf(file)).toThrow(/not supported/)
    }
  })
})
