/**
 * What `dsh settings get` prints: the value the plugins read at an address,
 * a secret as `(set)` / `(not set)` (in JSON a `{ "secret": true, "set": … }`
 * mark, which no string reads as), valid JSON or nothing with `--json`, and a
 * namespace waiting for setup that holds no value there said as such.
 */
import { valueAt } from 'dsh-settings/data'
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import { EXIT, type CliIo } from '../io.ts'
import type { SettingsAccess } from './access.ts'
import { parseAddress } from './address.ts'
import { originOf, sectionName, secretMark, showValue, withSecretMarks, type SecretOrigin } from './format.ts'
import { viewOf } from './view.ts'

/** One `get` as the command line asks it. */
export interface GetRequest {
  address: string
  scope?: string
  json: boolean
  /** Print secrets' values (read through the provider, which alone has them). */
  reveal: boolean
}

/**
 * Whether the place at `path` is a secret, and then whether it holds a value:
 * the view's own slot (or the secret slot it lies inside), else the schema's
 * word that it is a secret (a secret the value does not reach holds none).
 */
async function secretAt(view: SettingsNamespaceView, path: readonly string[]): Promise<{ set: boolean; origin?: SecretOrigin } | undefined> {
  const slots = (view.secrets ?? []).filter((slot) => slot.path.length <= path.length && slot.path.every((key, index) => key === path[index]))
  const nearest = slots.sort((a, b) => b.path.length - a.path.length)[0]
  if (nearest) return { set: nearest.set, origin: originOf(nearest) }
  // A redacted value holds no secret: a place it reaches is no secret's, and the schema need not be read.
  if (valueAt(view.value, path) !== undefined) return undefined
  const { placeOf } = await import('./place.ts')
  const place = placeOf(view, path)
  return place?.declared && place.secret ? { set: false } : undefined
}

/** Why there is nothing to print: nothing stored or defaulted there, or a namespace still waiting for setup. */
function noValue(view: SettingsNamespaceView, address: string): string {
  if (!view.needsSetup) return `${address} holds no value`
  const missing = (view.problem?.missing ?? []).map((path) => path.join('.')).join(', ')
  const who = address === view.ns ? 'it' : sectionName(view.ns, view.scope)
  return `${address} holds no value: ${who} waits for setup${missing ? ` (missing: ${missing})` : ''}`
}

/** Run one `get`: print the value (or its secret mark) and answer the exit code. */
export async function runGet(access: SettingsAccess, request: GetRequest, io: CliIo): Promise<number> {
  const { ns, path } = parseAddress(request.address, { pathRequired: false })
  const view = await viewOf(access, ns, request.scope)
  // With no schema recorded, nothing tells a secret from any other value: only an explicit --show-secrets prints them.
  if (view.schema === null && !request.reveal) {
    io.err(`dsh settings get: ${sectionName(ns, request.scope)} has no schema recorded, so its secrets cannot be told from its other values: start the host once (it records the schemas), or print the stored values with --show-secrets`)
    return EXIT.REFUSED
  }
  const revealed = request.reveal && access.reveal ? { value: valueAt(access.reveal(ns, request.scope), path) } : undefined
  const secret = await secretAt(view, path)
  let value: unknown
  if (secret && (!revealed || revealed.value === undefined)) value = secretMark(secret.set && !revealed, request.json, secret.origin)
  else value = revealed ? revealed.value : valueAt(withSecretMarks(view, request.json), path)
  // `undefined` has no JSON: a script gets valid JSON or nothing, and exit 1.
  if (value === undefined) {
    io.err(`dsh settings get: ${noValue(view, request.address)}`)
    return EXIT.REFUSED
  }
  io.out(await showValue(value, request.json))
  if (view.problem) io.err(`note: ${sectionName(ns, request.scope)}: the stored section is not in effect: ${view.problem.message}`)
  return EXIT.OK
}
