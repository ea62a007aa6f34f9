import type { Context } from 'cordis'
import Schema from 'schemastery'
import type { SettingsPartial } from 'dsh-settings'

/** The user-editable settings of the web search example: nested objects, a plain secret, secrets in a list. */
const Settings = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo').description('Search engine.'),
  limit: Schema.natural().max(50).default(10).description('Results per query.'),
  safeSearch: Schema.object({
    enabled: Schema.boolean().default(true),
    level: Schema.union(['moderate', 'strict']).default('moderate'),
  }),
  apiKey: Schema.string().role('secret').description('API key of the engine.'),
  mirrors: Schema.array(
    Schema.object({
      url: Schema.string().required(),
      token: Schema.string().role('secret'),
    }),
  ).default([]),
})

/** The plugin's name in logs. */
export const name = 'dsh-example-web-search'
/** Wait for a settings provider before applying. */
export const inject = ['settings']

/** Register `web-search` with the `cordis.yml` entry as the base layer, and log what the owner sees. */
export function apply(ctx: Context, config: SettingsPartial<Schemastery.TypeT<typeof Settings>> = {}): void {
  const logger = ctx.logger('web-search')
  const settings = ctx.settings.register('web-search', Settings, { base: config })
  const show = (value: Schemastery.TypeT<typeof Settings>) =>
    `engine=${value.engine} limit=${value.limit} safeSearch=${value.safeSearch.enabled ? value.safeSearch.level : 'off'} apiKey=${value.apiKey ? 'set' : 'unset'} mirrors=${value.mirrors.length}`
  logger.info('ready: %s', show(settings.get()))
  settings.watch((next) => logger.info('changed: %s', show(next)))
}
