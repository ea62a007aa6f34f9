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

/** The web search settings as the owner reads them. */
export type WebSearchSettings = Schemastery.TypeT<typeof Settings>

/** What the `cordis.yml` entry may say: any part of the settings, the base layer below the user's own. */
export type Config = SettingsPartial<WebSearchSettings>

/**
 * An object, dict or list field of a layer: absent stays absent (a bare container
 * schema would fill in an empty one) and `null`, which hands the field back to its
 * default, passes, as it does for scalar fields.
 */
function container<S, T>(schema: Schema<S, T>): Schema<S | null, T | null> {
  return Schema.union([schema, Schema.const(null)])
}

/**
 * The schema cordis checks the `cordis.yml` entry with. It holds the settings'
 * rules but none of their defaults, and leaves out what the entry leaves out:
 * the entry is the base layer, so a default filled in here would read as set
 * by the deployment. A list replaces the one below it whole, so each mirror
 * needs its `url` here as in the settings.
 */
export const Config = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).description('Search engine.'),
  limit: Schema.natural().max(50).description('Results per query.'),
  safeSearch: container(
    Schema.object({
      enabled: Schema.boolean(),
      level: Schema.union(['moderate', 'strict']),
    }),
  ),
  apiKey: Schema.string().role('secret').description('API key of the engine.'),
  mirrors: container(
    Schema.array(
      Schema.object({
        url: Schema.string().required(),
        token: Schema.string().role('secret'),
      }),
    ),
  ),
})

/** The plugin's name in logs. */
export const name = 'dsh-example-web-search'
/** Wait for a settings provider before applying. */
export const inject = ['settings']

/** Register `web-search` with the `cordis.yml` entry as the base layer, and log what the owner sees. */
export function apply(ctx: Context, config: Config = {}): void {
  const logger = ctx.logger('web-search')
  const settings = ctx.settings.register('web-search', Settings, { base: config })
  const show = (value: WebSearchSettings) =>
    `engine=${value.engine} limit=${value.limit} safeSearch=${value.safeSearch.enabled ? value.safeSearch.level : 'off'} apiKey=${value.apiKey ? 'set' : 'unset'} mirrors=${value.mirrors.length}`
  logger.info('ready: %s', show(settings.get()))
  settings.watch((next) => logger.info('changed: %s', show(next)))
}
