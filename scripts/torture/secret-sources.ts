/**
 * The secret scan's sources beyond the store of the main stack, each in a
 * host process of its own (secret-host-session.ts) running both example
 * plugins, which declare secrets:
 * - `env-file`: `secrets: file`, the host started with a variable a `!env`
 *   reference names and a `!file` reference to a 0600 file in a temp folder;
 *   writes to those fields (refused: read-only), a write into `secrets.yaml`,
 *   inline secrets in the document, then `moveSecrets()`;
 * - `keychain`: `secrets: keyring` in a fresh session bus with an unlocked
 *   gnome-keyring (skipped, with a note, where none can be started): writes
 *   into the keychain, an inline secret, then `moveSecrets()`.
 * After each session the document, its editor schema and everything under
 * `history/` must hold none of its secrets (the moved ones included), and
 * every answer, frame, log line and error is searched as the main loop's are.
 */
import { spawnSync } from 'node:child_process'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { inspect } from 'node:util'
import type { SettingsNamespaceView } from 'dsh-settings'
import { removeTemp, sleep, tempDir } from './harness.ts'
import { DiskSearch, secretsFileHolds } from './secret-disk.ts'
import { openSession, type HostSession } from './secret-host-session.ts'
import { freshSecret } from './secret-schemas.ts'
import { scanEventStream, scanLogs, scanText, type Leak, type SecretLedger } from './secret-search.ts'

/** What the source sessions found and how much they searched. */
export interface SourcesScan {
  leaks: Leak[]
  /** Checks that did not hold (a source that did not resolve, a write not refused, a move that moved nothing): coverage lost. */
  misses: string[]
  /** Secrets given by each source. */
  counts: { env: number; file: number; keychain: number; moved: number }
  searched: { answers: number; frames: number; logs: number; files: number; errors: number }
  /** Why the keychain session did not run, when it did not. */
  keychainSkipped?: string
}

/** A maker of fresh string secrets, each recorded in `ledger` with where it comes from. */
function fresh(ledger: SecretLedger): (setBy: string, schema: string, path: string) => string {
  return (setBy, schema, path) => {
    const value = freshSecret()
    ledger.add(value, { schema, setBy, path })
    return value
  }
}

/** Searches a session's records; one per session. */
class SessionRecords {
  readonly errors: string[] = []
  constructor(
    private readonly scan: SourcesScan,
    private readonly ledger: SecretLedger,
    private readonly label: string,
  ) {}

  /** Run `what`; keep its error as a caller would print it, and note when refusal was (not) expected. */
  async expect(what: string, run: () => Promise<unknown>, refused: boolean): Promise<void> {
    try {
      await run()
      if (refused) this.scan.misses.push(`${this.label}: ${what} was accepted, expected a refusal`)
    } catch (error) {
      let json = ''
      try {
        json = JSON.stringify(error)
      } catch {}
      this.errors.push(`${inspect(error, { depth: 6 })}\n${json}`)
      if (!refused) this.scan.misses.push(`${this.label}: ${what} was refused (${error instanceof Error ? error.name : 'error'})`)
    }
  }

  /** Search everything the session left: answers, frames, lines, errors. */
  finish(session: HostSession): void {
    const { leaks, searched } = this.scan
    for (const answer of session.answers) leaks.push(...scanText(`${this.label} wire answer ${new URL(answer.url).pathname} (HTTP ${answer.status})`, answer.body, this.ledger))
    const frames = session.frames()
    leaks.push(...scanEventStream(frames, this.ledger).map((leak) => ({ ...leak, surface: `${this.label} ${leak.surface}` })))
    const lines = session.lines()
    leaks.push(...scanLogs(lines, this.ledger).map((leak) => ({ ...leak, surface: `${this.label} host output` })))
    for (const error of this.errors) leaks.push(...scanText(`${this.label} error`, error, this.ledger, 'error'))
    searched.answers += session.answers.length
    searched.frames += frames.split('\n\n').filter((frame) => frame.trim()).length
    searched.logs += lines.length
    searched.errors += this.errors.length
  }
}

