/**
 * Fuzz: fast-check drives random writes and hand-written documents into the
 * real stack in this process (YAML file provider on a temp document,
 * controller, remote server on port 0), through the seam, the controller, the
 * typed wire client and raw HTTP bodies. Every escaping exception must be a
 * typed refusal, a refused write must leave the document and `get()` as they
 * were, no built-in prototype may change, and a plain write must succeed after
 * every case. The first input of each kind of finding is shrunk by fast-check
 * and reported (abbreviated); later ones are only counted.
 */
import fc from 'fast-check'
import { show } from './fuzz-checks.ts'
import { writeCase, type WriteCase } from './fuzz-inputs.ts'
import { FuzzTarget, registerFuzzKinds, type Finding } from './fuzz-target.ts'
import { storedCase, type StoredCase } from './fuzz-yaml.ts'
import { removeTemp, tempDir } from './harness.ts'
import type { Row } from './report.ts'
import { bootStack } from './stack.ts'

type Case = { write: WriteCase } | { stored: StoredCase; wire: boolean }

/** Three writes for every hand-written document: documents cost a parse of up to megabytes each. */
const anyCase: fc.Arbitrary<Case> = fc.oneof(
  { weight: 3, arbitrary: writeCase.map((write) => ({ write })) },
  { weight: 1, arbitrary: fc.record({ stored: storedCase, wire: fc.boolean() }) },
)

/** Runs per `fc.check` batch: small, so the deadline is noticed between batches and each batch gets a fresh seed. */
const BATCH = 40

const INITIAL = '# torture: fuzz\nfz:\n  name: start\nfz-probe:\n  n: 0\n'

/** Fuzz for `seconds`; one row. */
export async function fuzz(seconds: number): Promise<Row[]> {
  const dir = await tempDir('fuzz')
  const stack = await bootStack(dir, { document: INITIAL, settleMs: 0 })
  const counts: Record<Finding['kind'], number> = { crash: 0, 'half-applied': 0, pollution: 0, wedged: 0 }
  /** Per finding key: the minimized input and its message (the first one found of each key). */
  const minimized = new Map<string, string>()
  const notes: string[] = []
  let cases = 0
  let shrinkRuns = 0
  // A promise the service forgot to handle is a crash too, whichever case left it.
  const onUnhandled = (reason: unknown) => {
    counts.crash++
    if (notes.length < 20) notes.push(`unhandled rejection: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)}`.slice(0, 300))
  }
  process.on('unhandledRejection', onUnhandled)
  // The yaml package warns on stderr (quoting document text) about keys it cannot represent: reported, not judged.
  const warnings = new Map<string, number>()
  const onWarning = (warning: Error) => void warnings.set(warning.message.split(':')[0]!, (warnings.get(warning.message.split(':')[0]!) ?? 0) + 1)
  process.on('warning', onWarning)
  try {
    await registerFuzzKinds(stack)
    const target = new FuzzTarget(stack)
    const deadline = Date.now() + seconds * 1000
    /** The key being shrunk; while set, runs are fast-check replaying smaller inputs, not new cases. */
    let shrinking: string | undefined
    let lastMessage = ''
    const property = fc.asyncProperty(anyCase, async (input) => {
      if (!shrinking && Date.now() > deadline) return true
      target.counting = !shrinking
      const findings = 'write' in input ? await target.write(input.write) : await target.stored(input.stored, input.wire)
      if (shrinking) {
        shrinkRuns++
        const same = findings.find((finding) => finding.key === shrinking)
        if (same) lastMessage = same.message
        if (findings.length) await target.reset()
        return !same
      }
      cases++
      for (const finding of findings) counts[finding.kind]++
      if (findings.length) await target.reset()
      const fresh = findings.find((finding) => !minimized.has(finding.key))
      if (!fresh) return true
      shrinking = fresh.key
      lastMessage = fresh.message
      return false
    })
    while (Date.now() < deadline) {
      // Shrinking gets its own budget past the deadline, so a late finding is still minimized.
      const details = await fc.check(property, { numRuns: BATCH, seed: Math.floor(Math.random() * 2 ** 31), interruptAfterTimeLimit: Math.max(5000, deadline - Date.now() + 5000), markInterruptAsFailure: false })
      if (shrinking && details.counterexample) {
        const [input] = details.counterexample as [Case]
        const shown = 'write' in input ? `${input.write.via} ${input.write.raw ? `raw ${input.write.raw.method} body ${show(input.write.raw.body)}` : `${input.write.mode}(ns ${show(input.write.ns)}, ${show(input.write.payload)}, revision ${show(input.write.revision)}, scope ${show(input.write.scope)})`}` : `${input.wire ? 'wire' : 'in-process'} write after hand-written ${input.stored.kind} document ${show(input.stored.bytes)}`
        minimized.set(shrinking, `${lastMessage} — minimized input (${details.numShrinks} shrinks, seed ${details.seed}): ${shown}`)
      }
      shrinking = undefined
    }
    const refusals = Object.entries(target.refusals).sort(([, a], [, b]) => b - a)
    return [
      {
        id: 'fuzz',
        scenario: 'fuzz',
        ops: cases,
        kills: 0,
        edits: Object.values(target.storedKinds).reduce((sum, count) => sum + count, 0),
        mustBeZero: { crashes: counts.crash, 'half-applied writes': counts['half-applied'], 'prototype pollution': counts.pollution, wedged: counts.wedged },
        figures: {
          'inputs tried': cases,
          accepted: target.accepted,
          'writes by settings/controller/wire/raw': ['settings', 'controller', 'wire', 'raw'].map((via) => target.byVia[via] ?? 0).join('/'),
          'refusals by code': refusals.map(([code, count]) => `${code} ${count}`).join(', ') || 0,
          'documents by kind': Object.entries(target.storedKinds).map(([kind, count]) => `${kind} ${count}`).join(', ') || 0,
          'error log lines': target.errorLogs,
          'process warnings': [...warnings].map(([text, count]) => `${count}× ${text}`).join(', ') || 0,
          'shrink runs': shrinkRuns,
        },
        detail: { notes: [...[...minimized.values()], ...notes], refusals: target.refusals, storedKinds: target.storedKinds },
      },
    ]
  } finally {
    process.off('unhandledRejection', onUnhandled)
    process.off('warning', onWarning)
    await stack.dispose()
    await removeTemp(dir)
  }
}
