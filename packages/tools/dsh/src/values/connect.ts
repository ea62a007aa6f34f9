/**
 * Reach a deployment's settings for a `dsh settings` command: a running host
 * of the deployment when one answers (`host.ts`), else the deployment's
 * settings in this process (`local.ts`). The deployment file is planned once,
 * and no plugin of it is imported either way.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { HOST_FILE } from 'dsh-remote/host-record'
import { resolveHome } from 'dsh-settings-home'
import type { CliIo } from '../io.ts'
import type { SettingsAccess } from './access.ts'
import { configField, planValues } from './deployment-plan.ts'

export { UnavailableError } from './unavailable.ts'

/**
 * Reach the settings of the deployment in `file`: a running host of it when
 * one answers (unless `reveal` asks for secrets, which no host sends), else
 * its provider in this process.
 * @throws {UsageError} when the deployment file cannot be read or planned.
 * @throws {UnavailableError} when neither way works.
 */
export async function connect(file: string, io: CliIo, { reveal = false }: { reveal?: boolean } = {}): Promise<SettingsAccess> {
  const env = io.env ?? process.env
  const plan = await planValues(file, env, io.conditions ?? [])
  // A host keeps a record in its remote's home: with none there, no host can answer, and the way to one is not loaded.
  if (!reveal && plan.remote && existsSync(join(resolveHome(configField(plan.remote, 'home'), env), HOST_FILE))) {
    const { findHost } = await import('./host.ts')
    const host = await findHost(file, env, (line) => io.err(line))
    if (host) return host
  }
  // The way with no host (the catalog, the stored document, the seam's offline parts) is loaded only when taken.
  const { openLocally } = await import('./local.ts')
  return openLocally(plan, io)
}
