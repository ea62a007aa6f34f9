/**
 * One round of a fault, shared by faults.ts and disk-full.ts: impose the fault
 * (before the call, or from inside the write), try a write that must fail loud,
 * check the document is untouched, lift the fault, and write again.
 */
import { readFile, stat } from 'node:fs/promises'
import FileSettingsProvider, { type FileStep } from 'dsh-settings-file'
import type { Here } from './boot.ts'
import { errorCode } from './children/common.ts'
import type { Row } from './report.ts'
import { parseSettingsText } from './yaml.ts'

/**
 * The real provider with its step hook armed: the next write imposes the fault
 * itself, after the seam's call-time `writable` check passed and before the
 * provider reads the document, so the provider's own refusal is what is tried.
 */
export class ArmedProvider extends FileSettingsProvider {
  static arm: (() => Promise<void>) | undefined
  protected override async step(step: FileStep): Promise<void> {
    const fault = ArmedProvider.arm
    if (step !== 'read' || !fault) return
    ArmedProvider.arm = undefined
    await fault()
  }
}

/** Counts of one fault row. */
export interface FaultCounts {
  tries: number
  loud: number
  byteChanges: number
  recoveries: number
  /** Loud failures by error class and by when the fault struck, e.g. `SettingsStoreError mid-write`. */
  refusedAs: Record<string, number>
  notes: string[]
}

/** Fresh counts. */
export const noCounts = (): FaultCounts => ({ tries: 0, loud: 0, byteChanges: 0, recoveries: 0, refusedAs: {}, notes: [] })

/** The document's bytes and mode, to compare before and after a refused write. */
export async function snapshot(file: string): Promise<{ bytes: Buffer; mode: number }> {
  return { bytes: await readFile(file), mode: (await stat(file)).mode & 0o7777 }
}

/**
 * One round of a fault: `impose` it (before the call, or with `midWrite` from
 * inside the write through {@link ArmedProvider}), try a write that must reject
 * with `code`, check the document is untouched, `lift` it, and write again.
 */
export async function tryFault(here: Here, file: string, round: number, code: string, impose: () => Promise<void>, lift: () => Promise<void>, counts: FaultCounts, midWrite = false): Promise<void> {
  const note = (text: string) => void (counts.notes.length < 20 && counts.notes.push(text))
  const modeOf = async () => (await stat(file)).mode & 0o7777
  const before = await snapshot(file)
  /** The document's mode while the fault is on (a chmod of the document is the fault itself). */
  let faulted: number | undefined
  const imposeAndLook = async () => {
    await impose()
    faulted = await modeOf()
  }
  if (midWrite) ArmedProvider.arm = imposeAndLook
  else await imposeAndLook()
  try {
    counts.tries++
    try {
      await here.settings.update('f', { k: { round } })
      note(`round ${round}: the write resolved despite the fault`)
    } catch (error) {
      if (errorCode(error) === code) {
        counts.loud++
        const as = `${(error as Error).name} ${midWrite ? 'mid-write' : 'at call'}`
        counts.refusedAs[as] = (counts.refusedAs[as] ?? 0) + 1
      }
      else note(`round ${round}: failed with ${errorCode(error)} instead of ${code}: ${(error as Error).message}`)
    }
    const after = await snapshot(file)
    if (!after.bytes.equals(before.bytes) || (faulted !== undefined && after.mode !== faulted)) {
      counts.byteChanges++
      note(`round ${round}: the document changed (mode ${faulted?.toString(8)} → ${after.mode.toString(8)}, ${before.bytes.length} → ${after.bytes.length} bytes)`)
    }
  } finally {
    // A write that never reached the hook leaves the fault unimposed: disarm it.
    ArmedProvider.arm = undefined
    await lift()
  }
  const lifted = await modeOf()
  try {
    await here.settings.update('f', { k: { round } })
    const text = await readFile(file, 'utf8')
    if (parseSettingsText(text)?.f?.k?.round !== round) note(`round ${round}: the write after lifting the fault resolved, but the document does not hold it: ${JSON.stringify(text.slice(0, 200))}`)
    else if ((await modeOf()) !== lifted) note(`round ${round}: the write after lifting the fault changed the mode ${lifted.toString(8)} → ${(await modeOf()).toString(8)}`)
    else counts.recoveries++
  } catch (error) {
    note(`round ${round}: the write after lifting the fault failed: ${(error as Error).message}`)
  }
}

/** A row of a fault's counts. */
export function faultRow(id: string, scenario: string, counts: FaultCounts, extra: Record<string, number> = {}): Row {
  return {
    id,
    scenario,
    ops: counts.tries,
    kills: 0,
    edits: 0,
    mustBeZero: { 'writes not refused loud': counts.tries - counts.loud, 'byte changes': counts.byteChanges, 'failed recoveries': counts.tries - counts.recoveries, ...extra },
    figures: {
      tries: counts.tries,
      'loud failures': counts.loud,
      recoveries: counts.recoveries,
      'refused as':
        Object.entries(counts.refusedAs)
          .map(([as, count]) => `${as} ${count}`)
          .join(', ') || '—',
    },
    detail: { notes: counts.notes },
  }
}
