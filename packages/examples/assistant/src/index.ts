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

/** The plugin's name in logs. */
export const name = 'dsh-example-assistant'
/** Wait for a settings provider before applying. */
export const inject = ['settings']

/**
 * Register `assistant` as a restart namespace: its value is read once here,
 * and configuration pages badge a change as pending until the next start.
 */
export function apply(ctx: Context, config: SettingsPartial<Schemastery.TypeT<typeof Settings>> = {}): void {
  const settings = ctx.settings.register('assistant', Settings, { base: config, applies: 'restart' })
  const { model, temperature, providers } = settings.get()
  ctx.logger('assistant').info('ready: model=%s temperature=%s providers=%s', model, temperature, Object.keys(providers).join(',') || '(none)')
}
