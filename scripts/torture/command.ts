/**
 * The command row: real `dsh settings get/set` processes against every kind
 * of host record a user's machine can hold. Each round runs a real host
 * (`dsh start`) in a shared home (mode 0777) and, beside it, records planted
 * at recording listeners (mode 0666, another user's, symbolic links for the
 * record and for the token file, a URL off loopback, a dead port), a relay to
 * the real host, a second deployment sharing the home, and at the end the
 * host killed with SIGKILL, its pid reused and its port taken by a listener.
 * Secrets that look like YAML (`*x`, `!x`, `&x`, `x #y`) are given on
 * standard input. Every request a listener got, every line a command printed,
 * the host's log and each command's `/proc/<pid>/cmdline` while it ran are
 * searched for the tokens and every secret, whole or as any 8-character slice.
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { removeTemp, tempDir } from './harness.ts'
import { readRecord, runCommand, SecretBook, startHost, startRecorder, type CommandRun, type HostProcess, type Recorder } from './command-probes.ts'
import type { Row } from './report.ts'
import { parseDocument, parseSettingsText } from './yaml.ts'

const DEPLOYMENT = fileURLToPath(new URL('./deployments/cordis.yml', import.meta.url))
const SECOND = fileURLToPath(new URL('./deployments/second.cordis.yml', import.meta.url))
const REAL = realpathSync(DEPLOYMENT)
/** Record kinds planted in homes of their own, each at a recording listener. */
const PLANTED = ['mode 0666', 'another user', 'symlinked record', 'symlinked token', 'off loopback', 'dead port'] as const
type Planted = (typeof PLANTED)[number]
const AS_ANOTHER = process.getuid?.() === 0
const random = () => randomBytes(12).toString('base64url')
/** Secrets that YAML would read as an alias, a tag, an anchor, or cut at a comment. */
const SHAPES = [() => `*${random()}`, () => `!${random()}`, () => `&${random()}`, () => `${random()} #${random()}`]

/** What one run counts. */
class Tally {
  readonly book = new SecretBook()
  readonly kinds: Record<string, number> = {}
  readonly leaks = new Map<string, number>()
  readonly notes: string[] = []
  readonly searched = { commands: 0, lines: 0, cmdlines: 0, requests: 0, hostLines: 0, startLines: 0 }
  readonly bad = { 'tokens or secrets found': 0, 'authorization sent to a listener': 0, 'refused records contacted': 0, 'wrong way taken': 0, 'stale records left': 0, 'notes missing': 0, 'commands failed': 0, 'secrets not stored as given': 0 }
  secretsSet = 0
  private shape = 0

  /** A fresh secret of the next shape, in the book. */
  secret(): string {
    const value = SHAPES[this.shape++ % SHAPES.length]!()
    this.book.add(`secret ${this.shape}`, value)
    return value
  }

  scan(surface: string, text: string): void {
    for (const label of this.book.find(text)) {
      this.bad['tokens or secrets found']++
      const key = `${surface}: ${label}`
      this.leaks.set(key, (this.leaks.get(key) ?? 0) + 1)
    }
  }

  note(line: string): void {
    if (this.notes.length < 20) this.notes.push(this.book.find(line).length ? '(a note withheld: it holds a secret)' : line)
  }
}

/** How a command must have gone for its kind. */
interface Expect {
  kind: string
  way: 'host' | 'provider'
  /** A `note: not using the host record` line is due. */
  refused: boolean
}

/** Search one command's output and command lines, and judge how it went. */
function judge(tally: Tally, run: CommandRun, expect: Expect, wrote: boolean): void {
  tally.kinds[expect.kind] = (tally.kinds[expect.kind] ?? 0) + 1
  tally.searched.commands++
  tally.searched.lines += run.out.length + run.err.length
  tally.searched.cmdlines += run.samples
  for (const line of [...run.out, ...run.err]) tally.scan(`command output (${expect.kind})`, line)
  for (const line of run.cmdlines) tally.scan(`command line (${expect.kind})`, line)
  // With no host ever started there is no catalog: a `get` then refuses to print a value it cannot tell from a secret (exit 1, saying why).
  const uncatalogued = run.code === 1 && expect.way === 'provider' && !wrote && run.err.some((line) => line.includes('no schema recorded for web-search'))
  if (uncatalogued) tally.kinds['get with no catalog refused (by design)'] = (tally.kinds['get with no catalog refused (by design)'] ?? 0) + 1
  else if (run.code !== 0) {
    tally.bad['commands failed']++
    tally.note(`${expect.kind}: exit ${run.code}: ${run.err.find((line) => !line.startsWith('note:')) ?? run.err[0] ?? ''}`)
  }
  if (wrote && run.code === 0 && !run.out.some((line) => line.includes(expect.way === 'host' ? 'via the running host' : 'via the provider'))) {
    tally.bad['wrong way taken']++
    tally.note(`${expect.kind}: not ${expect.way === 'host' ? 'through the host' : 'through the provider'}`)
  }
  if (expect.refused !== run.err.some((line) => line.startsWith('note: not using the host record'))) {
    tally.bad['notes missing']++
    tally.note(`${expect.kind}: ${expect.refused ? 'no note for a refused record' : 'a note for a host that should be used'}`)
  }
}

