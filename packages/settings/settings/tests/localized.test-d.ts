/**
 * Descriptions per locale type-check once `dsh-settings` is imported (`src/localized.ts`):
 * schemastery's own typing takes a string only, though the dict works at run time.
 */
import Schema from 'schemastery'
import { describe, expectTypeOf, it } from 'vitest'
import type { LocalizedText } from '../src/index.ts'

describe('description per locale', () => {
  it('takes a dict of locales and keeps the schema’s types', () => {
    const greeting = Schema.string().default('hello').description({ 'zh-CN': '开场白', 'en-US': 'What to say first' })
    expectTypeOf(greeting).toEqualTypeOf<Schema<string, string>>()
    const settings = Schema.object({ greeting, volume: Schema.natural().description('How loud') })
    expectTypeOf(settings({}).greeting).toEqualTypeOf<string>()
    const text: LocalizedText = { '': 'plain', fr: 'français' }
    expectTypeOf(Schema.boolean().description(text)).toEqualTypeOf<Schema<boolean, boolean>>()
  })

  it('still refuses what is no text', () => {
    // @ts-expect-error a number is no description
    Schema.string().description(42)
    // @ts-expect-error a locale's text is a string
    Schema.string().description({ 'en-US': 1 })
  })
})
