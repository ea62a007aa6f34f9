/**
 * The schemas a first setup is tested on: every published Config of the corpus
 * and of the held-out set (`dsh-testing/corpus`) that waits for setup with
 * nothing stored (its `register` throws `SettingsNeedsSetupError`), and the
 * docs' adapter pattern. Shared by the model's setup spec and the page's
 * setup journey, so both walk the same list.
 */
import { Context } from 'cordis'
import { SettingsNeedsSetupError, type SettingsProvider } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { corpusEntries, corpusSchema, heldOutEntries, type CorpusEntry } from 'dsh-testing/corpus'
import Schema from 'schemastery'

/** The adapter pattern of `docs/settings.md`: a required secret shared by every form, and a protocol union. */
export const DOCS_ADAPTER = Schema.intersect([
  Schema.object({ token: Schema.string().role('secret').required().description('Bot token.') }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().required().description('Where the service listens.') }),
    Schema.object({ protocol: Schema.const('ws').required(), gateway: Schema.string().default('wss://gateway.example').description('Gateway address.') }),
  ]),
]).description('A chat adapter, as the docs write one.')

/** One schema that waits for setup. */
export interface SetupCase {
  /** The namespace it is registered under. */
  ns: string
  /** Where it comes from. */
  source: 'corpus' | 'held-out' | 'docs'
  /** The published package and export, or `docs` for the docs' pattern. */
  label: string
  schema: Schema
  /** The paths `register` named as missing with nothing stored. */
  missing: string[][]
}

/** Register `schema` on a fresh memory provider with nothing stored; answers the missing paths, or undefined when it starts. */
async function missingAtStart(settings: SettingsProvider, root: Context, ns: string, schema: Schema): Promise<string[][] | undefined> {
  let failure: unknown
  const fiber = root.plugin({
    inject: ['settings'],
    apply: (ctx: Context) => {
      try {
        ctx.settings.register(ns, schema)
      } catch (error) {
        failure = error
        throw error
      }
    },
  })
  await fiber.await().catch(() => undefined)
  await fiber.dispose()
  if (failure === undefined) return undefined
  if (failure instanceof SettingsNeedsSetupError) return failure.missing
  // Anything else is a real failure of the seam on a published schema: the specs must hear of it.
  throw failure
}

function caseOf(entry: CorpusEntry, source: 'corpus' | 'held-out'): Omit<SetupCase, 'missing'> {
  return { ns: entry.ns, source, label: `${entry.package}@${entry.version} ${entry.export}`, schema: corpusSchema(entry) }
}

let cached: Promise<SetupCase[]> | undefined

/**
 * Every schema that waits for setup: the docs' adapter first, then the
 * corpus's and the held-out set's, in fixture order. Worked out once per test
 * file by registering each on the real seam over an empty memory document.
 */
export function setupCases(): Promise<SetupCase[]> {
  cached ??= (async () => {
    const root = new Context()
    root.logger.exporter({ export: () => {} })
    const provider = root.plugin(MemorySettingsProvider, { document: {} })
    await provider
    let settings!: SettingsProvider
    await root.inject(['settings'], (ctx) => {
      settings = ctx.settings
    })
    try {
      const candidates = [
        { ns: 'docs-adapter', source: 'docs' as const, label: 'docs', schema: DOCS_ADAPTER },
        ...corpusEntries().map((entry) => caseOf(entry, 'corpus')),
        ...heldOutEntries().map((entry) => caseOf(entry, 'held-out')),
      ]
      const cases: SetupCase[] = []
      for (const candidate of candidates) {
        const missing = await missingAtStart(settings, root, candidate.ns, candidate.schema)
        if (missing) cases.push({ ...candidate, missing })
      }
      return cases
    } finally {
      await provider.dispose()
    }
  })()
  return cached
}
