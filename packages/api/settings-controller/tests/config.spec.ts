/**
 * Configuration defaults.
 *
 * What these tests prove: the default opener per platform (`open`, `cmd /c start ""`,
 * `xdg-open` only with a visible desktop session, else none); preset roots default to one
 * writable `<home>/presets`, relative roots are taken from the home and `~` is expanded, listed
 * roots are read-only unless marked writable; a malformed opener or root fails construction;
 * cordis validates the plugin entry with the schema.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../src/config.ts'
import SettingsController, { defaultOpener } from '../src/index.ts'
import { plugController, rootContext } from './harness.ts'

describe('defaultOpener', () => {
  it('picks the platform opener', () => {
    expect(defaultOpener('darwin', {})).toEqual(['open'])
    expect(defaultOpener('win32', {})).toEqual(['cmd', '/c', 'start', ''])
    expect(defaultOpener('linux', { DISPLAY: ':0' })).toEqual(['xdg-open'])
    expect(defaultOpener('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toEqual(['xdg-open'])
    expect(defaultOpener('freebsd', { WSL_DISTRO_NAME: 'x' })).toEqual(['xdg-open'])
    expect(defaultOpener('linux', {})).toBe(false)
  })
})

describe('resolveConfig', () => {
  it('defaults to one writable root under the home', () => {
    expect(resolveConfig({ home: '/srv/dsh' }, {}).presets).toEqual([{ path: '/srv/dsh/presets', writable: true }])
    expect(resolveConfig({}, { DSH_HOME: '/env/home' }).presets).toEqual([{ path: '/env/home/presets', writable: true }])
  })

  it('resolves listed roots from the home, expands ~, and keeps them read-only unless marked', () => {
    const { presets } = resolveConfig({ home: '/srv/dsh', presets: [{ path: 'mine', writable: true }, { path: '~/shared' }, { path: '/opt/presets', writable: false }] }, {})
    expect(presets).toEqual([
      { path: '/srv/dsh/mine', writable: true },
      { path: join(homedir(), 'shared'), writable: false },
      { path: '/opt/presets', writable: false },
    ])
  })

  it('keeps an explicit opener and false', () => {
    expect(resolveConfig({ opener: ['code', '--wait'] }, {}).opener).toEqual(['code', '--wait'])
    expect(resolveConfig({ opener: false }, { DISPLAY: ':0' }).opener).toBe(false)
  })

  it.each([[[]], [['']], [[3]], ['xdg-open']])('refuses the opener %j', (opener) => {
    expect(() => resolveConfig({ opener: opener as string[] }, {})).toThrow(TypeError)
  })

  it('keeps an explicit empty list of roots', () => {
    expect(resolveConfig({ presets: [] }, {}).presets).toEqual([])
  })

  it('refuses a root without a path', () => {
    expect(() => resolveConfig({ presets: [{ path: ' ' }] }, {})).toThrow(TypeError)
  })

  it('is validated by cordis through the schema', async () => {
    const { root } = rootContext()
    const fiber = root.plugin(SettingsController, { opener: 'xdg-open' } as never)
    await expect(fiber.await()).rejects.toThrow('opener')
    const { fiber: good } = await plugController(root, { opener: ['true'], presets: [] })
    expect(good.state).toBe(2 /* ACTIVE */)
    await good.dispose()
  })
})
