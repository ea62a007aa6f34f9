/**
 * A migration step that fails on a stored value is told by its name and the
 * class of what it threw, never by its message: `JSON.parse` of a token
 * throws `Unexpected token 'Z', "Zq8XkP2mVt"... is not valid JSON`, which
 * quotes the token's first characters, so cutting whole stored texts out of
 * the message is not enough. No prefix of the stored value (4 characters or
 * more) may reach a log line (message, error, stack, cause), a descriptor, a
 * refusal or the registration's error.
 */
import type { Context } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import type { JsonObject, SettingsMigration } from 'dsh-settings'
import { MigrationStepFailure, SettingsMigrationStepError, thrownClass } from '../src/migration-steps.ts'
import { boot, doc, type Harness } from './harness.ts'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** A stored legacy value that looks like a secret and is not JSON: longer than 20 characters, so V8's message quotes only its first 10. */
const LEGACY = 'Zq8XkP2mVt7Yw3RnB5cLa9F2kQrT'
const SCOPED_LEGACY = 'Hx4TgW9sQp2VbN7kLm3DwE8jYc'

/** Every prefix of `value` at least 4 characters long. */
function prefixes(value: string): string[] {
  return Array.from({ length: value.length - 3 }, (_, index) => value.slice(0, index + 4))
}

/** `text` holds no prefix (4 characters or more) of any of `values`. */
function expectNoPrefix(text: string, ...values: string[]): void {
  const found = values.flatMap(prefixes).filter((prefix) => text.includes(prefix))
  expect(found).toEqual([])
}

/** Everything a log call carried: each argument, and for an error its name, message, stack, code and causes. */
function rawText(args: readonly unknown[]): string {
  const parts: string[] = []
  const add = (value: unknown, depth: number): void => {
    if (value instanceof Error) {
      parts.push(value.name, value.message, value.stack ?? '', String((value as { code?: unknown }).code ?? ''))
      if (depth < 5 && value.cause !== undefined) add(value.cause, depth + 1)
    } else parts.push(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value))
  }
  for (const arg of args) add(arg, 0)
  return parts.join('\n')
}

/** Version 1 of the plugin: the legacy `host` field held JSON (`{"name","port"}`); version 1 splits it. */
const Server = Schema.object({ name: Schema.string().default('localhost'), port: Schema.natural().default(80) })
function splitHost(section: JsonObject): JsonObject {
  const legacy = JSON.parse(section.host as string) as { name: string; port: number }
  return { name: legacy.name, port: legacy.port }
}
const STEPS: SettingsMigration[] = [splitHost]

describe('a migration step that throws on a stored value', () => {
  it('is told by step name and error class only: no prefix of the value in logs, errors, descriptors or refusals', async () => {
    // `server`: the global section migrates, the scoped one does not. `relay`: its only section does not.
    h = await boot({ document: doc({ server: { host: '{"name":"a.example","port":8080}' }, relay: { host: LEGACY }, scopes: { 'preset/a': { server: { host: SCOPED_LEGACY } } } }) })
    const raw: string[] = []
    h.root.logger.exporter({ export: (message) => void raw.push(rawText(message.args)) })

    const { value: server } = await h.mount((ctx: Context) => ctx.settings.register('server', Server, { version: 1, migrations: STEPS }))
    expect(server.get()).toEqual({ name: 'a.example', port: 8080 })
    const refused = await h.mount((ctx: Context) => ctx.settings.register('relay', Server, { version: 1, migrations: STEPS })).then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    expect(refused).toMatchObject({ code: 'SETTINGS_INVALID', message: 'settings "relay" section cannot be migrated from version 0 to 1: step "splitHost" (version 0 to 1) threw SyntaxError' })
    expect(h.logs.map((line) => line.text)).toContain(
      'settings "relay": migration step "splitHost" (version 0 to 1) threw SyntaxError; the stored section stays at version 0 and is not in effect SettingsMigrationStepError: settings "relay": migration step "splitHost" (version 0 to 1) threw SyntaxError',
    )

    const [scoped] = h.provider.describe({ ns: 'server', scope: 'preset/a', redactSecrets: true })
    expect(scoped!.problem).toEqual({ path: [], message: 'the stored section cannot be migrated from version 0 to 1: step "splitHost" (version 0 to 1) threw SyntaxError' })
    const write = await h.provider.update('server', { port: 8081 }, undefined, 'preset/a').then(
      () => 'stored',
      (error: unknown) => rawText([error]),
    )
    expect(write).toContain('step "splitHost" (version 0 to 1) threw SyntaxError')
    await h.logged((line) => line.text.includes('settings "server": the stored section was migrated'))

    const descriptors = [...h.provider.describe({ redactSecrets: true }), ...h.provider.describe({ redactSecrets: true, scope: 'preset/a' })]
    const everything = [rawText([refused]), ...raw, JSON.stringify(h.logs), JSON.stringify(descriptors), write].join('\n')
    expect(raw.some((text) => text.includes('threw SyntaxError'))).toBe(true)
    expectNoPrefix(everything, LEGACY, SCOPED_LEGACY)
  })

  it('keeps what the step said out of the failure it records', () => {
    let said = ''
    try {
      JSON.parse(LEGACY)
    } catch (error) {
      said = (error as Error).message
    }
    // The premise: the engine's own message quotes the value's first characters.
    expect(said).toContain(LEGACY.slice(0, 4))
    const failure = new MigrationStepFailure(0, 'splitHost', { threw: 'SyntaxError' })
    const error = new SettingsMigrationStepError('server', failure)
    expect({ name: error.name, code: error.code, message: error.message, stack: error.stack }).toEqual({
      name: 'SettingsMigrationStepError',
      code: 'SETTINGS_MIGRATION_STEP',
      message: 'settings "server": migration step "splitHost" (version 0 to 1) threw SyntaxError',
      stack: 'SettingsMigrationStepError: settings "server": migration step "splitHost" (version 0 to 1) threw SyntaxError',
    })
    expect(Object.keys(failure)).not.toContain('cause')
  })
})

describe('thrownClass', () => {
  it('names the class of what was thrown, never a name or text the thrown value carries', () => {
    class LegacyFormatError extends Error {}
    const renamed = Object.assign(new TypeError('x'), { name: LEGACY })
    expect(thrownClass(new SyntaxError(`Unexpected token 'Z', "${LEGACY.slice(0, 10)}"... is not valid JSON`))).toBe('SyntaxError')
    expect(thrownClass(new LegacyFormatError(LEGACY))).toBe('LegacyFormatError')
    expect(thrownClass(renamed)).toBe('TypeError')
    expect(thrownClass(LEGACY)).toBe('a string')
    expect(thrownClass(42)).toBe('a number')
    expect(thrownClass(undefined)).toBe('undefined')
    expect(thrownClass(null)).toBe('null')
    expect(thrownClass(Object.create(null))).toBe('an object')
    expect(thrownClass({ token: LEGACY })).toBe('Object')
    // A constructor whose name is not one a class is given in code (a computed one holding data) is not told.
    const Named = { [`${LEGACY} x`]: class {} }[`${LEGACY} x`]!
    expect(thrownClass(new Named())).toBe('an object')
  })
})
