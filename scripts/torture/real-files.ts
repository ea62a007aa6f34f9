/**
 * Real files: what real machines do to a settings document, staged against
 * the real file provider in real host processes (children/files-host.ts: the
 * provider, the remote server, the settings controller and both example
 * plugins, as `pnpm start` wires them), with every call, boot and stop under a
 * deadline. The stages: a symlinked document (target existing, missing,
 * retargeted while running), a second hard link, a FIFO (or a directory,
 * socket, device) at the path at boot or swapped in, a host stopped then the
 * document edited, a root host over a user's home then the user's own host, a
 * tagged or non-map root at boot or swapped in, hand-written YAML shapes
 * edited by writes, an empty section at boot, and a secret under an undeclared
 * key. Each stage runs once; then stages run again with random variations
 * while time remains. One row: wedges, lost bytes, leaked values, broken
 * links, changed modes, wrong outcomes and editor-schema losses, each must be 0.
 */
import type { Row } from './report.ts'
import { StageContext, type Tally } from './real-files-context.ts'
import { noCounts, Sentinels } from './real-files-judge.ts'
import { hardLink, symlinkDangling, symlinkExisting, symlinkRetarget } from './real-files-links.ts'
import { rootThenUser } from './real-files-owners.ts'
import { emptySection, handShapes, undeclaredKey } from './real-files-shapes.ts'
import { foreignRootAtBoot, foreignRootSwappedIn, oddAtBoot, oddSwappedIn, stopThenEdit } from './real-files-special.ts'

/** Every stage, by id, in the order of the first pass. */
const STAGES: readonly [string, (c: StageContext) => Promise<void>][] = [
  ['symlink', symlinkExisting],
  ['dangling symlink', symlinkDangling],
  ['retargeted symlink', symlinkRetarget],
  ['hard link', hardLink],
  ['not a regular file, swapped in', oddSwappedIn],
  ['not a regular file, at boot', oddAtBoot],
  ['stop then edit', stopThenEdit],
  ['root then user', rootThenUser],
  ['foreign root swapped in', foreignRootSwappedIn],
  ['foreign root at boot', foreignRootAtBoot],
  ['hand-written shapes', handShapes],
  ['empty section', emptySection],
  ['undeclared key', undeclaredKey],
]

async function runStage(tally: Tally, id: string, stage: (c: StageContext) => Promise<void>, variation: number): Promise<void> {
  const context = await StageContext.open(id.replace(/[^a-z]+/g, '-'), tally, variation)
  tally.runs[id] = (tally.runs[id] ?? 0) + 1
  try {
    await stage(context)
  } catch (error) {
    // A stage that throws found something its checks did not expect: reported, never swallowed.
    context.wrong(`the stage threw: ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 3).join(' | ') : String(error)}`)
  } finally {
    await context.finish()
  }
}

/** Run every stage once, then random ones with random variations until `seconds` have passed; one row. */
export async function realFiles(seconds: number): Promise<Row[]> {
  const deadline = Date.now() + seconds * 1000
  const tally: Tally = { counts: noCounts(), notes: [], sentinels: new Sentinels(), writes: 0, kills: 0, edits: 0, hosts: 0, runs: {}, unstaged: new Set() }
  for (const [id, stage] of STAGES) await runStage(tally, id, stage, 0)
  while (Date.now() < deadline) {
    const [id, stage] = STAGES[Math.floor(Math.random() * STAGES.length)]!
    await runStage(tally, id, stage, 1 + Math.floor(Math.random() * 1000))
  }
  const { counts } = tally
  return [
    {
      id: 'real-files',
      scenario: 'real files',
      ops: tally.writes,
      kills: tally.kills,
      edits: tally.edits,
      mustBeZero: {
        wedges: counts.wedges,
        'lost bytes': counts.lostBytes,
        'leaked values': counts.leakedValues,
        'broken links': counts.brokenLinks,
        'changed modes': counts.changedModes,
        'wrong outcomes': counts.wrongOutcomes,
        'editor schema namespaces lost': counts.schemaLost,
      },
      figures: {
        hosts: tally.hosts,
        'stage runs': Object.values(tally.runs).reduce((sum, runs) => sum + runs, 0),
        ...(tally.unstaged.size ? { 'not staged here': [...tally.unstaged].join('; ') } : {}),
      },
      detail: { notes: tally.notes, runs: tally.runs },
    },
  ]
}
