/**
 * `pnpm start`: a small demo of the settings seam on the in-memory provider.
 * It registers a namespace, writes to it, and prints the resolved value and
 * the redacted descriptor a configuration page would receive.
 */
import { Context, Logger } from 'cordis'
import Schema from 'schemastery'
import { MemorySettingsProvider } from 'dsh-settings/memory'

const root = new Context()
const exporter = {
  colors: false as const,
  export: (message: Parameters<typeof Logger.format>[1]) => console.log(Logger.format(exporter, message)),
}
root.logger.exporter(exporter)

const provider = root.plugin(MemorySettingsProvider, { document: { 'web-search': { engine: 'bing' } } })
await provider

const schema = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo'),
  limit: Schema.natural().max(50).default(10),
  apiKey: Schema.string().role('secret'),
})

/** The demo prints values without their secret, as any log line should. */
const shown = (value: { apiKey?: string }) => ({ ...value, apiKey: value.apiKey === undefined ? '(unset)' : '(set)' })

await new Promise<void>((resolve) => {
  root.inject(['settings'], async (ctx) => {
    const search = ctx.settings.register('web-search', schema, { base: { limit: 20 } })
    console.log('resolved at start:', shown(search.get()))
    search.watch((next) => console.log('watcher saw:', shown(next)))
    await search.update({ engine: 'google', apiKey: 'sk-demo-secret' })
    console.log('resolved after update:', shown(search.get()))
    const { value, user, revision, secrets } = ctx.settings.describe({ redactSecrets: true })[0]!
    console.log('what a configuration page receives:', JSON.stringify({ value, user, revision, secrets }))
    resolve()
  })
})

await provider.dispose()
