/**
 * The page's drafts: per section, the edits held in the page until one save
 * (a plugin waiting for setup, a switch to a form that needs values), beside
 * the read they were made on. The staged ops may carry a secret's new value,
 * so they live here and never in what the page renders: a section renders the
 * staged view and a {@link SectionDraft} of paths.
 */
import type { SettingsNamespaceView, SettingsPathOpView } from 'dsh-settings-controller'
import { buildForm, fixedOps, missingValues, newlyMissing, NOTHING_STAGED, stage, stagedOps, stagedView, type FormModel, type Staged } from '../model/index.ts'
import type { SectionDraft } from './section-state.ts'

/** A section's staged edits, beside the form they were staged on (the last read). */
interface HeldDraft {
  read: FormModel
  staged: Staged
}

/** What staging leaves the section showing. */
export interface StagedSection {
  /** The view the staged edits would leave: build the section's form from it. */
  view: SettingsNamespaceView
  draft: SectionDraft
}

/** What a save of a draft does: send `ops` with `read`'s revision, or name what is still missing. */
export type DraftSave = { send: { read: FormModel; ops: SettingsPathOpView[] } } | { missing: string[][]; setup: boolean }

/** Every section's draft, by namespace. */
export class Drafts {
  private readonly held = new Map<string, HeldDraft>()

  /** Whether the section holds staged edits. */
  has(ns: string): boolean {
    return this.held.has(ns)
  }

  /** The read the section's staged edits were made on, if it holds any. */
  readOf(ns: string): FormModel | undefined {
    return this.held.get(ns)?.read
  }

  /** Drop the section's draft. */
  drop(ns: string): void {
    this.held.delete(ns)
  }

  /** Drop every draft (a new load, another scope). */
  clear(): void {
    this.held.clear()
  }

  /**
   * Stage `ops` (planned on `form`, the section as shown) when the section
   * already holds a draft, waits for setup, or would be left lacking a required
   * value it did not lack before; with `always`, stage them regardless.
   * @returns what the section shows now, or `undefined` when the ops are to be sent at once.
   */
  stage(ns: string, form: FormModel, ops: readonly SettingsPathOpView[], always = false): StagedSection | undefined {
    const held = this.held.get(ns)
    if (!always && !held && !form.view.needsSetup && newlyMissing(form, buildForm(stagedView(form, stage(form, NOTHING_STAGED, ops)))).length === 0) return undefined
    const read = held?.read ?? form
    const staged = stage(form, held?.staged ?? NOTHING_STAGED, ops)
    this.held.set(ns, { read, staged })
    return { view: stagedView(read, staged), draft: { setup: read.view.needsSetup === true, staged: stagedOps(staged).map((op) => op.path) } }
  }

  /**
   * What a save of the section does. The constants its chosen forms require
   * are staged first (there is nothing to type for them; `restage` shows the
   * section with them); then either every staged op goes out in one write, or
   * the required values still missing are named.
   */
  save(ns: string, form: FormModel, restage: (shown: StagedSection) => FormModel): DraftSave {
    const fixed = fixedOps(form)
    const shown = fixed.length > 0 ? restage(this.stage(ns, form, fixed, true)!) : form
    const held = this.held.get(ns)
    const missing = missingValues(shown)
    if (missing.length > 0 || !held) return { missing, setup: (held?.read ?? shown).view.needsSetup === true }
    return { send: { read: held.read, ops: stagedOps(held.staged) } }
  }
}
