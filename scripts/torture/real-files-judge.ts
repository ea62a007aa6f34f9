/**
 * What the real-files torture counts, and how it judges a document: the
 * counts every stage adds to, secret sentinels and where they must never be
 * found, bytes of a hand-written document a write lost, and the documents the
 * stages start from.
 */
import { randomBytes } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Everything a stage found wrong; each must stay 0. */
export interface Counts {
  /** A host that stopped answering, a boot, write or check that hung past its deadline, a SIGTERM that did not stop a host. */
  wedges: number
  /** Bytes of a document outside the values a write changed that changed (or a hand edit that did). */
  lostBytes: number
  /** Secret sentinels found where they must never be (files beside a link's target, wire answers, log lines). */
  leakedValues: number
  /** A document path that is no longer the symlink it was, or a write that went somewhere the link does not point. */
  brokenLinks: number
  /** Another hard link's mode or bytes changed, a file outside the document changed, a root-owned file in a user's home. */
  changedModes: number
  /** A write refused that must land, one that landed that must be refused, a boot that went the wrong way. */
  wrongOutcomes: number
  /** Namespaces the editor schema lost though a running deployment still mounted them. */
  schemaLost: number
}

/** Fresh counts. */
export const noCounts = (): Counts => ({ wedges: 0, lostBytes: 0, leakedValues: 0, brokenLinks: 0, changedModes: 0, wrongOutcomes: 0, schemaLost: 0 })

/** The secrets a run planted: each one unique, so finding it anywhere is proof of where it came from. */
export class Sentinels {
  private readonly made = new Set<string>()

  /** A fresh secret, `rf-<label>-<16 hex digits>`. */
  make(label: string): string {
    const secret = `rf-${label}-${randomBytes(8).toString('hex')}`
    this.made.add(secret)
    return secret
  }

  /** The sentinels `text` holds. */
  foundIn(text: string): string[] {
    return [...this.made].filter((secret) => text.includes(secret))
  }
}

/** Every regular file under `dir` (symlinks and other kinds are never opened), with its path. */
export function regularFiles(dir: string): string[] {
  const files: string[] = []
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return files
  }
  for (const name of names) {
    const path = join(dir, name)
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (stat?.isDirectory()) files.push(...regularFiles(path))
    else if (stat?.isFile()) files.push(path)
  }
  return files
}

/** The text of `path` when it is a regular file (never opens a FIFO or a device), else `undefined`. */
export function readRegular(path: string): string | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false })
  return stat?.isFile() ? readFileSync(path, 'utf8') : undefined
}

/** Lines of `before` (less those `mayChange` allows to change) kept in `after`, as a longest common subsequence. */
function keptLines(before: readonly string[], after: readonly string[]): boolean[] {
  const rows = before.length
  const columns = after.length
  // lengths[i][j]: the LCS of before[i..] and after[j..].
  const lengths = Array.from({ length: rows + 1 }, () => new Uint16Array(columns + 1))
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      lengths[i]![j] = before[i] === after[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!)
    }
  }
  const kept = before.map(() => false)
  for (let i = 0, j = 0; i < rows && j < columns; ) {
    if (before[i] === after[j]) {
      kept[i] = true
      i++
      j++
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++
    else j++
  }
  return kept
}

/**
 * Bytes of `before` that a write should have kept and `after` lacks: every
 * line `mayChange` does not allow to change must still be there, in order,
 * byte for byte; every `keep` fragment (a comment, an anchor, a tag on a line
 * that may change) must still be somewhere in `after`.
 */
export function lostBytes(before: string, after: string, mayChange: (line: string) => boolean, keep: readonly string[] = []): number {
  const lines = before.split('\n').filter((line) => !mayChange(line))
  const kept = keptLines(lines, after.split('\n'))
  let lost = 0
  lines.forEach((line, index) => {
    if (!kept[index]) lost += Buffer.byteLength(line) + 1
  })
  for (const fragment of keep) if (!after.includes(fragment)) lost += Buffer.byteLength(fragment)
  return lost
}

/** The secrets of a base document. */
export interface DocumentSecrets {
  apiKey: string
  mirrorToken: string
  providerKey: string
}

/** Fresh secrets for a base document. */
export const documentSecrets = (sentinels: Sentinels): DocumentSecrets => ({
  apiKey: sentinels.make('api-key'),
  mirrorToken: sentinels.make('mirror-token'),
  providerKey: sentinels.make('provider-key'),
})

/**
 * A hand-written document for both example plugins: comments, a blank line,
 * odd spacing and a secret in each kind of place (a field, a list, a dict).
 * Writes change `limit` only, so every other line must stay.
 */
export function baseDocument(secrets: DocumentSecrets, limit = 10): string {
  return [
    '# settings.yaml, written by hand',
    'web-search:',
    '  engine: bing   # my engine',
    '',
    `  limit: ${limit}`,
    `  apiKey: ${secrets.apiKey}`,
    '  mirrors:',
    '    - url: https://mirror.example   # the fast one',
    `      token: ${secrets.mirrorToken}`,
    'assistant:',
    '  model: small',
    '  providers:',
    '    local:',
    '      baseUrl: http://127.0.0.1:9',
    `      apiKey: ${secrets.providerKey}`,
    '',
  ].join('\n')
}

/** The line a `limit` write may change. */
export const limitLine = (line: string) => /^\s*limit:/.test(line)

/** The `web-search` limit a document holds (a plain block `limit: N` line), or `undefined`. */
export function limitOf(text: string | undefined): number | undefined {
  const match = text === undefined ? null : /^\s*limit:\s*(\d+)/m.exec(text)
  return match ? Number(match[1]) : undefined
}
