/**
 * The settings provider is optional.
 *
 * What these tests prove: with no provider mounted, every settings method fails with
 * `settings/unavailable` whose message names `dsh-settings-file` (checked before any argument, so
 * even a malformed call learns what is missing); the agent preset methods, which are not settings,
 * work without one (answering the directory, opening it, refusing a bad id as usual); a provider
 * plugged later is used at once, and once it is disposed the controller answers
 * `settings/unavailable` again; the controller itself stays loaded throughout.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { fakeOpeners, plugController, plugProvider, registerKind, remoteFailure, rootContext, tempDir } from './harness.ts'

describe('no settings provider', () => {
  it('fails every settings method with settings/unavailable naming dsh-settings-file', async () => {
    const { root } = rootContext()
    const { controller, fiber } = await plugController(root, { opener: ['true'] })
    const signal = new AbortController().signal
    const calls: [string, () => unknown][] = [
      ['describe', () => controller.describe()],
      ['describe(bad scope)', () => controller.describe('not a scope')],
      ['update', () => controller.update('search', {}, null)],
      ['replace', () => controller.replace('search', {})],
      ['mutate', () => controller.mutate('search', [])],
      ['update(bad namespace)', () => controller.update('Not A Namespace', {}, null)],
      ['openSettingsDocument', () => controller.openSettingsDocument(signal)],
    ]
    for (const [label, call] of calls) {
      const error = await remoteFailure(call, 'settings/unavailable')
      expect(error.message, label).toContain('dsh-settings-file')
    }
    await fiber.dispose()
  })

  it('answers the agent preset methods without one: the directory as text, or opened natively', async () => {
    const { dir, cleanup } = await tempDir()
    try {
      await mkdir(join(dir, 'presets', 'coder'), { recursive: true })
      const roots = [{ path: join(dir, 'presets'), writable: true }]
      const { root } = rootContext()
      const text = await plugController(root, { opener: false, presets: roots })
      expect(text.controller.canOpenAgentPresetDirectory()).toBe(false)
      expect(await text.controller.openAgentPresetDirectory('coder', new AbortController().signal)).toEqual({ opened: false, directory: join(dir, 'presets', 'coder') })
      await remoteFailure(() => text.controller.openAgentPresetDirectory('../coder', new AbortController().signal), 'settings/invalid')
      await remoteFailure(() => text.controller.openAgentPresetDirectory('missing', new AbortController().signal), 'settings/rejected')
      await text.fiber.dispose()

      const openers = await fakeOpeners(dir)
      const native = await plugController(root, { opener: [openers.record], presets: roots })
      expect(native.controller.canOpenAgentPresetDirectory()).toBe(true)
      expect(await native.controller.openAgentPresetDirectory('coder', new AbortController().signal)).toEqual({ opened: true })
      expect(await openers.argv()).toEqual([join(dir, 'presets', 'coder')])
      // Still no provider: the settings methods say so.
      await remoteFailure(() => native.controller.describe(), 'settings/unavailable')
      await native.fiber.dispose()
    } finally {
      await cleanup()
    }
  })

  it('uses a provider plugged later, and answers unavailable again once it is gone', async () => {
    const { root } = rootContext()
    const { controller, fiber } = await plugController(root, { opener: false })
    await remoteFailure(() => controller.describe(), 'settings/unavailable')

    const { fiber: providerFiber } = await plugProvider(root, MemorySettingsProvider)
    await registerKind(root, 'theme', Schema.object({ dark: Schema.boolean().default(false) }))
    expect(controller.describe().namespaces.map((view) => view.ns)).toEqual(['theme'])
    expect((await controller.update('theme', { dark: true })).value).toEqual({ dark: true })

    await providerFiber.dispose()
    await remoteFailure(() => controller.describe(), 'settings/unavailable')
    await remoteFailure(() => controller.update('theme', { dark: false }), 'settings/unavailable')
    expect(fiber.state).toBe(2 /* ACTIVE */)
    await fiber.dispose()
  })
})
