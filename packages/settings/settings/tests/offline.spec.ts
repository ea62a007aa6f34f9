/**
 * `describeOffline`: what a host running the plugins would describe, from the
 * schema, the instances' bases and the document alone. Compared with the
 * service itself over the corpus (sampled sections with planted secrets as
 * stored sections and bases, global and scoped), then the states a command
 * meets: waiting for setup, a section the schema refuses, a section stored at
 * an older version.
 */
import Schema from 'schemastery'
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { afterEach, describe, expect, it } from 'vitest'
import { describeOffline } from 'dsh-settings/offline'
import { reviveEnvelope } from 'dsh-settings/revive'
import type { SettingsDescriptor } from 'dsh-settings'
import { boot, type Harness } from './harness.ts'

let harness: Harness | undefined
afterEach(async () => {
  await harness?.dispose()
  harness = undefined
})

/** A descriptor without its revision, which belongs to a running service. */
const withoutRevision = ({ revision, ...rest }: SettingsDescriptor) => (void revision, rest)

describe('describeOffline', () => {
  it('describes every corpus Config as the service does (redacted), globally and in a scope, from the revived sanitized envelope', async () => {
    const document: Record<string, unknown> = { scopes: { 'preset/a': {} } }
    const bases: Record<string, Record<string, unknown>> = {}
    for (const entry of corpusEntries()) {
      document[entry.ns] = sampleSection(corpusSchema(entry), { optional: true, secretPrefix: `stored-${entry.ns}` }).section
      ;(document.scopes as Record<string, Record<string, unknown>>)['preset/a']![entry.ns] = { ...sampleSection(corpusSchema(entry), { secretPrefix: `scoped-${entry.ns}` }).section }
      bases[entry.ns] = sampleSection(corpusSchema(entry), { secretPrefix: `base-${entry.ns}` }).section
    }
    harness = await boot({ document })
    for (const entry of corpusEntries()) {
      await harness.mount((ctx) => ctx.settings.register(entry.ns, corpusSchema(entry), { base: bases[entry.ns] as never })).catch(() => {})
      await harness.mountInScope('preset/a', (ctx) => ctx.settings.register(entry.ns, corpusSchema(entry), { base: bases[entry.ns] as never })).catch(() => {})
    }
    let compared = 0
    for (const entry of corpusEntries()) {
      const live = harness.provider.describe({ ns: entry.ns, redactSecrets: true })[0]!
      // What a command holds: the sanitized envelope, revived as data.
      const schema = reviveEnvelope(live.schema)
      const kind = { ns: entry.ns, schema, instances: [{ base: bases[entry.ns] }, { scope: 'preset/a', base: bases[entry.ns] }] }
      for (const scope of [undefined, 'preset/a']) {
        const options = scope === undefined ? {} : { scope }
        const host = harness.provider.describe({ ns: entry.ns, redactSecrets: true, ...options })[0]!
        const offline = describeOffline(kind, document, { redactSecrets: true, ...options })
        // The envelope revived from the sanitized one drops callbacks; what the command prints is the rest.
        expect({ ...withoutRevision(offline), schema: undefined }, `${entry.ns} ${scope ?? 'global'}`).toEqual({ ...withoutRevision(host), schema: undefined })
        compared++
      }
    }
    expect(compared).toBe(corpusEntries().length * 2)
  })

  it('waits for setup, leaves out an instance whose section the schema refuses, and says a section stored at an older version is pending, read as stored', () => {
    const schema = Schema.object({ token: Schema.string().role('secret').required(), limit: Schema.natural().max(50).default(10) })
    const bot = describeOffline({ ns: 'bot', schema, instances: [{}] }, {}, { redactSecrets: true })
    expect(bot).toMatchObject({ registered: true, needsSetup: true, problem: { missing: [['token']] }, secrets: [{ path: ['token'], set: false }] })
    const refused = describeOffline({ ns: 'bot', schema, instances: [{}] }, { bot: { token: 't', limit: 500 } }, { redactSecrets: true })
    expect(refused).toMatchObject({ registered: false, problem: { path: ['limit'] } })
    expect(JSON.stringify(refused)).not.toContain('"t"')
    const old = describeOffline({ ns: 'bot', schema, version: 2, steps: ['rename $.key to $.token', 'splitHost'], instances: [{}] }, { bot: { $version: 1, token: 't', limit: 5 } })
    expect(old).toMatchObject({ registered: true, value: { token: 't', limit: 5 }, migration: { version: 2, stored: 1, state: 'pending', steps: ['splitHost'] } })
  })
})
