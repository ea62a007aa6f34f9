/**
 * Every published Config of the corpus (dsh-testing/corpus) through the seam:
 * registered with no stored section (it starts, or waits for setup naming each
 * missing path) and with a realistic one; described with planted secrets, none
 * of which leaves a redacted descriptor; written and read back.
 */
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsNeedsSetupError, type SettingsScope } from 'dsh-settings'
import { boot, type Harness } from './harness.ts'

let harness: Harness | undefined
afterEach(async () => {
  await harness?.dispose()
  harness = undefined
})

const entries = corpusEntries()

describe('the corpus of published Configs through the seam', () => {
  it(`holds at least 30 Configs from at least 20 packages`, () => {
    expect(entries.length).toBeGreaterThanOrEqual(30)
    expect(new Set(entries.map((entry) => entry.package)).size).toBeGreaterThanOrEqual(20)
    for (const entry of entries) expect(entry).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), license: expect.any(String) })
  })

  it('with no stored section: each plugin starts, or waits for setup naming exactly what it lacks', async () => {
    harness = await boot()
    const outcomes = { started: 0, waiting: 0 }
    for (const entry of entries) {
      const schema = corpusSchema(entry)
      const failure = await harness.mount((ctx) => ctx.settings.register(entry.ns, schema)).then(
        () => undefined,
        (error: unknown) => error,
      )
      const view = harness.provider.describe({ ns: entry.ns, redactSecrets: true })[0]
      expect(view, entry.ns).toBeDefined()
      if (failure === undefined) {
        outcomes.started++
        expect(view!.needsSetup).toBeUndefined()
        continue
      }
      outcomes.waiting++
      expect(failure, entry.ns).toBeInstanceOf(SettingsNeedsSetupError)
      const missing = (failure as SettingsNeedsSetupError).missing
      expect(missing.length, entry.ns).toBeGreaterThan(0)
      expect(view).toMatchObject({ needsSetup: true, problem: { missing } })
      // Each path named is one the schema refuses to go without.
      expect(() => schema({}), entry.ns).toThrow()
    }
    expect(outcomes.started + outcomes.waiting).toBe(entries.length)
    expect(outcomes.waiting).toBeGreaterThan(0)
  })

  it('with a realistic stored section holding planted secrets: registers, resolves it, and describes it without a secret', async () => {
    const planted: Record<string, string[]> = {}
    const document: Record<string, unknown> = {}
    for (const entry of entries) {
      const { section, secrets } = sampleSection(corpusSchema(entry), { optional: true, secretPrefix: `planted-${entry.ns}` })
      document[entry.ns] = section
      planted[entry.ns] = secrets
    }
    harness = await boot({ document: document as never })
    const handles = new Map<string, SettingsScope<unknown>>()
    for (const entry of entries) {
      const { value } = await harness.mount((ctx) => ctx.settings.register(entry.ns, corpusSchema(entry)))
      handles.set(entry.ns, value)
    }
    const described = harness.provider.describe({ redactSecrets: true })
    expect(described.map((view) => view.ns).sort()).toEqual(entries.map((entry) => entry.ns).sort())
    const text = JSON.stringify(described)
    const all = Object.values(planted).flat()
    expect(all.length).toBeGreaterThan(10)
    for (const secret of all) expect(text).not.toContain(secret)
    for (const view of described) {
      expect(view.problem, view.ns).toBeUndefined()
      expect(view.secrets!.filter((slot) => slot.set).length, view.ns).toBe(planted[view.ns]!.length)
      // The value the plugin reads holds every planted secret; the stored section reads back as written.
      const read = JSON.stringify(handles.get(view.ns)!.get())
      for (const secret of planted[view.ns]!) expect(read).toContain(secret)
    }
  })

  it('each plugin, set up or not, takes its section written through the seam and reads it back', async () => {
    harness = await boot()
    const reads = new Map<string, unknown>()
    for (const entry of entries) {
      const schema = corpusSchema(entry)
      // As authors write plugins: register and read; one that needs setup fails here and is started again later.
      harness.root.plugin({
        inject: ['settings'],
        apply: (ctx) => {
          const settings = ctx.settings.register(entry.ns, schema)
          reads.set(entry.ns, settings.get())
          settings.watch((next) => void reads.set(entry.ns, next))
        },
      })
    }
    await expect.poll(() => harness!.provider.describe().length).toBe(entries.length)
    for (const entry of entries) {
      const { section } = sampleSection(corpusSchema(entry))
      await harness.provider.replace(entry.ns, section)
      expect(harness.provider.describe({ ns: entry.ns })[0]!.user ?? {}, entry.ns).toEqual(section)
    }
    await expect.poll(() => reads.size).toBe(entries.length)
    expect(harness.provider.describe().filter((view) => view.needsSetup)).toEqual([])
    for (const entry of entries) {
      const schema = corpusSchema(entry)
      await expect.poll(() => reads.get(entry.ns), { message: entry.ns }).toEqual(schema(sampleSection(schema).section))
    }
  })
})
