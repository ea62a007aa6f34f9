import type { Context } from 'cordis'
import Schema from 'schemastery'
import type { SettingsPartial } from 'dsh-settings'

/** The user-editable settings of the assistant example: a dict of providers holding secrets. */
const Settings = Schema.object({
  model: Schema.string().default('small').description('Model id.'),
  temperature: Schema.number().min(0).max(2).default(0.7),
  providers: Schema.dict(
    Schema.object({
      baseUrl: Schema.string().required(),
      apiKey: Schema.string().role('secret'),
    }),
  ),
})

/** The assistant settings as the owner reads them. */
export type AssistantSettings = Schemastery.TypeT<typeof Settings>

/** What the `cordis.yml` entry may say: any part of the settings, the base layer below the user's own. */
export type Config = SettingsPartial<AssistantSettings>

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
 * by the deployment. Unlike the settings, a provider entry needs no `baseUrl`
 * here, since the user's own section may supply it.
 */
export const Config = Schema.object({
  model: Schema.string().description('Model id.'),
  temperature: Schema.number().min(0).max(2),
  providers: container(
    Schema.dict(
      Schema.object({
        baseUrl: Schema.string(),
        apiKey: Schema.string().role('secret'),
      }),
    ),
  ),
})

/** The plugin's name in logs. */
export const name = 'dsh-example-assistant'
/** Wait for a settings provider before applying. */
export const inject = ['settings']

/**
 * Register `assistant` as a restart namespace: its value is read once here,
 * and configuration pages badge a change as pending until the next start.
 */
export function apply(ctx: Context, config: Config = {}): void {
  const settings = ctx.settings.register('assistant', Settings, { base: config, applies: 'restart' })
  const { model, temperature, providers } = settings.get()
  ctx.logger('assistant').info('ready: model=%s temperature=%s providers=%s', model, temperature, Object.keys(providers).join(',') || '(none)')
}
