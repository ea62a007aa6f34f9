/**
 * What the fuzz judges after every case, apart from the stack itself: how a
 * failure is classified (a typed refusal, or a crash), whether any built-in
 * prototype changed, how long a call may take before the service counts as
 * wedged, and how a minimized input is shown in the report (huge strings and
 * deep values abbreviated, so a finding stays one readable line).
 */
import { RemoteError } from 'dsh-remote'
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES, SettingsConflictError, SettingsInputError, SettingsRegistrationError, SettingsStoreError, SettingsUnavailableError, SettingsValidationError } from 'dsh-settings'
import { SCOPE_ID_PATTERN } from 'dsh-scope'

/** How one call ended: accepted, or refused with a code; `typed` is false for a crash. */
export type Outcome = { accepted: true } | { accepted: false; code: string; typed: boolean; message: string }

/** The controller's refusal codes; its fifth, `internal`, is a crash. */
const SETTINGS_CODES: ReadonlySet<string> = new Set(['settings/invalid', 'settings/rejected', 'settings/conflict', 'settings/unavailable'])
/** The remote server's own typed refusals of a malformed request, before any service runs. */
const TRANSPORT_CODES: ReadonlySet<string> = new Set(['remote/bad-request', 'remote/too-large', 'remote/not-found', 'remote/method-not-allowed'])
const SEAM_ERRORS = [SettingsInputError, SettingsValidationError, SettingsConflictError, SettingsUnavailableError, SettingsStoreError, SettingsRegistrationError] as const

const cut = (text: string, length = 300) => (text.length > length ? `${text.slice(0, length)}…` : text)

/** Whether a namespace or scope argument is malformed, for which the seam documents a plain `TypeError`. */
export function malformedId(ns: unknown, scope: unknown): boolean {
  const badNs = typeof ns !== 'string' || !NAMESPACE_PATTERN.test(ns) || RESERVED_NAMESPACES.has(ns)
  const badScope = scope !== undefined && (typeof scope !== 'string' || !SCOPE_ID_PATTERN.test(scope))
  return badNs || badScope
}

/**
 * Classify what the seam threw in-process: one of its typed errors (by code),
 * the documented `TypeError` for a malformed namespace or scope id, or a crash.
 */
