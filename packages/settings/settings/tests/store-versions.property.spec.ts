import { Context, type Fiber } from 'cordis'
import fc from 'fast-check'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import type { SettingsProvider } from 'dsh-settings'
import { eventually, plugWithSettings } from 'dsh-testing'
import { SharedStore, SharedStoreProvider } from './providers/shared-store.ts'

const Tally = Schema.dict(Schema.number())

interface Watched {
  settings: SettingsProvider
  fiber: Fiber
  revisions: number[]
  keySets: string[][]
  write(key: string): Promise<void>
}

async function host(store: SharedStore): Promise<Watched> {
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const fiber = root.plugin(SharedStoreProvider, { store, trustFeed: true })
  await fiber
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  const { value: tally } = await plugWithSettings(root, (ctx) => ctx.settings.register('tally', Tally))
  const watched: Watched = { settings, fiber, revisions: [], keySets: [], write: (key) => tally.update({ [key]: 1 }) }
  root.on('settings/document-updated', (_ns, revision) => void watched.revisions.push(revision))
  root.on('settings/updated', (_ns, next) => void watched.keySets.push(Object.keys(next as object).sort()))
  return watched
}

const isSubset = (small: string[], big: string[]) => small.every((key) => big.includes(key))

describe('two hosts on one versioned store, the feed delivering stale data late and out of order', () => {
  it('never takes a host back: revisions only grow, no key once seen is lost, and both hosts end equal to the store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ onB: fc.boolean(), pause: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 16 }),
        fc.nat({ max: 15 }),
        async (steps, feedDelayMs) => {
          const store = new SharedStore()
          store.feedDelayMs = feedDelayMs
          const [a, b] = [await host(store), await host(store)]
          try {
            const writes: Promise<void>[] = []
            for (const [index, step] of steps.entries()) {
              writes.push((step.onB ? b : a).write(`k${index}`))
              if (step.pause) await new Promise((resolve) => setTimeout(resolve, step.pause))
            }
            await Promise.all(writes)
            const all = steps.map((_, index) => `k${index}`).sort()
            for (const side of [a, b]) {
              await eventually(() => expect(Object.keys(side.settings.get('tally') as object).sort()).toEqual(all), 5_000)
              // Echoes still on their way must not change anything: wait them out, then check the whole history.
              await new Promise((resolve) => setTimeout(resolve, feedDelayMs + 5))
              expect(Object.keys(side.settings.get('tally') as object).sort()).toEqual(all)
              for (let i = 1; i < side.revisions.length; i++) expect(side.revisions[i]!).toBeGreaterThan(side.revisions[i - 1]!)
              for (let i = 1; i < side.keySets.length; i++) expect(isSubset(side.keySets[i - 1]!, side.keySets[i]!)).toBe(true)
              expect(side.settings.describe({ ns: 'tally', redactSecrets: true })[0]!.revision).toBe(store.version)
            }
          } finally {
            await a.fiber.dispose()
            await b.fiber.dispose()
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
