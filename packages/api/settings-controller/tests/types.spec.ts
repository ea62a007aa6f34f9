/**
 * The client type derived from the controller's class.
 *
 * What these tests prove (at compile time, under `pnpm typecheck`; the runtime assertions only
 * keep vitest's count honest): `SettingsRemote` has exactly the exposed methods, each async, with
 * the server-supplied `AbortSignal` parameters removed, and it is what `ctx.remote.settings` is
 * typed as through the `RemoteServices` augmentation.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { RemoteServices } from 'dsh-remote'
import type { SettingsNamespaceView } from 'dsh-settings'
import {
  settingsRemoteMethods,
  type AgentPresetDirectoryOpenValue,
  type SettingsDescribeValue,
  type SettingsDocumentOpenValue,
  type SettingsPathOpView,
  type SettingsRemote,
} from '../src/index.ts'

describe('SettingsRemote', () => {
  it('lists exactly the exposed methods', () => {
    expectTypeOf<keyof SettingsRemote>().toEqualTypeOf<(typeof settingsRemoteMethods)[number]>()
    expect(settingsRemoteMethods).toHaveLength(7)
  })

  it('derives async signatures without the server-supplied signal', () => {
    expectTypeOf<SettingsRemote['describe']>().toEqualTypeOf<(scope?: string) => Promise<SettingsDescribeValue>>()
    expectTypeOf<SettingsRemote['update']>().toEqualTypeOf<
      (ns: string, patch: Record<string, unknown>, expectedRevision?: number | null, scope?: string) => Promise<SettingsNamespaceView>
    >()
    expectTypeOf<SettingsRemote['mutate']>().parameter(1).toEqualTypeOf<SettingsPathOpView[]>()
    expectTypeOf<SettingsRemote['openSettingsDocument']>().toEqualTypeOf<() => Promise<SettingsDocumentOpenValue>>()
    // dsh-remote's RemoteMethod widens a zero-parameter method to `(...args: unknown[])`; the answer type is exact.
    expectTypeOf<SettingsRemote['canOpenAgentPresetDirectory']>().returns.toEqualTypeOf<Promise<boolean>>()
    expectTypeOf<SettingsRemote['openAgentPresetDirectory']>().toEqualTypeOf<(presetId: string) => Promise<AgentPresetDirectoryOpenValue>>()
    expect(true).toBe(true)
  })

  it('types ctx.remote.settings through RemoteServices', () => {
    expectTypeOf<RemoteServices['settings']>().toEqualTypeOf<SettingsRemote>()
    expect(true).toBe(true)
  })
})
