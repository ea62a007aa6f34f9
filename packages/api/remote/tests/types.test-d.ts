/**
 * The client's types, checked by tsc in vitest's typecheck mode: `RemoteService`
 * derives a client shape from a service class (every call async, a trailing
 * `AbortSignal` left to the server, a method without parameters taking none),
 * and `createRemote` checks calls against it.
 */
import { describe, expectTypeOf, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import type { Remote, RemoteMethod, RemoteService } from '../src/types.ts'

/** A stand-in for a controller class: sync and async methods, optional and signal parameters. */
declare class Controller {
  describe(scope?: string): { writable: boolean }
  update(ns: string, patch: Record<string, unknown>, expectedRevision?: number | null, scope?: string): Promise<{ revision: number }>
  openSettingsDocument(signal: AbortSignal): Promise<{ opened: true }>
  openAgentPresetDirectory(presetId: string, signal?: AbortSignal): Promise<{ opened: boolean; directory?: string }>
  canOpen(): boolean
  ping(signal?: AbortSignal): Promise<'pong'>
  private secretHelper(): void
  internal(): void
}

type ControllerRemote = RemoteService<Controller, 'describe' | 'update' | 'openSettingsDocument' | 'openAgentPresetDirectory' | 'canOpen' | 'ping'>

describe('RemoteService', () => {
  it('makes every method async and keeps the parameters', () => {
    expectTypeOf<ControllerRemote['describe']>().toEqualTypeOf<(scope?: string) => Promise<{ writable: boolean }>>()
    expectTypeOf<ControllerRemote['update']>().parameters.toEqualTypeOf<[ns: string, patch: Record<string, unknown>, expectedRevision?: number | null, scope?: string]>()
    expectTypeOf<ControllerRemote['update']>().returns.toEqualTypeOf<Promise<{ revision: number }>>()
  })

  it('drops a trailing AbortSignal parameter, required or optional', () => {
    expectTypeOf<ControllerRemote['openSettingsDocument']>().toEqualTypeOf<() => Promise<{ opened: true }>>()
    expectTypeOf<ControllerRemote['openAgentPresetDirectory']>().parameters.toEqualTypeOf<[presetId: string]>()
  })

  it('gives a method without parameters a client method without parameters', () => {
    expectTypeOf<ControllerRemote['canOpen']>().toEqualTypeOf<() => Promise<boolean>>()
    expectTypeOf<ControllerRemote['canOpen']>().parameters.toEqualTypeOf<[]>()
    expectTypeOf<RemoteMethod<() => void>>().toEqualTypeOf<() => Promise<void>>()
  })

  it('gives a method whose only parameter is an optional signal no parameters either', () => {
    expectTypeOf<ControllerRemote['ping']>().toEqualTypeOf<() => Promise<'pong'>>()
  })

  it('lists only the chosen methods', () => {
    expectTypeOf<keyof ControllerRemote>().toEqualTypeOf<'describe' | 'update' | 'openSettingsDocument' | 'openAgentPresetDirectory' | 'canOpen' | 'ping'>()
  })

  it('types a plain function too', () => {
    expectTypeOf<RemoteMethod<(a: number) => string>>().toEqualTypeOf<(a: number) => Promise<string>>()
  })
})

describe('createRemote', () => {
  it('checks calls against the services it is given', () => {
    const remote = createRemote<{ settings: ControllerRemote }>({ url: 'http://127.0.0.1:1', token: 't' })
    expectTypeOf(remote).toEqualTypeOf<Remote<{ settings: ControllerRemote }>>()
    expectTypeOf(remote.settings.describe).toBeCallableWith()
    expectTypeOf(remote.settings.describe).toBeCallableWith('preset/coder')
    expectTypeOf(remote.settings.update).toBeCallableWith('web-search', { limit: 3 }, null)
    expectTypeOf(remote.settings.openSettingsDocument).toBeCallableWith()
    expectTypeOf(remote.events).parameters.toMatchTypeOf<[unknown, { signal: AbortSignal }]>()
    // @ts-expect-error: a method the service does not list
    void remote.settings.internal
    // @ts-expect-error: a service that was not declared
    void remote.other
    // @ts-expect-error: a wrong argument type
    void (() => remote.settings.describe(42))
    expectTypeOf(remote.settings.canOpen).toBeCallableWith()
    // @ts-expect-error: a method without parameters takes no arguments
    void (() => remote.settings.canOpen(1))
    // @ts-expect-error: nor does one whose only parameter is the server's signal
    void (() => remote.settings.ping('x'))
    // @ts-expect-error: nor may an open method be handed the signal the server supplies
    void (() => remote.settings.openSettingsDocument(new AbortController().signal))
  })

  it('accepts any service and method when untyped', () => {
    const remote = createRemote({ url: 'http://127.0.0.1:1', token: 't' })
    // An index signature: under noUncheckedIndexedAccess a service read by any name may be undefined to the compiler.
    const service = remote.anything!
    expectTypeOf(service.at).toBeCallableWith(1, 'two', { three: 3 })
    expectTypeOf(service.at).returns.toEqualTypeOf<Promise<unknown>>()
  })
})
