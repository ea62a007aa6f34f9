/**
 * The settings provider is optional.
 *
 * What these tests prove: with no provider mounted, every method fails with `settings/unavailable`
 * whose message names `dsh-settings-file` (checked before any argument, so even a malformed call
 * learns what is missing); a provider plugged later is used at once, and once it is disposed the
 * controller answers `settings/unavailable` again; the controller itself stays loaded throughout.
 */
import { describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { plugController, plugProvider, registerKind, remoteFailure, rootContext } from './harness.ts'

describe('no settings provider', () => {
  it('fails every method with settings/unavailable naming dsh-settings-file', async () => {
    const { root } = rootContext()
    const { controller, fiber } = await plugController(root, { opener: ['true'] })
    const signal = new AbortController().signal
    const calls: [string, () => unknown][] = [
      ['describe', () => controller.describe()],
      ['describe(bad scope)', () => controller.describe('not a scope')],
      ['update', () => controller.update('search', {}, null)],
      ['replace', () => controller.replace('search', {})],
      ['mutate', () => controller.mutate('search', [])],
      ['openSettingsDocument', () => controller.openSettingsDocument(signal)],
      ['canOpenAgentPresetDirectory', () => controller.canOpenAgentPresetDirectory()],
      ['openAgentPresetDirectory', () => controller.openAgentPresetDirectory('coder', signal)],
    ]
    for (const [label, call] of calls) {
      const error = await remoteFailure(call, 'settings/unavailable')
      expect(error.message, label).toContain('dsh-settings-file')
    }
    await fiber.dispose()
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
