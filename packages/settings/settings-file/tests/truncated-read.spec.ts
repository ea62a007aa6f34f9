/**
 * Issue 36's lost write: a write must never derive the next document from the
 * empty file an editor's in-place save passes through (truncated, not yet
 * written), whatever the writer knew of the document before: the version it
 * had just written itself (truncated before it looked at it again), or nothing
 * at all (a writer process that starts at that instant).
 * Each race is forced at an exact step through the provider's step hook.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import { tempDir } from './file-harness.ts'
import { bootProbed, editorSaves, truncateNow, type Probed, type StepHooks } from './probed.ts'

const sectionSchema = Schema.object({ n: Schema.natural().default(0) })
type Section = ReturnType<typeof sectionSchema>
const NAMESPACES = ['mine', 'hand', 'other'] as const

const START = ['mine:', '  n: 1', 'hand:', '  n: 5', 'other:', '  n: 7', ''].join('\n')
const handSaved = (n: number, mine: number) => ['mine:', `  n: ${mine}`, 'hand:', `  n: ${n}`, 'other:', '  n: 7', ''].join('\n')

let dir: string
let file: string
let cleanup: () => Promise<void>
let probed: Probed | undefined
let hooks: StepHooks

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  file = join(dir, 'settings.yaml')
  await writeFile(file, START)
  hooks = {}
})
afterEach(async () => {
  await probed?.dispose()
  probed = undefined
  await cleanup()
})

async function boot(config: Record<string, unknown>): Promise<Record<string, SettingsScope<Section>>> {
  probed = await bootProbed({ path: file, watch: false, ...config }, hooks)
  const scopes: Record<string, SettingsScope<Section>> = {}
  await probed.root.inject(['settings'], (ctx) => {
    for (const ns of NAMESPACES) scopes[ns] = ctx.settings.register(ns, sectionSchema)
  })
  return scopes
}

const onDisk = async () => parse(await readFile(file, 'utf8')) as Record<string, Section> | null
const editorRename = (text: string) => editorSaves.rename(file, text)
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a write after an in-place save truncated the version this writer had just written', () => {
  it('waits for the save instead of deriving from the empty file, and keeps every section', async () => {
    // settleMs far above the editor's pause: the late-edit timer cannot repair a wrong write before it is looked at.
    const scopes = await boot({ settleMs: 400 })
    // The editor opens the document (truncating it) right after the write swapped its version in, before the write answers.
    let editor: { finish(text: string): Promise<void> } | undefined
    hooks.renamed = async () => {
      if (!editor) editor = await truncateNow(file)
    }
    await scopes.mine!.update({ n: 2 })
    delete hooks.renamed
    expect(await readFile(file, 'utf8')).toBe('')
    // The next write reads the truncated file: it must wait for the save, not take "empty" for the document.
    const second = scopes.other!.update({ n: 8 })
    await pause(40)
    await editor!.finish(handSaved(6, 2))
    await second
    // Looked at at once: no late fold had its chance yet, so this is what the write itself made.
    expect(await onDisk()).toEqual({ mine: { n: 2 }, hand: { n: 6 }, other: { n: 8 } })
  })
})

describe('an in-place save stalled between its truncate and its bytes (a busy machine)', () => {
  it('is waited for well past settleMs before a write takes the empty file for the document', async () => {
    const scopes = await boot({ settleMs: 30 })
    const editor = await truncateNow(file)
    const written = scopes.other!.update({ n: 8 })
    // Stalled four times settleMs: the empty file looks settled by settleMs alone.
    await pause(120)
    await editor.finish(handSaved(6, 1))
    await written
    expect(await onDisk()).toEqual({ mine: { n: 1 }, hand: { n: 6 }, other: { n: 8 } })
  })
})

describe('a writer that starts while an in-place save has the document truncated', () => {
  it('loads the saved document, not an empty one, and its first write keeps every section', async () => {
    const editor = await truncateNow(file)
    const booted = boot({ settleMs: 300 })
    await pause(40)
    await editor.finish(handSaved(6, 1))
    const scopes = await booted
    expect(scopes.hand!.get().n).toBe(6)
    expect(scopes.other!.get().n).toBe(7)
    await scopes.mine!.update({ n: 2 })
    expect(await onDisk()).toEqual({ mine: { n: 2 }, hand: { n: 6 }, other: { n: 7 } })
  })

  it('whose boot found the document empty still waits for a save that truncated it later', async () => {
    await writeFile(file, '')
    // The boot waits out the young empty file (ten times settleMs), then takes it: it is what there is.
    const scopes = await boot({ settleMs: 60 })
    // Another program fills the document; then an editor saves it in place.
    await editorRename(START)
    const editor = await truncateNow(file)
    const written = scopes.other!.update({ n: 8 })
    await pause(40)
    await editor.finish(handSaved(6, 1))
    await written
    expect(await onDisk()).toEqual({ mine: { n: 1 }, hand: { n: 6 }, other: { n: 8 } })
  })
})