export function seamOutcome(error: unknown, idMalformed: boolean): Outcome {
  const message = cut(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  if (SEAM_ERRORS.some((type) => error instanceof type)) return { accepted: false, code: String((error as { code?: unknown }).code ?? (error as Error).name), typed: true, message }
  if (idMalformed && error instanceof TypeError && /^settings (namespace|scope) /.test(error.message)) return { accepted: false, code: 'TypeError (malformed id)', typed: true, message }
  return { accepted: false, code: error instanceof Error ? error.name : typeof error, typed: false, message }
}

/** Classify a `RemoteError` (or anything else) from the controller or the wire: `internal` and unknown codes are crashes. */
export function remoteOutcome(error: unknown): Outcome {
  if (!(error instanceof RemoteError)) return { accepted: false, code: error instanceof Error ? error.name : typeof error, typed: false, message: cut(String(error)) }
  const typed = SETTINGS_CODES.has(error.code) || TRANSPORT_CODES.has(error.code)
  return { accepted: false, code: error.code, typed, message: cut(`${error.code}: ${error.message}`) }
}

/** Classify a raw HTTP answer by its status and error envelope; an answer without one is a crash. */
export function rawOutcome(status: number, body: string): Outcome {
  let payload: { value?: unknown; error?: { code?: unknown; message?: unknown } } | undefined
  try {
    payload = JSON.parse(body) as typeof payload
  } catch {}
  if (status >= 200 && status < 300 && payload && 'value' in payload) return { accepted: true }
  const code = payload?.error?.code
  if (typeof code !== 'string') return { accepted: false, code: `HTTP ${status} without an error envelope`, typed: false, message: cut(body, 120) }
  return remoteOutcome(new RemoteError(code, String(payload?.error?.message)))
}

/** Resolve with `promise`, or reject after `ms` with a timeout the caller reads as a wedged service. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WedgedError(`${what} did not settle within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** A call that never settled. */
export class WedgedError extends Error {
  override readonly name = 'WedgedError'
}

// ---- prototypes ---------------------------------------------------------------------------

const PROTOTYPES: readonly [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['Boolean.prototype', Boolean.prototype],
]

type Baseline = Map<object, Map<PropertyKey, PropertyDescriptor>>

/** Every own property of the built-in prototypes, as they are now. */
export function prototypeBaseline(): Baseline {
  return new Map(PROTOTYPES.map(([, proto]) => [proto, new Map(Reflect.ownKeys(proto).map((name) => [name, Object.getOwnPropertyDescriptor(proto, name)!]))]))
}

const sameDescriptor = (a: PropertyDescriptor, b: PropertyDescriptor) => a.value === b.value && a.get === b.get && a.set === b.set

/**
 * What changed on a built-in prototype since `baseline` (added, changed or
 * removed keys), put back as it was so the next case starts clean. Empty when nothing changed.
 */
export function pollution(baseline: Baseline): string[] {
  const found: string[] = []
  for (const [label, proto] of PROTOTYPES) {
    const known = baseline.get(proto)!
    for (const name of Reflect.ownKeys(proto)) {
      const before = known.get(name)
      const now = Object.getOwnPropertyDescriptor(proto, name)!
      if (before && sameDescriptor(before, now)) continue
      found.push(`${label}.${String(name)} ${before ? 'changed' : 'added'}`)
      if (before) Object.defineProperty(proto, name, before)
      else delete (proto as Record<PropertyKey, unknown>)[name]
    }
    for (const [name, descriptor] of known) {
      if (Object.getOwnPropertyDescriptor(proto, name)) continue
      found.push(`${label}.${String(name)} removed`)
      Object.defineProperty(proto, name, descriptor)
    }
  }
  if (Object.getPrototypeOf({}) !== Object.prototype) found.push('a fresh object has another prototype')
  if (({} as Record<string, unknown>).polluted !== undefined) found.push('({}).polluted is set')
  return found
}

// ---- showing an input ------------------------------------------------------------------

/** An input as one line: long strings and byte arrays cut, deep values cut with their depth, non-JSON named. */
export function show(value: unknown, depth = 0, seen = new Set<object>()): string {
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 24))}…(${value.length} chars)` : JSON.stringify(value)
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return 'function'
  if (typeof value !== 'object' || value === null) return String(value)
  if (value instanceof Uint8Array) return `bytes(${value.length}) 0x${Buffer.from(value.subarray(0, 32)).toString('hex')}${value.length > 32 ? '…' : ''}`
  if (seen.has(value)) return '<cycle>'
  if (depth >= 5) return `…(${depthOf(value)} more levels)`
  seen.add(value)
  const proto = Object.getPrototypeOf(value) as object | null
  const name = proto && proto !== Object.prototype && proto !== Array.prototype ? `${(proto.constructor as { name?: string })?.name ?? '?'} ` : ''
  let text: string
  if (Array.isArray(value)) {
    const items = Array.from({ length: Math.min(value.length, 8) }, (_, index) => (index in value ? show(value[index], depth + 1, seen) : '<hole>'))
    text = `${name}[${items.join(', ')}${value.length > 8 ? `, …(${value.length} items)` : ''}]`
  } else {
    const keys = Object.keys(value)
    const entries = keys.slice(0, 8).map((key) => `${show(key)}: ${show((value as Record<string, unknown>)[key], depth + 1, seen)}`)
    text = `${name}{${entries.join(', ')}${keys.length > 8 ? `, …(${keys.length} keys)` : ''}}`
  }
  seen.delete(value)
  return text
}

/** How deep a value nests (following the first child only, which is how the fuzz builds deep values). */
function depthOf(value: unknown): number {
  let depth = 0
  let node = value
  while (typeof node === 'object' && node !== null && depth < 100_000) {
    const children = Object.values(node)
    if (!children.length) break
    node = children[0]
    depth++
  }
  return depth
}