/** The secret slot at `path` of `ns` in a wire describe (global scope). */
async function slotOf(session: HostSession, ns: string, path: string): Promise<{ set?: boolean; source?: string; reference?: string } | undefined> {
  const described = (await session.remote.settings.describe(undefined)) as { namespaces: SettingsNamespaceView[] }
  return described.namespaces.find((view) => view.ns === ns)?.secrets.find((slot) => slot.path.join('.') === path)
}

/** Check that `ns`'s secret at `path` is set from `source`; a mismatch is a miss (the scan would search for a value nobody used). */
async function expectSource(session: HostSession, records: { misses: string[] }, label: string, ns: string, path: string, source: string): Promise<void> {
  const slot = await slotOf(session, ns, path).catch(() => undefined)
  if (!slot?.set || slot.source !== source) records.misses.push(`${label}: ${ns} ${path} is ${slot ? `${slot.set ? 'set' : 'unset'} from ${slot.source ?? 'nowhere'}` : 'not described'}, expected set from ${source}`)
}

/** Move the inline secrets, then search the document, editor schema and history/ for every secret of the session. */
async function moveAndGrep(session: HostSession, scan: SourcesScan, ledger: SecretLedger, label: string, inline: number): Promise<void> {
  const answer = await session.command('move', ['moved', 'move-failed'])
  const moved = answer?.startsWith('moved ') ? Number(answer.split(' ')[1]) : 0
  scan.counts.moved += moved
  if (!answer?.startsWith('moved ') || moved < 1 || moved > inline) scan.misses.push(`${label}: moveSecrets answered ${answer?.split(' ').slice(0, 2).join(' ') ?? 'nothing'}, expected 1 to ${inline} moved`)
  // Let the host's watcher see its own write settle before the files are read.
  await sleep(200)
  const disk = new DiskSearch(session.file)
  scan.leaks.push(...(await disk.scan(ledger)).map((leak) => ({ ...leak, surface: `${label} ${leak.surface}` })))
  scan.searched.files += disk.files
}

/** `env-file`: see the module comment. */
async function envFileSession(scan: SourcesScan, ledger: SecretLedger): Promise<void> {
  const label = 'env/file host'
  const dir = await tempDir('secret-env-file')
  const variable = `DSH_TORTURE_SECRET_${freshSecret().slice(6, 14).toUpperCase()}`
  const secret = fresh(ledger)
  const fromEnv = secret('!env (the host started with the variable set)', 'example web-search', 'apiKey')
  const fromFile = secret('!file (0600 in a temp folder)', 'example assistant', 'providers.a.apiKey')
  const inline = [secret('inline in the document, then moveSecrets()', 'example web-search', 'mirrors.0.token'), secret('inline in the document, then moveSecrets()', 'example assistant', 'providers.b.apiKey')]
  scan.counts.env++
  scan.counts.file++
  const keys = join(dir, 'keys')
  await mkdir(keys, { mode: 0o700 })
  const keyFile = join(keys, 'assistant-key')
  await writeFile(keyFile, `${fromFile}\n`, { mode: 0o600 })
  await chmod(keyFile, 0o600)
  const document = [
    '# torture: secret sources (env, file, inline then moved)',
    'web-search:',
    `  apiKey: !env ${variable}`,
    '  mirrors:',
    '    - url: https://mirror.example',
    `      token: ${inline[0]}`,
    'assistant:',
    '  providers:',
    '    a:',
    '      baseUrl: https://a.example',
    `      apiKey: !file ${JSON.stringify(keyFile)}`,
    '    b:',
    '      baseUrl: https://b.example',
    `      apiKey: ${inline[1]}`,
    '',
  ].join('\n')
  const session = await openSession({ dir: join(dir, 'host'), mode: 'file', document, env: { [variable]: fromEnv } }).catch(async (error: unknown) => {
    await removeTemp(dir)
    throw error
  })
  const records = new SessionRecords(scan, ledger, label)
  try {
    await expectSource(session, scan, label, 'web-search', 'apiKey', 'env')
    await expectSource(session, scan, label, 'assistant', 'providers.a.apiKey', 'file')
    const { settings } = session.remote
    await records.expect('wire write to a !env field', () => settings.mutate('web-search', [{ op: 'set', path: ['apiKey'], value: secret('wire write to a !env field (refused)', 'example web-search', 'apiKey') }], null, undefined), true)
    await records.expect('wire write to a !file field', () => settings.mutate('assistant', [{ op: 'set', path: ['providers', 'a', 'apiKey'], value: secret('wire write to a !file field (refused)', 'example assistant', 'providers.a.apiKey') }], null, undefined), true)
    const stored = secret('wire mutate into secrets.yaml', 'example assistant', 'providers.c.apiKey')
    await records.expect('wire write into the store', () => settings.mutate('assistant', [{ op: 'set', path: ['providers', 'c'], value: { baseUrl: 'https://c.example', apiKey: stored } }], null, undefined), false)
    await expectSource(session, scan, label, 'assistant', 'providers.c.apiKey', 'store')
    await moveAndGrep(session, scan, ledger, label, inline.length)
    await expectSource(session, scan, label, 'web-search', 'mirrors.0.token', 'store')
    await expectSource(session, scan, label, 'assistant', 'providers.b.apiKey', 'store')
    // The search's self-check: the moved and written secrets are in secrets.yaml, where the search can see them.
    if (!(await secretsFileHolds(session.file, ledger))) scan.misses.push(`${label}: secrets.yaml holds none of the session's secrets (the search would be blind)`)
  } finally {
    await session.stop()
    records.finish(session)
    await removeTemp(dir)
  }
}

