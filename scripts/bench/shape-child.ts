/**
 * The child side of the boot-by-shape rows of `pnpm bench --scale` (forked by
 * boot-shapes.ts through `runBudgeted`): boots the file provider on a 1 MB
 * document of one shape (shapes.ts), registers its namespace and reads it
 * once (as a plugin does when it starts), then loads the
 * same text with js-yaml 4, alternating, until it has its samples or its time
 * is spent. Every sample's document differs in a leading comment, so no cache
 * keyed on the bytes can serve a later boot. The first round is a warm-up and
 * also checks that the provider served the document's data, not defaults.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { load as loadYaml } from 'js-yaml'
import FileSettingsProvider from 'dsh-settings-file'
import { childMain, report } from './child.ts'
import { bootProvider, mount } from './harness.ts'
import { SHAPE_NAMESPACE, shapeDocument, shapeSchema, type Shape } from './shapes.ts'
import { now } from './stats.ts'

/** Environment variable carrying the JSON {@link ShapeJob} of one child. */
export const SHAPE_JOB_ENV = 'DSH_BENCH_SHAPE_JOB'

/** One shape to time; `dir` is a temp directory the parent made and removes. */
export interface ShapeJob {
  shape: Shape
  bytes: number
  dir: string
  budgetMs: number
}

/** What a shape child found: boot and js-yaml samples in ms, taken in turns. */
export interface ShapeResult {
  boot: number[]
  /** The part of each boot sample spent in the first `get()` after the registration. */
  firstGet: number[]
  jsyaml: number[]
  documentBytes: number
  /** Fewer samples than planned, because the time ran out. */
  reduced: boolean
  warnings: string[]
}

/** A message from a shape child: its timing starts, or its figures are ready. */
export type ShapeMessage = { start: 'boot' } | { result: ShapeResult }

const RUNS = 7
/** Above the file provider's default cap, so a document a little over 1 MB loads whatever the default. */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

const collect = () => (globalThis as { gc?: () => void }).gc?.()

async function shapeJob({ shape, bytes, dir, budgetMs }: ShapeJob): Promise<void> {
  const file = join(dir, 'settings.yaml')
  const schema = shapeSchema(shape)
  const result: ShapeResult = { boot: [], firstGet: [], jsyaml: [], documentBytes: 0, reduced: false, warnings: [] }
  await report<ShapeMessage>({ start: 'boot' })
  const begin = now()
  for (let sample = 0; sample <= RUNS; sample++) {
    const text = shapeDocument(shape, bytes, sample)
    await writeFile(file, text, { mode: 0o600 })
    collect()
    const bootBegin = now()
    const booted = await bootProvider(FileSettingsProvider, { path: file, maxDocumentBytes: MAX_DOCUMENT_BYTES })
    let served: unknown
    try {
      const { value: handle } = await mount(booted.root, (ctx) => ctx.settings.register(SHAPE_NAMESPACE, schema))
      const registeredMs = now() - bootBegin
      // A plugin reads its settings as it starts: a provider that parsed or validated lazily pays for it here.
      served = handle.get()
      const bootMs = now() - bootBegin
      if (sample > 0) {
        result.boot.push(bootMs)
        result.firstGet.push(bootMs - registeredMs)
      }
      result.warnings.push(...booted.warnings.slice(0, 3))
    } finally {
      await booted.dispose()
    }
    collect()
    const loadBegin = now()
    const loaded = loadYaml(text) as Record<string, unknown>
    const loadMs = now() - loadBegin
    if (sample === 0) {
      // A boot that fell back to defaults (a refused document) would look fast: the warm-up proves the data was served.
      if (JSON.stringify(served) !== JSON.stringify(loaded[SHAPE_NAMESPACE])) throw new Error(`the provider did not serve the ${shape} document's data`)
      result.documentBytes = Buffer.byteLength(text)
    } else result.jsyaml.push(loadMs)
    if (sample > 0 && now() - begin > budgetMs * 0.8) break
  }
  result.reduced = result.boot.length < RUNS
  await report<ShapeMessage>({ result })
}

const raw = process.env[SHAPE_JOB_ENV]
if (raw) childMain(() => shapeJob(JSON.parse(raw) as ShapeJob))
