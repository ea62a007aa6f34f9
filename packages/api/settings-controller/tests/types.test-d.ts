/**
 * The client type derived from the controller's class, checked by tsc in vitest's typecheck mode:
 * `SettingsRemote` has exactly the exposed methods, each async, with the server-supplied
 * `AbortSignal` parameters removed, and it is what `ctx.remote.settings` is typed as through the
 * `RemoteServices` augmentation.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { RemoteServices } from 'dsh-remote'
import type { SettingsFieldChange, SettingsNamespaceView, SettingsUndeclaredKey } from 'dsh-settings'
import type {
  AgentPresetDirectoryOpenValue,
  SettingsDescribeValue,
  SettingsDocumentOpenValue,
  SettingsPathOpView,
  SettingsRemote,
  settingsRemoteMethods,
  SettingsCompareValue,
  SettingsRestoreOptions,
  SettingsRestoreValue,
} from '../src/index.ts'

describe('SettingsRemote', () => {
  it('lists exactly the exposed methods', () => {
    expectTypeOf<keyof SettingsRemote>().toEqualTypeOf<(typeof settingsRemoteMethods)[number]>()
    expectTypeOf<(typeof settingsRemoteMethods)['length']>().toEqualTypeOf<10>()
  })

  it('derives async signatures without the server-supplied signal', () => {
    expectTypeOf<SettingsRemote['describe']>().toEqualTypeOf<(scope?: string | null, namespaces?: readonly string[] | null) => Promise<SettingsDescribeValue>>()
    expectTypeOf<SettingsRemote['update']>().toEqualTypeOf<
      (ns: string, patch: Record<string, unknown>, expectedRevision?: number | null, scope?: string) => Promise<SettingsNamespaceView>
    >()
    expectTypeOf<SettingsRemote['mutate']>().parameter(1).toEqualTypeOf<SettingsPathOpView[]>()
    expectTypeOf<SettingsRemote['openSettingsDocument']>().toEqualTypeOf<() => Promise<SettingsDocumentOpenValue>>()
    expectTypeOf<SettingsRemote['canOpenAgentPresetDirectory']>().toEqualTypeOf<() => Promise<boolean>>()
    expectTypeOf<SettingsRemote['openAgentPresetDirectory']>().toEqualTypeOf<(presetId: string) => Promise<AgentPresetDirectoryOpenValue>>()
    expectTypeOf<SettingsRemote['compare']>().toEqualTypeOf<(versionId: string) => Promise<SettingsCompareValue>>()
    expectTypeOf<SettingsRemote['restore']>().toEqualTypeOf<(versionId: string, options?: SettingsRestoreOptions | null) => Promise<SettingsRestoreValue>>()
  })

  it('refuses arguments a method does not take', () => {
    const remote = {} as SettingsRemote
    // @ts-expect-error: canOpenAgentPresetDirectory takes no arguments
    void (() => remote.canOpenAgentPresetDirectory('preset/coder'))
    // @ts-expect-error: the signal of openSettingsDocument is the server's to supply
    void (() => remote.openSettingsDocument(new AbortController().signal))
    expectTypeOf(remote.openSettingsDocument).toBeCallableWith()
  })

  it('every view carries the paths of undeclared keys, and a diff field may say it is one', () => {
    expectTypeOf<SettingsDescribeValue['namespaces'][number]['undeclared']>().toEqualTypeOf<SettingsUndeclaredKey[]>()
    expectTypeOf<SettingsUndeclaredKey>().toEqualTypeOf<{ path: string[]; layer: 'base' | 'global' | 'scope' }>()
    expectTypeOf<SettingsFieldChange['undeclared']>().toEqualTypeOf<true | undefined>()
    // The path is a mutate path as it stands.
    expectTypeOf<{ op: 'unset'; path: SettingsUndeclaredKey['path'] }>().toMatchTypeOf<SettingsPathOpView>()
  })

  it('types ctx.remote.settings through RemoteServices', () => {
    expectTypeOf<RemoteServices['settings']>().toEqualTypeOf<SettingsRemote>()
  })
})