/** One command: a read, a plain write, or a YAML-looking secret on standard input; judged and searched. */
async function command(tally: Tally, home: string, expect: Expect, what: 'get' | 'set' | 'secret', deployment = DEPLOYMENT): Promise<void> {
  const d = ['-d', deployment]
  let run: CommandRun
  if (what === 'secret') {
    tally.secretsSet++
    const secret = tally.secret()
    run = await runCommand(home, ['settings', 'set', 'web-search.apiKey', ...d], secret)
    // Taken as given: not an alias, a tag, an anchor's null, nor cut at a comment.
    if (run.code === 0 && storedSecret(join(home, ...(deployment === SECOND ? ['second'] : []))) !== secret) {
      tally.bad['secrets not stored as given']++
      tally.note(`${expect.kind}: the secret stored is not the one given`)
    }
  } else if (what === 'set') run = await runCommand(home, ['settings', 'set', 'web-search.limit', String(1 + (tally.searched.commands % 50)), ...d])
  else run = await runCommand(home, ['settings', 'get', 'web-search.limit', ...d])
  judge(tally, run, expect, what !== 'get')
}

/** The secret the deployment in `folder` stores at `web-search.apiKey`: in the document, or in `secrets.yaml` under the `!secret` name the document holds. */
function storedSecret(folder: string): unknown {
  const node = parseDocument(readFileSync(join(folder, 'settings.yaml'), 'utf8')).getIn(['web-search', 'apiKey'], true) as { tag?: string; value?: unknown } | undefined
  if (node?.tag !== '!secret') return node?.value
  return parseSettingsText(readFileSync(join(folder, 'secrets.yaml'), 'utf8'))?.[String(node.value)]
}

/** Search what a listener received, and count what must never reach one. */
function searchRecorder(tally: Tally, kind: string, recorder: Recorder, contactable: boolean): void {
  tally.searched.requests += recorder.requests.length
  for (const request of recorder.requests) tally.scan(`request to the listener (${kind})`, request)
  tally.bad['authorization sent to a listener'] += recorder.authorized
  if (!contactable && recorder.requests.length) {
    tally.bad['refused records contacted'] += recorder.requests.length
    tally.note(`${kind}: the listener of a refused record got ${recorder.requests.length} request(s)`)
  }
}

/** A home as a shared `DSH_HOME` would be (0777), with the user's own token file and document. */
async function sharedHome(tally: Tally, name: string, token = random() + random()): Promise<string> {
  const home = await tempDir(name)
  chmodSync(home, 0o777)
  writeFileSync(join(home, 'remote-token'), `${token}\n`, { mode: 0o600 })
  tally.book.add(`token of a ${name} home`, token)
  // The second deployment's document too: one it has never written would hold nothing to read or write unchecked.
  mkdirSync(join(home, 'second'), { mode: 0o700 })
  for (const document of [join(home, 'settings.yaml'), join(home, 'second', 'settings.yaml')]) {
    writeFileSync(document, `web-search:\n  limit: 25\n  apiKey: ${JSON.stringify(tally.secret())}\n`, { mode: 0o600 })
  }
  return home
}

/** Write a record (or any text) in place atomically, with `mode`. */
function plant(path: string, text: string, mode = 0o600): void {
  const temp = `${path}.${random()}.plant`
  writeFileSync(temp, text, { mode })
  chmodSync(temp, mode)
  renameSync(temp, path)
}

/** Plant one record kind in a home of its own at a recording listener, and run one command there. */
async function plantedCase(tally: Tally, kind: Planted, what: 'get' | 'secret'): Promise<void> {
  if (kind === 'another user' && !AS_ANOTHER) return void (tally.kinds['another user (skipped: not root)'] = 1)
  const home = await sharedHome(tally, 'command-planted')
  const recorder = await startRecorder({ deployment: REAL, ...(kind === 'off loopback' ? { host: '0.0.0.0' } : {}) })
  try {
    const path = join(home, 'remote-host.json')
    const record = (url: string) => JSON.stringify({ url, pid: process.pid, deployment: REAL })
    if (kind === 'mode 0666') plant(path, record(recorder.url), 0o666)
    else if (kind === 'another user') execFileSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', 'umask 077 && cat > "$1"', 'sh', path], { input: record(recorder.url) })
    else if (kind === 'symlinked record') {
      plant(join(home, 'elsewhere.json'), record(recorder.url))
      symlinkSync(join(home, 'elsewhere.json'), path)
    } else if (kind === 'symlinked token') {
      plant(path, record(recorder.url))
      const theirs = random() + random()
      tally.book.add('a token a symlink pointed at', theirs)
      plant(join(home, 'their-token'), `${theirs}\n`)
      unlinkSync(join(home, 'remote-token'))
      symlinkSync(join(home, 'their-token'), join(home, 'remote-token'))
    } else if (kind === 'off loopback') plant(path, record(`http://0.0.0.0:${recorder.port}`))
    else plant(path, record(`http://127.0.0.1:${await freePort()}`))
    await command(tally, home, { kind: `planted: ${kind}`, way: 'provider', refused: true }, what)
    if (kind === 'dead port' && readRecord(home) !== undefined) tally.bad['stale records left']++
    searchRecorder(tally, `planted: ${kind}`, recorder, false)
  } finally {
    await recorder.close()
    await removeTemp(home)
  }
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = await startRecorder()
  await probe.close()
  return probe.port
}

