import { fieldAt, fieldShown, flatten, startsWith, type FormMatch } from '../model/index.ts'
import type { SectionApi } from './fields/api.ts'
import { FieldView } from './fields/FieldView.tsx'
import { fieldId, showPath } from './format.ts'
import { MigrationNote } from './MigrationNote.tsx'
import { NotUsedKeys } from './NotUsedKeys.tsx'
import type { SectionState, SettingsSession } from './session.ts'
import { m } from './i18n.ts'

function isEmptySection(user: unknown): boolean {
  return user === undefined || (typeof user === 'object' && user !== null && Object.keys(user).length === 0)
}

/**
 * One namespace: its heading, badges, notices (conflict, newer read, refusal)
 * and form. With `match` (a search is on) only the fields it shows are rendered.
 */
export function Section({ session, section, writable, match }: { session: SettingsSession; section: SectionState; writable: boolean; match?: FormMatch | undefined }) {
  const { form, conflict, newer, error, busy, draft } = section
  // The stored section is not in effect (the file was edited into something the schema or the owner refuses).
  const problem = form.view.problem
  // The plugin waits for values it requires: they are asked for first, and saving them starts it.
  const setup = form.view.needsSetup === true
  const scoped = form.scope !== undefined
  const headingId = fieldId(form.ns, [])
  // A refusal naming a shown field goes beside it; one naming the whole section (or a hidden field) goes on top.
  const named = error?.path?.length ? fieldAt(form, error.path) : undefined
  const errorField = named && !named.hidden ? named : undefined
  const api: SectionApi = {
    ns: form.ns,
    form,
    scoped,
    // A write on its way does not disable the form (that would drop the focus); the session queues the next one.
    disabled: !writable || conflict !== undefined,
    apply: (edit) => session.apply(form.ns, edit),
    setEditing: (control, editing) => session.setEditing(form.ns, control, editing),
    shows: (field) => match === undefined || fieldShown(match, field.path),
    ...(errorField && error ? { fieldError: { path: errorField.path, message: error.message } } : {}),
    ...(draft?.missing?.length ? { missing: new Set(draft.missing.map((path) => path.join('\0'))) } : {}),
    ...(draft ? { staged: (path: readonly string[]) => draft.staged.some((written) => startsWith(path, written)) } : {}),
  }
  const root = form.root
  const children = root.kind === 'object' ? (root.children ?? []) : [root]
  const visible = children.filter((child) => !child.hidden && api.shows(child))

  return (
    <section class={setup ? 'section section-setup' : 'section'} aria-labelledby={headingId} aria-busy={busy}>
      <header class="section-head">
        <h2 id={headingId} tabIndex={-1}>
          {form.ns}
        </h2>
        {form.applies === 'restart' && (
          <span class="badge badge-restart" title={m.appliesAfterRestartTitle}>
            {m.appliesAfterRestart}
          </span>
        )}
        {!form.registered && <span class="badge">{m.notRegisteredHere}</span>}
        {setup && <span class="badge badge-setup">{m.needsSetupBadge}</span>}
        {!draft && (!isEmptySection(form.view.user) || (problem && !setup)) && (
          <button type="button" class="quiet" disabled={api.disabled} onClick={() => void session.apply(form.ns, { type: 'reset-section' })}>
            {m.resetSection(scoped)}
          </button>
        )}
      </header>
      {root.description && <p class="description">{root.description}</p>}
      <MigrationNote migration={form.view.migration} />

      {conflict && (
        <div class="notice notice-warn" role="alert">
          <p>
            <strong>{m.notSaved}</strong> {m.changedSince}
            {conflict.changes.length > 0 && (
              <>
                {' '}
                {m.changed(conflict.changes.map((change) => (change.kind === 'secret' ? `${showPath(change.path)} (${m.secretMark})` : showPath(change.path))).join(', '))}
              </>
            )}
          </p>
          <div class="actions">
            <button type="button" onClick={() => void session.reload(form.ns)}>
              {m.reload}
            </button>
            <button type="button" onClick={() => void session.reapply(form.ns)}>
              {m.reapply}
            </button>
          </div>
        </div>
      )}
      {newer && !conflict && (
        <div class="notice" role="status">
          <p>{m.changedElsewhere}</p>
          <button type="button" onClick={() => void session.reload(form.ns)}>
            {m.loadNew}
          </button>
        </div>
      )}
      {setup && (
        <div class="notice notice-setup" role="status">
          <p>{m.needsSetupText((problem?.missing ?? []).map((path) => showPath(path)).join(', '))}</p>
        </div>
      )}
      {draft && !setup && (
        <div class="notice notice-draft" role="status">
          <p>{m.draftNotice}</p>
        </div>
      )}
      {problem && !setup && (
        <div class="notice notice-error" role="alert">
          <p>
            <strong>{m.notInEffect}</strong>
            {problem.path.length ? m.atPath(showPath(problem.path)) : ''}: {problem.message}. {m.lastGood}
          </p>
          <button type="button" disabled={api.disabled} onClick={() => void session.apply(form.ns, { type: 'reset-section' })}>
            {m.resetSection(scoped)}
          </button>
        </div>
      )}
      {error && !errorField && (
        <p class="notice notice-error" role="alert">
          {error.path ? `${showPath(error.path)}: ` : ''}
          {error.message}
        </p>
      )}

      <div class="fields">
        {visible.map((child) => (
          <FieldView key={child.path.join('\0')} field={child} api={api} />
        ))}
        {!match && visible.length === 0 && flatten(root).length <= 1 && root.kind !== 'object' && root.kind !== 'union' && <p>{m.noFields}</p>}
      </div>
      {(draft || setup) && <DraftActions session={session} section={section} writable={writable} />}
      {!match && <NotUsedKeys session={session} ns={form.ns} keys={form.view.undeclared} scoped={scoped} disabled={api.disabled || busy} />}
    </section>
  )
}

/**
 * The save bar of a section whose edits the page holds (a plugin waiting for
 * setup, a switch to a form that needs values): one save sends them all;
 * what is still missing is named here and marked at each field.
 */
function DraftActions({ session, section, writable }: { session: SettingsSession; section: SectionState; writable: boolean }) {
  const { form, draft, busy } = section
  const missing = draft?.missing ?? []
  return (
    <div class="draft-actions">
      {missing.length > 0 && (
        <p class="field-error" role="alert">
          {m.draftMissing(missing.map((path) => showPath(path)).join(', '))}
        </p>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={!writable || busy || section.conflict !== undefined} onClick={() => void session.saveDraft(form.ns)}>
          {m.draftSave}
        </button>
        {draft && (
          <button type="button" class="quiet" disabled={busy} onClick={() => session.discardDraft(form.ns)}>
            {m.draftDiscard}
          </button>
        )}
      </div>
    </div>
  )
}
