/**
 * One fuzz case against the booted stack, and the checks after it: a write (by
 * any of the four ways in) or a hand-written document followed by a write; then
 * no crash, no half-applied refused write (document bytes and every `get()`
 * unchanged), no polluted prototype, describe still answers, and a plain valid
 * write still succeeds (the service is not wedged).
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import Schema from 'schemastery'
import { malformedId, pollution, prototypeBaseline, rawOutcome, remoteOutcome, seamOutcome, within, type Outcome } from './fuzz-checks.ts'
import type { WriteCase } from './fuzz-inputs.ts'
import type { StoredCase } from './fuzz-yaml.ts'
import type { Stack } from './stack.ts'

/** A must-be-zero finding of one case; `key` groups findings for shrinking (one minimized input per key). */
export interface Finding {
  kind: 'crash' | 'half-applied' | 'pollution' | 'wedged'
  key: string
  message: string
}

/** How long one call may take before the service counts as wedged. */
const CALL_MS = 10_000
/** A document grown past this by accepted writes is reset, so later cases stay fast. */
const RESET_BYTES = 256 * 1024
/** Every instance whose `get()` a refused write must leave as it was. */
const INSTANCES: readonly [string, string | undefined][] = [['fz', undefined], ['fz-loose', undefined], ['fz', 'preset/a'], ['fz-probe', undefined]]

/** The kinds under fuzz: fields of each sort, a free `any`, and an owner check (a refusal that quotes nothing). */
const Fz = Schema.object({
  name: Schema.string().default(''),
  count: Schema.natural().default(0),
  flags: Schema.dict(Schema.boolean()).default({}),
  list: Schema.array(Schema.string()).default([]),
  mode: Schema.union(['a', 'b']).default('a'),
  free: Schema.any(),
})
const refuseBoom = (value: { name: string }) => {
  if (value.name === 'boom') throw new Error('the owner refuses boom')
}

/** Register the fuzz's kinds on `stack`: `fz` (globally and in `preset/a`), `fz-loose` (a dict of anything), `fz-probe`. */
export async function registerFuzzKinds(stack: Stack): Promise<void> {
  await stack.register('fz', Fz, { validate: refuseBoom })
  await stack.register('fz', Fz, { validate: refuseBoom }, 'preset/a')
  await stack.register('fz-loose', Schema.dict(Schema.any()))
  await stack.register('fz-probe', Schema.object({ n: Schema.natural().default(0) }))
}

/** Runs cases on one stack and keeps the figures the row reports. */
export class FuzzTarget {
  readonly refusals: Record<string, number> = {}
  readonly byVia: Record<string, number> = {}
  readonly storedKinds: Record<string, number> = {}
  accepted = 0
  errorLogs = 0
  /** False while fast-check replays smaller inputs: shrink runs are not counted in the figures. */
  counting = true
  private probes = 0
  private markers = 0
  private readonly baseline = prototypeBaseline()

  constructor(private readonly stack: Stack) {}

  /** Run one write case; its findings. */
  async write(input: WriteCase): Promise<Finding[]> {
    const findings: Finding[] = []
    const logsBefore = this.stack.logs.length
    const before = await this.snapshot()
    const outcome = await this.call(input)
    if (this.counting) this.byVia[input.via] = (this.byVia[input.via] ?? 0) + 1
    this.judge(outcome, `${input.via} ${input.raw ? `raw ${input.raw.method}` : input.mode}`, findings)
    if (!outcome.accepted) {
      const after = await this.snapshot()
      if (after.text !== before.text) findings.push({ kind: 'half-applied', key: `half-applied:${input.via}:document`, message: `a refused ${input.mode} (${outcome.code}) changed the document` })
      if (after.values !== before.values) findings.push({ kind: 'half-applied', key: `half-applied:${input.via}:get`, message: `a refused ${input.mode} (${outcome.code}) changed get()` })
    }
    await this.after(findings, logsBefore)
    if ((await stat(this.stack.file)).size > RESET_BYTES) await this.reset()
    return findings
  }

  /** Write `input` into the document by hand, then a marker write and every describe; its findings. */
  async stored(input: StoredCase, wire: boolean): Promise<Finding[]> {
    const findings: Finding[] = []
    const logsBefore = this.stack.logs.length
    if (this.counting) this.storedKinds[input.kind] = (this.storedKinds[input.kind] ?? 0) + 1
    const previous = await readFile(this.stack.file)
    const bytes = Buffer.from(input.bytes)
    await writeFile(this.stack.file, bytes)
    const marker = `marker-${++this.markers}`
    const outcome = await this.settle(() => (wire ? this.stack.remote.settings.update('fz', { name: marker }) : this.stack.settings.update('fz', { name: marker })), wire ? remoteOutcome : (error) => seamOutcome(error, false))
    this.judge(outcome, `${wire ? 'wire' : 'settings'} update after a hand-written ${input.kind} document`, findings)
    const after = await readFile(this.stack.file)
    const name = (this.get('fz') as { name?: unknown } | undefined)?.name
    if (outcome.accepted) {
      // A section that was already invalid keeps its last good value, by design, and describe says why.
      const inEffect = name === marker || this.stack.settings.describe().some((view) => view.ns === 'fz' && view.problem)
      if (!after.includes(marker) || !inEffect) findings.push({ kind: 'half-applied', key: `half-applied:stored:acked`, message: `an acknowledged write over a ${input.kind} document is ${inEffect ? 'not on disk' : 'neither in get() nor explained by a problem'}` })
    } else {
      if (!after.equals(bytes)) findings.push({ kind: 'half-applied', key: `half-applied:stored:document`, message: `a refused write (${outcome.code}) changed the hand-written ${input.kind} document` })
      if (name === marker) findings.push({ kind: 'half-applied', key: `half-applied:stored:get`, message: `a refused write (${outcome.code}) shows in get()` })
    }
    await this.describeAll(findings, true)
    // Put the last good document back, so the wedge check measures the service, not this document.
    await writeFile(this.stack.file, previous)
    await this.after(findings, logsBefore)
    return findings
  }