/** Why no Secret Service can be started here, or `undefined` when one can. */
function keychainUnavailable(): string | undefined {
  const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
  return missing.length ? `no ${missing.join(', ')} (apt-get install -y gnome-keyring dbus)` : undefined
}

/** `keychain`: see the module comment. */
async function keychainSession(scan: SourcesScan, ledger: SecretLedger): Promise<void> {
  const label = 'keychain host'
  const dir = await tempDir('secret-keychain')
  const secret = fresh(ledger)
  const inline = secret('inline in the document, then moveSecrets() into the keychain', 'example assistant', 'providers.b.apiKey')
  const document = ['# torture: secret sources (keychain)', 'assistant:', '  providers:', '    b:', '      baseUrl: https://b.example', `      apiKey: ${inline}`, ''].join('\n')
  const session = await openSession({ dir, mode: 'keyring', document, keyring: true }).catch(async (error: unknown) => {
    await removeTemp(dir)
    throw error
  })
  const records = new SessionRecords(scan, ledger, label)
  try {
    const { settings } = session.remote
    const apiKey = secret('wire update into the keychain', 'example web-search', 'apiKey')
    await records.expect('wire update into the keychain', () => settings.update('web-search', { apiKey }, null, undefined), false)
    const token = secret('wire mutate into the keychain', 'example web-search', 'mirrors.0.token')
    await records.expect('wire mutate into the keychain', () => settings.mutate('web-search', [{ op: 'set', path: ['mirrors'], value: [{ url: 'https://mirror.example', token }] }], null, undefined), false)
    scan.counts.keychain += 2
    await expectSource(session, scan, label, 'web-search', 'apiKey', 'store')
    await expectSource(session, scan, label, 'web-search', 'mirrors.0.token', 'store')
    await moveAndGrep(session, scan, ledger, label, 1)
    scan.counts.keychain++
    await expectSource(session, scan, label, 'assistant', 'providers.b.apiKey', 'store')
    // In keyring mode nothing goes to secrets.yaml: a secret there would be a second, unasked-for copy.
    if (await secretsFileHolds(session.file, ledger)) scan.leaks.push({ surface: `${label} secrets.yaml`, where: 'secrets: keyring wrote a secret to the file store', origin: undefined })
  } finally {
    await session.stop()
    records.finish(session)
    await removeTemp(dir)
  }
}

/** Run both sessions; a session that cannot start is a miss (the keychain's, where no Secret Service exists, a skip). */
export async function scanSources(ledger: SecretLedger): Promise<SourcesScan> {
  const scan: SourcesScan = { leaks: [], misses: [], counts: { env: 0, file: 0, keychain: 0, moved: 0 }, searched: { answers: 0, frames: 0, logs: 0, files: 0, errors: 0 } }
  await envFileSession(scan, ledger).catch((error: unknown) => void scan.misses.push(`env/file host: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`))
  scan.keychainSkipped = keychainUnavailable()
  if (!scan.keychainSkipped) await keychainSession(scan, ledger).catch((error: unknown) => void scan.misses.push(`keychain host: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`))
  return scan
}
