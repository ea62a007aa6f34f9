/**
 * The settings page's form model: a redacted namespace view (schema envelope
 * and layers) becomes a tree of fields, candidate values are checked against
 * what the envelope states, and edits become `mutate` path ops. Pure data in
 * and out, so any frontend can render it.
 */

/** Read a schema envelope as data; see {@link readEnvelope}. */
export { readEnvelope, resolveNode, holdsSecret, describeText } from './envelope.ts'
/** The fallback chain of locales the model picks descriptions by. */
export { localeChain } from 'dsh-settings/locale'
/** The envelope shapes the model reads. */
export type { Envelope, EnvelopeNode, NodeMeta } from './envelope.ts'
/** Build a form from one view and walk it; see {@link buildForm}. */
export { buildForm, everyField, fieldAt, flatten, isHostSecret } from './fields.ts'
/** The form's field tree. */
export type { Field, FieldKind, FieldOption, FieldVariant, FormModel, FormOptions } from './fields.ts'
/** Check a candidate value before it is sent; see {@link validateField}. */
export { checkNode, FIELD_ISSUE_ENGLISH, validateField } from './validate.ts'
/** One validation problem, without the value. */
export type { FieldIssue, FieldIssueCode } from './validate.ts'
/** Turn an edit into what to send; see {@link planEdit}. */
export { EDIT_REFUSAL_ENGLISH, planEdit } from './ops.ts'
/** Edits, their plans, and why one is refused. */
export type { Edit, EditPlan, EditRefusal } from './ops.ts'
/** Read JSON data by path, as the model does. */
export { getAt, hasAt, startsWith } from './paths.ts'
/** What differs between two reads of a namespace; see {@link changedFields}. */
export { changedFields } from './changes.ts'
export type { FieldChange } from './changes.ts'
/** Edits staged and saved together (setup, a switch to a form that needs values); see {@link stage}. */
export { fixedOps, missingValues, newlyMissing, NOTHING_STAGED, stage, stagedOps, stagedView } from './staged.ts'
export type { Staged } from './staged.ts'
/** How a union's forms are told apart; see {@link meantBranch}. */
export { meantBranch } from './branches.ts'
/** The starting value of a new entry or item; see {@link blankValue}. */
export { blankValue } from './blank.ts'
/** Search and the "modified" filter, and their place in the address; see {@link searchForm}. */
export { fieldMentions, fieldShown, hashWithSearch, isModified, isSearching, NO_SEARCH, pathKey, sameSearch, searchForm, searchFromHash } from './search.ts'
export type { FormMatch, SearchQuery } from './search.ts'
