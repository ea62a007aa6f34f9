/**
 * canOpenAgentPresetDirectory() and openAgentPresetDirectory(presetId, signal).
 *
 * What these tests prove: a preset id resolves against the configured roots in order and the
 * opener receives the preset's real directory as its last argument; a symlink that stays inside
 * its root is followed; ids that could spell a path (`..`, separators, absolute paths, upper case,
 * empty, too long, not a string) are `settings/invalid` before the file system is touched; a preset
 * whose symlink leads out of its root, a missing preset, a plain file in place of a directory and
 * a preset in a read-only root are `settings/rejected` and nothing is opened; `opener: false`
 * answers `{ opened: false, directory }` and `canOpenAgentPresetDirectory()` false; an opener that
 * exits non-zero is `settings/unavailable`; an abort kills a running opener; the default root is
 * `<home>/presets`.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Fiber } from 'cordis'
import { boot, eventually, fakeOpeners, isAlive, remoteFailure, tempDir, type FakeOpeners } from './harness.ts'
import { CANCELLED, type SettingsController, type SettingsControllerConfig } from '../src/index.ts'

let dir: string
let cleanup: () => Promise<void>
let openers: FakeOpeners
let user: string
let shipped: string
const fibers: Fiber[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  openers = await fakeOpeners(dir)
  user = join(dir, 'user-presets')
  shipped = join(dir, 'shipped-presets')
  await mkdir(join(user, 'coder'), { recursive: true })
  await mkdir(join(shipped, 'coder'), { recursive: true })
  await mkdir(join(shipped, 'builtin'), { recursive: true })
})

afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
  await cleanup()
})

async function controllerWith(config: SettingsControllerConfig): Promise<SettingsController> {
  const b = await boot({}, config)
  fibers.push(b.providerFiber, b.controllerFiber)
  return b.controller
}

const roots = () => [
  { path: user, writable: true },
  { path: shipped, writable: false },
]
const signal = () => new AbortController().signal

describe('openAgentPresetDirectory', () => {
  it('opens the first root’s preset directory with the native opener', async () => {
    const controller = await controllerWith({ opener: [openers.record], presets: roots() })
    expect(controller.canOpenAgentPresetDirectory()).toBe(true)
    await expect(controller.openAgentPresetDirectory('coder', signal())).resolves.toEqual({ opened: true })
    expect(await openers.argv()).toEqual([join(user, 'coder')])
  })

  it('follows a symlink that stays inside its root, opening the real directory', async () => {
    await mkdir(join(user, 'real-one'))
    await symlink(join(user, 'real-one'), join(user, 'alias'))
    const controller = await controllerWith({ opener: [openers.record], presets: roots() })
    await controller.openAgentPresetDirectory('alias', signal())
    expect(await openers.argv()).toEqual([join(user, 'real-one')])
  })

  it.each([['..'], ['../x'], ['a/b'], ['/etc'], ['Coder'], [''], ['-x'], ['a.b'], ['x'.repeat(256)], [42], [null]])(
    'refuses the id %j as settings/invalid',
    async (id) => {
      const controller = await controllerWith({ opener: [openers.record], presets: roots() })
      await remoteFailure(() => controller.openAgentPresetDirectory(id as string, signal()), 'settings/invalid')
      expect(await openers.argv()).toBeUndefined()
    },
  )

  it('refuses a preset whose symlink leads out of its root', async () => {
    const outside = join(dir, 'outside')
    await mkdir(outside)
    await symlink(outside, join(user, 'escape'))
    await symlink('..', join(user, 'parent'))
    const controller = await controllerWith({ opener: [openers.record], presets: roots() })
    for (const id of ['escape', 'parent']) {
      const error = await remoteFailure(() => controller.openAgentPresetDirectory(id, signal()), 'settings/rejected')
      expect(error.details).toEqual({ presetId: id, reason: 'outside-root' })
    }
    expect(await openers.argv()).toBeUndefined()
  })

  it('refuses a preset found only in a read-only root', async () => {
    const controller = await controllerWith({ opener: [openers.record], presets: roots() })
    const error = await remoteFailure(() => controller.openAgentPresetDirectory('builtin', signal()), 'settings/rejected')
    expect(error.details).toEqual({ presetId: 'builtin', reason: 'read-only' })
    expect(await openers.argv()).toBeUndefined()
  })

  it('refuses a missing preset, and a file where a preset directory should be', async () => {
    await writeFile(join(user, 'plain-file'), 'not a directory')
    const controller = await controllerWith({ opener: [openers.record], presets: [...roots(), { path: join(dir, 'absent-root'), writable: true }] })
    for (const id of ['nobody', 'plain-file']) {
      const error = await remoteFailure(() => controller.openAgentPresetDirectory(id, signal()), 'settings/rejected')
      expect(error.details).toEqual({ presetId: id, reason: 'not-found' })
    }
    expect(await openers.argv()).toBeUndefined()
  })

  it('answers the directory as text when the host has no opener', async () => {
    const controller = await controllerWith({ opener: false, presets: roots() })
    expect(controller.canOpenAgentPresetDirectory()).toBe(false)
    await expect(controller.openAgentPresetDirectory('coder', signal())).resolves.toEqual({ opened: false, directory: join(user, 'coder') })
  })

  it('fails settings/unavailable with the status of an opener that exits non-zero', async () => {
    const controller = await controllerWith({ opener: [openers.fail], presets: roots() })
    const error = await remoteFailure(() => controller.openAgentPresetDirectory('coder', signal()), 'settings/unavailable')
    expect(error.message).toContain('status 3')
  })

  it('kills a running opener when the signal aborts, and refuses a signal aborted up front', async () => {
    const controller = await controllerWith({ opener: [openers.hang], presets: roots() })
    await remoteFailure(() => controller.openAgentPresetDirectory('coder', AbortSignal.abort()), CANCELLED)
    const abort = new AbortController()
    const call = controller.openAgentPresetDirectory('coder', abort.signal)
    call.catch(() => {})
    await eventually(() => expect(openers.hangPids()).toBeDefined())
    const pids = openers.hangPids()!
    abort.abort()
    await remoteFailure(() => call, CANCELLED)
    expect(isAlive(pids.opener)).toBe(false)
    await eventually(() => expect(isAlive(pids.grandchild)).toBe(false))
  })

  it('looks in <home>/presets by default', async () => {
    const home = join(dir, 'home')
    await mkdir(join(home, 'presets', 'writer'), { recursive: true })
    const controller = await controllerWith({ opener: false, home })
    await expect(controller.openAgentPresetDirectory('writer', signal())).resolves.toEqual({ opened: false, directory: join(home, 'presets', 'writer') })
  })

  it('refuses a signal that is not an AbortSignal', async () => {
    const controller = await controllerWith({ opener: false, presets: roots() })
    await remoteFailure(() => controller.openAgentPresetDirectory('coder', 'nope' as unknown as AbortSignal), 'settings/invalid')
  })
})