  /** Start from an empty section for every kind (after a case grew the document, or after a finding). */
  async reset(): Promise<void> {
    for (const [ns, scope] of INSTANCES) await this.stack.settings.replace(ns, {}, undefined, scope).catch(() => {})
  }

  private async call(input: WriteCase): Promise<Outcome> {
    const { stack } = this
    const revision = 'value' in input.revision ? input.revision.value : this.revisionOf(input.ns, input.scope) - (input.revision.symbolic === 'stale' ? 1 : 0)
    const args = [input.ns, input.payload, revision, input.scope] as const
    const anyOf = (target: object) => (target as Record<string, (...rest: unknown[]) => Promise<unknown>>)[input.mode]!.bind(target)
    switch (input.via) {
      case 'settings':
        return this.settle(() => anyOf(stack.settings)(...args), (error) => seamOutcome(error, malformedId(input.ns, input.scope)))
      case 'controller':
        return this.settle(() => anyOf(stack.controller)(...args), remoteOutcome)
      case 'wire':
        return this.settle(() => anyOf(stack.remote.settings)(...args), remoteOutcome)
      case 'raw': {
        const { method } = input.raw!
        // Bytes go as a Buffer (a `BodyInit`), so invalid UTF-8 reaches the server as it was generated.
        const body = typeof input.raw!.body === 'string' ? input.raw!.body : Buffer.from(input.raw!.body)
        const headers = { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' }
        try {
          const response = await within(globalThis.fetch(`${stack.url}/remote/settings/${encodeURIComponent(method)}`, { method: 'POST', headers, body }), CALL_MS, `raw ${method}`)
          return rawOutcome(response.status, await response.text())
        } catch (error) {
          if ((error as Error)?.name === 'WedgedError') return { accepted: false, code: 'timeout', typed: false, message: (error as Error).message }
          return remoteOutcome(error)
        }
      }
    }
  }

  /** Run a call with the wedge timeout and classify how it ended. */
  private async settle(run: () => Promise<unknown>, classify: (error: unknown) => Outcome): Promise<Outcome> {
    try {
      await within(Promise.resolve().then(run), CALL_MS, 'the call')
      return { accepted: true }
    } catch (error) {
      if ((error as Error)?.name === 'WedgedError') return { accepted: false, code: 'timeout', typed: false, message: (error as Error).message }
      return classify(error)
    }
  }

  private judge(outcome: Outcome, what: string, findings: Finding[]): void {
    if (outcome.accepted) this.accepted += this.counting ? 1 : 0
    else if (outcome.typed) this.refusals[outcome.code] = (this.refusals[outcome.code] ?? 0) + (this.counting ? 1 : 0)
    else if (outcome.code === 'timeout') findings.push({ kind: 'wedged', key: `wedged:${what.split(' ')[0]}`, message: `${what}: ${outcome.message}` })
    else findings.push({ kind: 'crash', key: `crash:${what.split(' ')[0]}:${outcome.code}`, message: `${what}: ${outcome.message}` })
  }

  /** Describe, pollution and wedge checks shared by every case; counts new error log lines. */
  private async after(findings: Finding[], logsBefore: number): Promise<void> {
    await this.describeAll(findings, false)
    for (const change of pollution(this.baseline)) findings.push({ kind: 'pollution', key: `pollution:${change}`, message: change })
    try {
      await within(this.stack.settings.update('fz-probe', { n: ++this.probes }), CALL_MS, 'a plain valid write')
    } catch (error) {
      findings.push({ kind: 'wedged', key: 'wedged:probe', message: `a plain valid write failed after the case: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`.slice(0, 300) })
    }
    if (this.counting) this.errorLogs += this.stack.logs.slice(logsBefore).filter((line) => line.startsWith('[E]')).length
  }

  /** Every way to describe; the seam's describe never fails on stored data, and neither may the wire's. */
  private async describeAll(findings: Finding[], wire: boolean): Promise<void> {
    const { settings, controller, remote } = this.stack
    const reads: [string, () => unknown][] = [
      ['describe', () => settings.describe()],
      ['describe', () => settings.describe({ redactSecrets: true, scope: 'preset/a' })],
      ['describe', () => controller.describe()],
    ]
    if (wire) reads.push(['describe', () => remote.settings.describe()], ['describe', () => remote.settings.describe('preset/a')])
    for (const [what, read] of reads) {
      const outcome = await this.settle(async () => read(), (error) => (error instanceof Error && error.name === 'RemoteError' ? remoteOutcome(error) : seamOutcome(error, false)))
      if (!outcome.accepted) this.judge(outcome.typed ? { ...outcome, typed: false } : outcome, what, findings)
    }
  }

  private async snapshot(): Promise<{ text: string; values: string }> {
    const text = await readFile(this.stack.file, 'utf8').catch(() => '')
    return { text, values: JSON.stringify(INSTANCES.map(([ns, scope]) => this.get(ns, scope))) }
  }

  private get(ns: string, scope?: string): unknown {
    return this.stack.settings.get(ns, scope)
  }

  private revisionOf(ns: unknown, scope: unknown): number {
    try {
      return this.stack.settings.describe({ scope: typeof scope === 'string' ? scope : undefined }).find((view) => view.ns === ns)?.revision ?? 0
    } catch {
      return 0
    }
  }
}
