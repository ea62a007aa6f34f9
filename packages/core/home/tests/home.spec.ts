import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expandHome, resolveDocumentPath, resolveHome } from '../src/index.ts'

describe('expandHome', () => {
  it('expands a leading ~ alone or followed by a separator', () => {
    expect(expandHome('~')).toBe(homedir())
    expect(expandHome('~/custom/dsh')).toBe(join(homedir(), 'custom/dsh'))
    expect(expandHome('~\\custom')).toBe(join(homedir(), 'custom'))
  })

  it('leaves other paths alone, including ~user and a ~ inside the path', () => {
    expect(expandHome('~other/dsh')).toBe('~other/dsh')
    expect(expandHome('/srv/~/dsh')).toBe('/srv/~/dsh')
    expect(expandHome('relative/dir')).toBe('relative/dir')
  })
})

describe('resolveHome', () => {
  it('uses the configured home first, over $DSH_HOME', () => {
    expect(resolveHome('/srv/dsh', { DSH_HOME: '/opt/other' })).toBe('/srv/dsh')
  })

  it('expands ~ in the configured home', () => {
    expect(resolveHome('~/work/.dsh', {})).toBe(join(homedir(), 'work/.dsh'))
  })

  it('falls back to $DSH_HOME from the env argument', () => {
    expect(resolveHome(undefined, { DSH_HOME: '/opt/dsh' })).toBe('/opt/dsh')
  })

  it('expands ~ in $DSH_HOME', () => {
    expect(resolveHome(undefined, { DSH_HOME: '~/state' })).toBe(join(homedir(), 'state'))
  })

  it('falls back to ~/.dsh without a home or $DSH_HOME', () => {
    expect(resolveHome(undefined, {})).toBe(join(homedir(), '.dsh'))
  })

  it('ignores a blank configured home and a blank $DSH_HOME', () => {
    expect(resolveHome('   ', { DSH_HOME: '/opt/dsh' })).toBe('/opt/dsh')
    expect(resolveHome('', { DSH_HOME: ' \t ' })).toBe(join(homedir(), '.dsh'))
  })

  it('trims whitespace around the values it uses', () => {
    expect(resolveHome('  /srv/dsh  ', {})).toBe('/srv/dsh')
    expect(resolveHome(undefined, { DSH_HOME: ' /opt/dsh\n' })).toBe('/opt/dsh')
  })

  it('returns an absolute path for a relative home, against the working directory', () => {
    const home = resolveHome('.dsh', {})
    expect(isAbsolute(home)).toBe(true)
    expect(home).toBe(resolve(process.cwd(), '.dsh'))
    expect(isAbsolute(resolveHome(undefined, { DSH_HOME: 'rel/home' }))).toBe(true)
  })

  it('normalizes the path it returns', () => {
    expect(resolveHome('/srv/dsh/../dsh2/./', {})).toBe('/srv/dsh2')
  })
})

describe('resolveDocumentPath', () => {
  it('uses a given path as the document, expanding ~', () => {
    expect(resolveDocumentPath('~/my-settings.json', '/srv/dsh', {})).toBe(join(homedir(), 'my-settings.json'))
    expect(resolveDocumentPath('/etc/dsh/settings.yml', undefined, { DSH_HOME: '/opt/dsh' })).toBe('/etc/dsh/settings.yml')
  })

  it('makes a relative path absolute', () => {
    const path = resolveDocumentPath('conf/settings.yaml', undefined, {})
    expect(isAbsolute(path)).toBe(true)
    expect(path).toBe(resolve(process.cwd(), 'conf/settings.yaml'))
  })

  it('defaults to settings.yaml under the configured home', () => {
    expect(resolveDocumentPath(undefined, '/srv/dsh', { DSH_HOME: '/opt/dsh' })).toBe('/srv/dsh/settings.yaml')
  })

  it('defaults to settings.yaml under $DSH_HOME, then under ~/.dsh', () => {
    expect(resolveDocumentPath(undefined, undefined, { DSH_HOME: '/opt/dsh' })).toBe('/opt/dsh/settings.yaml')
    expect(resolveDocumentPath(undefined, undefined, {})).toBe(join(homedir(), '.dsh', 'settings.yaml'))
  })

  it('ignores a blank path', () => {
    expect(resolveDocumentPath('  ', undefined, { DSH_HOME: '/opt/dsh' })).toBe('/opt/dsh/settings.yaml')
    expect(resolveDocumentPath('', '~/h', {})).toBe(join(homedir(), 'h', 'settings.yaml'))
  })
})
