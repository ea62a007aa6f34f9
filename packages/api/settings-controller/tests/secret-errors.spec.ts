/**
 * An owner's `validate` that quotes a secret in its error: the secret never leaves the process
 * (not in the wire error, its details, the log, or the error's cause), while the code and path stay.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsValidationError } from 'dsh-settings'
import { boot, remoteFailure, type Booted } from './harness.ts'

const SECRET = 'sk-live-0123456789abcdef'
const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  apiKey: Schema.string().role('secret'),
  mirrors: Schema.array(Schema.object({ url: Schema.string(), token: Schema.string().role('secret') })).default([]),
})
type Search = ReturnType<typeof Search>

/** An owner check that refuses google and, carelessly, quotes the secrets in its message. */
function carelessCheck(value: Search): void {
  if (value.engine === 'google') throw new Error(`bad key ${value.apiKey} for google (mirror token ${value.mirrors[0]?.token})`)
}

let booted: Booted | undefined
afterEach(async () => {
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

describe('a refusal that quotes a secret', () => {
  it('reaches the wire with the secret replaced by [redacted], its code and path kept', async () => {
    booted = await boot({ document: { search: { apiKey: SECRET, mirrors: [{ url: 'https://m', token: 'mirror-token-42' }] } } })
    await booted.register('search', Search, { validate: carelessCheck })
    const error = await remoteFailure(() => booted!.controller.update('search', { engine: 'google' }, undefined), 'settings/rejected')
    expect(error.message).toContain('bad key [redacted] for google (mirror token [redacted])')
    expect(error.details).toMatchObject({ ns: 'search', path: [], reason: 'SETTINGS_INVALID' })
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(SECRET)
    expect(JSON.stringify(booted.logs)).not.toContain(SECRET)
    expect(JSON.stringify(booted.logs)).not.toContain('mirror-token-42')
  })

  it('keeps the secret out of the in-process error and its cause too', async () => {
    booted = await boot({ document: { search: { apiKey: SECRET } } })
    await booted.register('search', Search, { validate: carelessCheck })
    const error = await booted.provider.update('search', { engine: 'google' }).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(SettingsValidationError)
    const cause = (error as Error).cause as Error
    for (const text of [(error as Error).message, (error as Error).stack, cause.message, cause.stack]) expect(text).not.toContain(SECRET)
    expect(cause.message).toBe('bad key [redacted] for google (mirror token undefined)')
    // A secret written in the same refused write is cut out as well.
    const fresh = 'sk-new-9876543210'
    const second = await booted.provider.update('search', { engine: 'google', apiKey: fresh }).catch((failure: unknown) => failure)
    expect((second as Error).message).not.toContain(fresh)
  })
})
