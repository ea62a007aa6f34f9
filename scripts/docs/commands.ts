/**
 * How the docs test runs a command block. `pnpm …` commands are this
 * repository's own and run at its root, with a home of their own there (so
 * paths print as they would for `.dsh`); every other command runs in a site
 * holding the section's deployment (else the default one). `$DSH_URL` and
 * `$DSH_TOKEN` name a running host of that deployment, started first unless
 * the block starts one itself (`dsh start`, `pnpm start`: run in the
 * background until ready, interrupted at the block's end). `<version>` is the
 * newest kept version. A command whose output the doc shows must print it
 * (see `compare.ts`); any other must succeed, and a curl call must not answer
 * an error. A stream (`curl -N …/remote/events`) is read while the test changes
 * `web-search.limit` through the wire, until it printed as many lines as the doc shows.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { basename, join } from 'node:path'
import { ROOT } from '../pack/workspace.ts'
import type { DocBlock } from './blocks.ts'
import { blockCommands, normalizeOutput, outputMismatch, type DocCommand } from './compare.ts'
import { Background, runShell } from './processes.ts'
import { prepareSite, type RunContext } from './runners.ts'
import { defaultDeployment, deploymentFor, sectionDocuments, sectionOf } from './sections.ts'
import type { Site } from './site.ts'

/** Where a block's commands run. */
interface Place {
  cwd: string
  home: string
  env: NodeJS.ProcessEnv
  /** Printed text to write as the doc does (`[from, to]`). */
  replacements: [string, string][]
  /** Secrets the place gave the examples: no command may print them. */
  secrets?: string[]
  site?: Site
  /** Remove what the place made. */
  dispose(): Promise<void>
}

/** The repository root, with a home of its own inside it (left as `.dsh` in printed paths). */
function rootPlace(context: RunContext, block: DocBlock): Place {
  const home = mkdtempSync(join(ROOT, '.dsh-docs-'))
  const { initial } = sectionDocuments(sectionOf(context.blocks, block))
  if (initial) writeFileSync(join(home, 'settings.yaml'), `${initial.body}\n`)
  const env: NodeJS.ProcessEnv = { ...process.env, DSH_HOME: home, DSH_PORT: '0', NODE_OPTIONS: '' }
  for (const name of ['DSH_URL', 'DSH_TOKEN', 'DSH_DATABASE_URL']) delete env[name]
  const replacements: [string, string][] = [
    [home, join(ROOT, '.dsh')],
    [basename(home), '.dsh'],
  ]
  return { cwd: ROOT, home, env, replacements, dispose: async () => rmSync(home, { recursive: true, force: true }) }
}

/**
 * The inputs the docs' examples read, as a reader would have them at hand: a
 * secret in `$KEY`, the same in `key.txt`, and `mirrors.json` (a list with a
 * token). Made up per run, so a run can check none of it is ever printed.
 */
interface ExampleInputs {
  key: string
  token: string
}

/** Put {@link ExampleInputs} into `dir` and `env`. */
function provideExampleInputs(dir: string, env: NodeJS.ProcessEnv): ExampleInputs {
  const inputs = { key: `sk-docs-example-${randomBytes(6).toString('hex')}`, token: `tok-docs-example-${randomBytes(6).toString('hex')}` }
  env.KEY = inputs.key
  writeFileSync(join(dir, 'key.txt'), `${inputs.key}\n`, { mode: 0o600 })
  writeFileSync(join(dir, 'mirrors.json'), `${JSON.stringify([{ url: 'https://mirror.example', token: inputs.token }])}\n`, { mode: 0o600 })
  return inputs
}

/** A site with the section's deployment (or the default one), and the examples' inputs. */
function sitePlace(context: RunContext, block: DocBlock): Place {
  const site = prepareSite(context, block, deploymentFor(context.blocks, block)?.body ?? defaultDeployment())
  const env = site.env()
  const inputs = provideExampleInputs(site.dir, env)
  return { cwd: site.dir, home: site.home, env, replacements: [], site, secrets: [inputs.key, inputs.token], dispose: () => site.stopAll() }
}

/** Whether a command starts a host that runs until interrupted. */
function startsHost(line: string): boolean {
  return /(?:^|\s)(?:dsh|pnpm) start\b/.test(line)
}

/** The running host's URL and token from the place's home, once its record is there. */
function hostAddress(place: Place): { DSH_URL: string; DSH_TOKEN: string } | undefined {
  const record = join(place.home, 'remote-host.json')
  if (!existsSync(record)) return undefined
  const { url } = JSON.parse(readFileSync(record, 'utf8')) as { url: string }
  return { DSH_URL: url, DSH_TOKEN: readFileSync(join(place.home, 'remote-token'), 'utf8').trim() }
}

/** Fill `<version>` with the newest kept version's id. */
async function fillPlaceholders(line: string, place: Place): Promise<string> {
  if (!line.includes('<version>')) return line
  const history = await runShell('dsh settings history --json', { cwd: place.cwd, env: place.env })
  const { versions } = JSON.parse(history.output) as { versions: { id: string }[] }
  if (!versions[0]) throw new Error(`no kept version to fill <version> with:\n${history.output}`)
  return line.split('<version>').join(versions[0].id)
}

