import type { Edit, Field, FormModel } from '../../model/index.ts'

/** What every field control of one section may do. */
export interface SectionApi {
  ns: string
  form: FormModel
  /** A named scope is shown, so inherited values and scope resets apply. */
  scoped: boolean
  /** No writes right now (a read-only provider, an open conflict). */
  disabled: boolean
  /** Send an edit; resolves with the reason when it was refused before sending. */
  apply(edit: Edit): Promise<string | undefined>
  /** Report whether a control holds an unsent draft. */
  setEditing(control: string, editing: boolean): void
  /** Whether the search shows this field (every field when nothing is searched). */
  shows(field: Field): boolean
  /** A server refusal that names a field of this form. */
  fieldError?: { path: string[]; message: string }
  /** After a draft's save was tried: the fields it still lacks, by path (segments joined with NUL). */
  missing?: ReadonlySet<string>
  /** Whether the section's draft writes the field at `path` (not saved yet). */
  staged?(path: readonly string[]): boolean
}