/** While the host runs: commands through it, a second deployment sharing its home, and a relay to it in a home holding its token. */
async function aroundLiveHost(tally: Tally, home: string, host: HostProcess, token: string): Promise<void> {
  const relayHome = await sharedHome(tally, 'command-relay', token)
  const relay = await startRecorder({ relayTo: Number(new URL(host.url).port) })
  try {
    plant(join(relayHome, 'remote-host.json'), JSON.stringify({ ...(JSON.parse(host.record) as object), url: relay.url }))
    await Promise.all([
      command(tally, home, { kind: 'live host', way: 'host', refused: false }, 'secret'),
      command(tally, home, { kind: 'another deployment', way: 'provider', refused: true }, 'set', SECOND),
      command(tally, relayHome, { kind: 'relay to the host', way: 'provider', refused: true }, 'secret'),
    ])
    if (readRecord(relayHome) !== undefined) tally.bad['stale records left']++
    searchRecorder(tally, 'relay to the host', relay, true)
  } finally {
    await relay.close()
    await removeTemp(relayHome)
  }
}

/** Kill the host with SIGKILL, hand its pid (as reused) and port to a listener, and run commands that must not trust it. */
async function afterKill(tally: Tally, home: string, host: HostProcess): Promise<void> {
  await host.kill()
  plant(join(home, 'remote-host.json'), JSON.stringify({ ...(JSON.parse(host.record) as object), pid: process.pid }))
  const taker = await startRecorder({ port: Number(new URL(host.url).port), deployment: REAL })
  try {
    await command(tally, home, { kind: 'killed host, port taken', way: 'provider', refused: true }, 'secret')
    if (readRecord(home) !== undefined) tally.bad['stale records left']++
    // The stale record is gone: the next command has nothing to refuse.
    await command(tally, home, { kind: 'after the stale record went', way: 'provider', refused: false }, 'secret')
    searchRecorder(tally, 'killed host, port taken', taker, true)
  } finally {
    await taker.close()
  }
}

/** Search the host's log; its start lines hand the user the page address with the token by design, and are counted apart. */
function searchHostLog(tally: Tally, host: HostProcess): void {
  for (const line of host.output().split('\n')) {
    if (!line) continue
    tally.searched.hostLines++
    if (/(page and API|API): http:\/\/\S+\/#token=\S+( \(the page from \S+\))?$/.test(line)) {
      tally.searched.startLines++
      continue
    }
    tally.scan('host log', line)
  }
}

/** One round: every kind at least once. */
async function round(tally: Tally): Promise<void> {
  const home = await sharedHome(tally, 'command-host')
  let host: HostProcess | undefined
  try {
    const planted = Promise.all(PLANTED.map((kind, index) => plantedCase(tally, kind, index % 2 ? 'get' : 'secret')))
    host = await startHost(home, DEPLOYMENT)
    await planted
    const token = readFileSync(join(home, 'remote-token'), 'utf8').trim()
    await aroundLiveHost(tally, home, host, token)
    await afterKill(tally, home, host)
    searchHostLog(tally, host)
  } finally {
    await host?.kill()
    await removeTemp(home)
  }
}

/** Run rounds for about `seconds` (one at least); one row. */
export async function commandTrust(seconds: number): Promise<Row[]> {
  const tally = new Tally()
  const deadline = Date.now() + seconds * 1000
  let rounds = 0
  do {
    await round(tally)
    rounds++
  } while (Date.now() < deadline)
  const { searched } = tally
  return [
    {
      id: 'command',
      scenario: 'command',
      ops: searched.commands,
      kills: rounds,
      edits: 0,
      mustBeZero: tally.bad,
      figures: {
        rounds,
        'kinds tried': Object.entries(tally.kinds).map(([kind, count]) => `${kind} ${count}`).join(', '),
        'YAML-looking secrets set on stdin': tally.secretsSet,
        'tokens and secrets searched for': tally.book.count,
        'places searched': `command lines printed ${searched.lines}, cmdline reads ${searched.cmdlines}, listener requests ${searched.requests}, host log lines ${searched.hostLines} (start lines with the token by design: ${searched.startLines})`,
      },
      ...(AS_ANOTHER ? {} : { note: 'records planted by another user skipped: not root' }),
      detail: { notes: [...[...tally.leaks].map(([where, count]) => `${where} ${count}×`), ...tally.notes] },
    },
  ]
}