/** Start a host command in the background and wait until it printed what the doc shows, or until it serves. */
async function startHost(command: DocCommand, place: Place): Promise<Background> {
  const host = new Background('bash', ['-c', command.line], { cwd: place.cwd, env: place.env })
  const printed = () => normalizeOutput(host.output, place.replacements)
  if (command.expected) await host.waitFor('the output the doc shows', () => outputMismatch(command.expected!, printed()) === undefined)
  else await host.waitFor('the host record', () => hostAddress(place) !== undefined)
  Object.assign(place.env, hostAddress(place))
  return host
}

/** Read an event stream while `web-search.limit` changes, until it printed as many lines as the doc shows. */
async function readStream(command: DocCommand, place: Place): Promise<string[]> {
  const stream = new Background('bash', ['-c', command.line], { cwd: place.cwd, env: place.env })
  const lines = () => normalizeOutput(stream.output).filter((line) => !line.startsWith(': ping'))
  const wanted = command.expected?.length ?? 1
  try {
    // The stream says nothing when it connects, so the change is made again (another value each time) until it is seen.
    const deadline = Date.now() + 30_000
    for (let value = 20; lines().length < wanted; value = value === 20 ? 21 : 20) {
      if (Date.now() > deadline) throw new Error(`the stream printed too little while web-search.limit changed:\n${stream.output}`)
      await fetch(`${place.env.DSH_URL}/remote/settings/mutate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${place.env.DSH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ args: ['web-search', [{ op: 'set', path: ['limit'], value }], null] }),
      })
      await stream.waitFor('a change on the stream', () => lines().length >= wanted, 300).catch(() => undefined)
      if (stream.done) throw new Error(`the stream ended:\n${stream.output}`)
    }
  } finally {
    await stream.interrupt()
  }
  return lines().slice(0, wanted)
}

/**
 * What a command printed, without what pnpm prints around a script: its own
 * dependency check before the script's `$ …` echo line, and its `[ELIFECYCLE]` lines.
 */
function printed(line: string, output: string, place: Place): string[] {
  const lines = normalizeOutput(output, place.replacements)
  if (!/^\s*pnpm\b/.test(line)) return lines
  const echo = lines.findIndex((candidate) => candidate.startsWith('$ '))
  return lines.slice(echo + 1).filter((candidate) => !candidate.startsWith('[ELIFECYCLE]'))
}

/** Run one command to its end and hold it to the doc. */
async function runOne(command: DocCommand, place: Place): Promise<void> {
  const line = await fillPlaceholders(command.line, place)
  if (/\bcurl\b.*\s-\w*N\w*\s.*\/remote\/events/s.test(line)) {
    const mismatch = outputMismatch(command.expected ?? [], await readStream({ ...command, line }, place))
    if (command.expected && mismatch) throw new Error(`${line}\n${mismatch}`)
    return
  }
  const result = await runShell(line, { cwd: place.cwd, env: place.env })
  const leaked = (place.secrets ?? []).filter((secret) => result.output.includes(secret))
  if (leaked.length) throw new Error(`${line}\nprinted a secret the example was given`)
  if (command.expected) {
    const mismatch = outputMismatch(command.expected, printed(line, result.output, place))
    if (mismatch) throw new Error(`${line}\n${mismatch}`)
    return
  }
  if (result.code !== 0) throw new Error(`${line}\nexited ${result.code}:\n${result.output}`)
  if (/^\s*curl\b/.test(line) && result.output.trimStart().startsWith('{"error"')) throw new Error(`${line}\nanswered an error:\n${result.output}`)
}

/** Commands a test must never run (they change the machine or the workspace, or run the tests themselves): such a block must be a sketch. */
const UNSAFE = /\bnpm\s+(?:i|install)\s+(?:-g|--global)\b|\bpnpm\s+(?:i|install|add|test|-r|--recursive)\b|\bsudo\b|\brm\s+-/

/** Run a command block, in order, and stop the hosts it started; each must stop when interrupted. */
export async function runCommandBlock(context: RunContext, block: DocBlock): Promise<void> {
  const commands = blockCommands(block)
  const unsafe = commands.find((command) => UNSAFE.test(command.line))
  if (unsafe) throw new Error(`${unsafe.line}: not a command a test may run; make the block a sketch (first line "# sketch: why")`)
  const place = commands.some((command) => /^\s*pnpm\b/.test(command.line)) ? rootPlace(context, block) : sitePlace(context, block)
  mkdirSync(place.home, { recursive: true })
  const hosts: Background[] = []
  let ran = false
  try {
    if (place.site && !commands.some((command) => startsHost(command.line)) && commands.some((command) => /\$DSH_(?:URL|TOKEN)\b/.test(command.line))) {
      const host = await place.site.start()
      Object.assign(place.env, { DSH_URL: host.url, DSH_TOKEN: host.token })
    }
    for (const command of commands) {
      if (startsHost(command.line)) hosts.push(await startHost(command, place))
      else await runOne(command, place)
    }
    ran = true
  } finally {
    const codes = await Promise.all(hosts.map(async (host) => ({ host, code: await host.interrupt() })))
    await place.dispose()
    // A wrapper (pnpm, bash) may end by the same SIGINT as the host, which then reports nothing else.
    const failed = codes.find(({ code }) => code !== 0 && code !== null && code !== 130)
    if (ran && failed) throw new Error(`the host exited ${failed.code}:\n${failed.host.output}`)
  }
}
