/**
 * Finding secrets in text without ever printing one: every secret the scan
 * set is recorded with where it came from (schema, way in, path), and a hit
 * is reported by surface, by the JSON path it sits at when the text is JSON,
 * and by that record; the secret's bytes never reach the report.
 */

/** Where a secret came from. */
export interface SecretOrigin {
  schema: string
  /** How it was set (`wire mutate`, `hand edit`, `schema default`, …). */
  setBy: string
  /** Its path inside the section. */
  path: string
}

/** One secret found where it must not be. */
export interface Leak {
  /** The surface (`wire answer …`, `event stream`, `log`, `error`, `page dom`, …). */
  surface: string
  /** Where inside it: a JSON path, a log line's logger, or a place on the page. */
  where: string
  origin: SecretOrigin | undefined
}

/** String secrets carry these markers (see `freshSecret`): any of them in a text is a leak, even of a cut copy. */
const STRING_HIT = /SEKRIT([0-9a-f]{16})TERCES|SEKRIT([0-9a-f]{0,16})|([0-9a-f]{0,16})TERCES/g
/** Numeric secrets are 15 digits starting with 77 (see `freshNumber`). */
const NUMBER_HIT = /(?<![0-9])77[0-9]{13}(?![0-9])/g

/** Every secret set so far, by its identifying text. */
export class SecretLedger {
  private readonly origins = new Map<string, SecretOrigin>()
  count = 0

  /** Record a secret and where it came from. */
  add(secret: string | number, origin: SecretOrigin): void {
    this.count++
    this.origins.set(typeof secret === 'number' ? String(secret) : secret.slice(6, 22), origin)
  }

  /** The secrets in `text`: by origin, or `undefined` for a cut copy whose origin cannot be told. A number no secret has is ignored. */
  hits(text: string): (SecretOrigin | undefined)[] {
    const found: (SecretOrigin | undefined)[] = []
    for (const match of text.matchAll(STRING_HIT)) found.push(this.origins.get(match[1] ?? match[2] ?? match[3] ?? ''))
    for (const match of text.matchAll(NUMBER_HIT)) if (this.origins.has(match[0])) found.push(this.origins.get(match[0]))
    return found
  }

  /** Whether `text` holds any secret (a cheap test before locating it). */
  holds(text: string): boolean {
    return this.hits(text).length > 0
  }
}

/** The paths of every key or leaf of `value` that holds a secret, `$`-rooted. */
function pathsIn(value: unknown, ledger: SecretLedger, path: string, into: { where: string; origin: SecretOrigin | undefined }[]): void {
  if (typeof value === 'string' || typeof value === 'number') {
    for (const origin of ledger.hits(String(value))) into.push({ where: path, origin })
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => pathsIn(item, ledger, `${path}[${index}]`, into))
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = /^[A-Za-z_$][\w$-]*$/.test(key) ? `${path}.${key}` : `${path}[key ${into.length}]`
      for (const origin of ledger.hits(key)) into.push({ where: `${at} (as a key)`, origin })
      pathsIn(item, ledger, at, into)
    }
  }
}

/**
 * The leaks in `text` on `surface`: located by JSON path when the text is
 * JSON, else by `where` (a line label the caller gives). Empty when clean.
 */
export function scanText(surface: string, text: string, ledger: SecretLedger, where = 'text'): Leak[] {
  if (!ledger.holds(text)) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return ledger.hits(text).map((origin) => ({ surface, where, origin }))
  }
  const located: { where: string; origin: SecretOrigin | undefined }[] = []
  pathsIn(parsed, ledger, '$', located)
  return located.map((hit) => ({ surface, ...hit }))
}

/** The leaks in an event stream's text, frame by frame: located by event name and JSON path of its data. */
export function scanEventStream(text: string, ledger: SecretLedger): Leak[] {
  const leaks: Leak[] = []
  for (const frame of text.split(/\n\n/)) {
    if (!ledger.holds(frame)) continue
    const event = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message'
    const data = frame
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n')
    const found = scanText(`event stream (${event})`, data, ledger, 'frame')
    leaks.push(...(found.length ? found : ledger.hits(frame).map((origin) => ({ surface: `event stream (${event})`, where: 'frame header', origin }))))
  }
  return leaks
}

/** The leaks in log lines: located by level and logger name (`[W] settings`), never by the line's text. */
export function scanLogs(lines: readonly string[], ledger: SecretLedger): Leak[] {
  const leaks: Leak[] = []
  for (const line of lines) {
    if (!ledger.holds(line)) continue
    // The line's start, up to its first quote or secret marker (60 characters at most), names the log site without quoting data.
    const site = line.slice(0, 60).split(/"|SEKRIT|77[0-9]{13}/)[0]!.trim()
    for (const origin of ledger.hits(line)) leaks.push({ surface: 'log', where: JSON.stringify(site), origin })
  }
  return leaks
}

/**
 * Leaks grouped by surface, place and way in (the schema varies within a group), as report lines with
 * a count and one example schema and path. The secret itself is never part of a line.
 */
export function groupLeaks(leaks: readonly Leak[]): string[] {
  const groups = new Map<string, { count: number; example: string }>()
  for (const leak of leaks) {
    const key = `${leak.surface} at ${leak.where}: ${leak.origin ? `the secret set by ${leak.origin.setBy}` : 'a cut copy of a secret (origin unknown)'}`
    const group = groups.get(key) ?? { count: 0, example: leak.origin ? `${leak.origin.path} of ${leak.origin.schema}` : '' }
    group.count++
    groups.set(key, group)
  }
  return [...groups].map(([key, { count, example }]) => `${key} — ${count}×${example ? `, e.g. at ${example}` : ''}`)
}
