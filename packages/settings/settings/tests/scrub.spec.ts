import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { createRedactor } from '../src/redact.ts'
import { REDACTED, scrubbedError, scrubText, secretTexts } from '../src/scrub.ts'

const schema = Schema.object({
  apiKey: Schema.string().role('secret'),
  pin: Schema.number().role('secret'),
  providers: Schema.dict(Schema.object({ token: Schema.string().role('secret'), url: Schema.string() })),
  credentials: Schema.object({ user: Schema.string(), pass: Schema.string() }).role('secret'),
  name: Schema.string(),
})

describe('secretTexts', () => {
  it('finds every secret of every value given, as text, longest first', () => {
    const redactor = createRedactor(schema)
    const texts = secretTexts(redactor, [
      { apiKey: 'sk-live-1', pin: 4321, providers: { a: { token: 'tok-a', url: 'https://a' } }, name: 'plain' },
      { credentials: { user: 'root', pass: 'hunter2-long' } },
      undefined,
    ])
    expect(texts).toEqual(['hunter2-long', 'sk-live-1', 'tok-a', '4321', 'root'])
  })

  it('finds nothing where the schema declares no secret', () => {
    expect(secretTexts(createRedactor(Schema.object({ a: Schema.string() })), [{ a: 'x' }])).toEqual([])
  })
})

describe('scrubText and scrubbedError', () => {
  it('replaces every occurrence, the longer secret first', () => {
    expect(scrubText('key sk-live-1 and sk-live-1x and sk', ['sk-live-1x', 'sk-live-1'])).toBe(`key ${REDACTED} and ${REDACTED} and sk`)
  })

  it('copies an error with its name and code, its message and stack scrubbed', () => {
    const original = Object.assign(new TypeError('bad key sk-live-1'), { code: 'BAD' })
    const copy = scrubbedError(original, ['sk-live-1'])
    expect(copy).not.toBe(original)
    expect(copy).toMatchObject({ name: 'TypeError', message: `bad key ${REDACTED}`, code: 'BAD' })
    expect(copy.stack).not.toContain('sk-live-1')
    expect(scrubbedError('thrown text sk-live-1', ['sk-live-1']).message).toBe(`thrown text ${REDACTED}`)
  })
})
