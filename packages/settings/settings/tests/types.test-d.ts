/**
 * The seam's public types, checked by tsc in vitest's typecheck mode: what `register` hands its
 * owner, that the owner's writes are typed by the schema's value, and which namespace literals the
 * compiler already refuses. A `// @ts-expect-error` line that stops being an error fails the run.
 */
import type { Context } from 'cordis'
import Schema from 'schemastery'
import { describe, expectTypeOf, it } from 'vitest'
import type { SettingsNamespaceInput, SettingsPartial, SettingsProvider, SettingsScope } from 'dsh-settings'

declare const ctx: Context

const search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  limit: Schema.natural().default(5),
  apiKey: Schema.string().role('secret'),
  tags: Schema.array(String).default([]),
  nested: Schema.object({ depth: Schema.number().default(1) }),
})
type Search = ReturnType<typeof search>

/** A plugin's config type declared by hand, with its schema typed against it (the usual cordis plugin shape). */
interface Assistant {
  model: string
  temperature: number
  stop: string[]
  limits: { tokens: number; turns?: number }
}
declare const assistant: Schema<Assistant>

describe('register', () => {
  it('returns the owner handle of the schema value', () => {
    const scope = ctx.settings.register('web-search', search)
    expectTypeOf(scope).toEqualTypeOf<SettingsScope<Search>>()
    expectTypeOf(scope.get()).toEqualTypeOf<Search>()
    expectTypeOf(scope.get().engine).toEqualTypeOf<'bing' | 'google'>()
    expectTypeOf(scope.get().limit).toEqualTypeOf<number>()
    expectTypeOf(scope.get().tags).toEqualTypeOf<string[]>()
    expectTypeOf(scope.get().nested.depth).toEqualTypeOf<number>()
  })

  it('keeps a hand-declared config type exactly', () => {
    const scope = ctx.settings.register('assistant', assistant)
    expectTypeOf(scope).toEqualTypeOf<SettingsScope<Assistant>>()
    expectTypeOf(scope.get()).toEqualTypeOf<Assistant>()
  })

  it('hands watch callbacks the value type, next and prev', () => {
    const scope = ctx.settings.register('assistant', assistant)
    expectTypeOf(scope.watch).parameter(0).toEqualTypeOf<(next: Assistant, prev: Assistant) => void | Promise<void>>()
    expectTypeOf(scope.watch).returns.toEqualTypeOf<() => void>()
  })

  it('types the composition base and the extra check by the schema value', () => {
    ctx.settings.register('assistant', assistant, { base: { model: 'small', limits: { tokens: 10 } }, validate: (value) => expectTypeOf(value).toEqualTypeOf<Assistant>() })
    // @ts-expect-error a base field of the wrong type
    ctx.settings.register('assistant', assistant, { base: { temperature: 'warm' } })
    // @ts-expect-error a base field the schema does not have
    ctx.settings.register('assistant', assistant, { base: { modle: 'small' } })
    // @ts-expect-error `applies` is `live` or `restart`
    ctx.settings.register('assistant', assistant, { applies: 'later' })
  })
})

describe('the owner handle writes', () => {
  const scope = ctx.settings.register('assistant', assistant)

  it('take a deep partial of the value', () => {
    expectTypeOf(scope.update).parameter(0).toEqualTypeOf<SettingsPartial<Assistant>>()
    expectTypeOf(scope.replace).parameter(0).toEqualTypeOf<SettingsPartial<Assistant>>()
    expectTypeOf(scope.update).returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf(scope.replace).returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf(scope.update).toBeCallableWith({ model: 'large' })
    expectTypeOf(scope.update).toBeCallableWith({ limits: { turns: 3 } })
    // `null` is stored as data (the layers below do not show through it).
    expectTypeOf(scope.update).toBeCallableWith({ temperature: null })
    expectTypeOf(scope.replace).toBeCallableWith({})
    expectTypeOf(scope.replace).toBeCallableWith({ model: 'large', stop: ['\n'] })
  })

  it('refuse a field of the wrong type, at any depth', () => {
    // @ts-expect-error temperature is a number
    void scope.update({ temperature: 'warm' })
    // @ts-expect-error tokens is a number
    void scope.update({ limits: { tokens: '10' } })
    // @ts-expect-error an array is replaced whole, so its items keep their type
    void scope.update({ stop: [1] })
    // @ts-expect-error model is a string
    void scope.replace({ model: 42 })
    // @ts-expect-error limits is an object
    void scope.replace({ limits: 3 })
  })

  it('refuse a field the schema does not have', () => {
    // @ts-expect-error a misspelt field
    void scope.update({ modle: 'large' })
    // @ts-expect-error a misspelt nested field
    void scope.replace({ limits: { token: 1 } })
  })

  it('refuse a union member the schema does not list', () => {
    const web = ctx.settings.register('web-search', search)
    expectTypeOf(web.update).toBeCallableWith({ engine: 'google' })
    // @ts-expect-error engine is 'bing' or 'google'
    void web.update({ engine: 'yahoo' })
  })
})

describe('namespace literals', () => {
  it('accept lowercase kebab-case, digits included', () => {
    expectTypeOf<SettingsNamespaceInput<'web-search'>>().toEqualTypeOf<unknown>()
    expectTypeOf<SettingsNamespaceInput<'a'>>().toEqualTypeOf<unknown>()
    expectTypeOf<SettingsNamespaceInput<'search-2'>>().toEqualTypeOf<unknown>()
  })

  it('leave a non-literal string to the run-time check', () => {
    expectTypeOf<SettingsNamespaceInput<string>>().toEqualTypeOf<unknown>()
    const ns: string = 'web-search'
    expectTypeOf(ctx.settings.register(ns, search)).toEqualTypeOf<SettingsScope<Search>>()
  })

  it('refuse empty, upper-case, separators other than one inner hyphen', () => {
    expectTypeOf<SettingsNamespaceInput<''>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'Web-Search'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'web_search'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'web.search'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'web/search'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'web search'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'-web'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'web-'>>().toBeNever()
    expectTypeOf<SettingsNamespaceInput<'web--search'>>().toBeNever()
  })

  it('refuse a bad literal at every entry point that takes a namespace', () => {
    const provider = null as unknown as SettingsProvider
    // @ts-expect-error upper case
    ctx.settings.register('WebSearch', search)
    // @ts-expect-error an underscore
    ctx.settings.register('web_search', search)
    // @ts-expect-error a trailing hyphen
    void provider.update('web-', {})
    // @ts-expect-error a dot
    void provider.replace('web.search', {})
    // @ts-expect-error a slash (scopes are not namespaces)
    void provider.mutate('preset/coder', [])
    // @ts-expect-error a space
    provider.get('web search')
    // @ts-expect-error empty
    provider.installSection(ctx, '', search, search(), { setSource() {}, onChange() {} })
  })
})
