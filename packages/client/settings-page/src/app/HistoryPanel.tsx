import { useEffect, useRef } from 'preact/hooks'
import type { SettingsFieldChange, SettingsHistoryVersion, SettingsSectionDiff } from 'dsh-settings'
import { showPath, showTime, showValue } from './format.ts'
import { sectionKey, sectionName, versionTime, whoMadeIt, type HistoryDiff, type HistoryState, type HistoryView } from './history.ts'
import { useStore } from './use-session.ts'
import { m } from './i18n.ts'
import { stepList } from './migration-text.ts'

/** What a changed field was in the version and is now, as two cells of text. Secrets never carry a value. */
function cells(change: SettingsFieldChange): [string, string] {
  const NOT_SET = m.notSet
  if (change.withheld) return [m.differsHidden, m.differsHidden]
  if (change.secret) {
    if (change.change === 'set') return [NOT_SET, m.secretSetHidden]
    if (change.change === 'unset') return [m.secretSetHidden, NOT_SET]
    return [m.secretSetHidden, m.secretReplaced]
  }
  // A key the schema does not declare carries no value either: it may be a renamed secret.
  if (change.undeclared) {
    if (change.change === 'set') return [NOT_SET, m.undeclaredSet]
    if (change.change === 'unset') return [m.undeclaredSet, NOT_SET]
    return [m.undeclaredSet, m.replacedHidden]
  }
  if (change.change === 'set') return [NOT_SET, showValue(change.after)]
  if (change.change === 'unset') return [showValue(change.before), NOT_SET]
  return [showValue(change.before), showValue(change.after)]
}

/** How a section's stored version changed from the version picked to now: a migration names its steps. */
function versionLine(version: NonNullable<SettingsSectionDiff['version']>): string {
  if (version.steps) {
    const steps = stepList(version)
    return m.versionMigrated(version.before, version.after, steps.length ? `: ${steps.join('; ')}` : '')
  }
  return m.versionStored(version.before, version.after)
}

/** A DOM id for one section of the difference. */
function diffId(section: { ns: string; scope?: string | undefined }): string {
  return `diff-${sectionKey(section).replace(/[^A-Za-z0-9_-]/g, (ch) => `_${ch.codePointAt(0)!.toString(16)}_`)}`
}

/** One section of the difference: its changed fields, and a button to restore it alone. */
function DiffSection({ view, state, section }: { view: HistoryView; state: HistoryState; section: SettingsSectionDiff }) {
  const id = diffId(section)
  const name = sectionName(section)
  const error = state.error?.section && sectionKey(state.error.section) === sectionKey(section) ? state.error : undefined
  const withheld = section.fields.some((field) => field.withheld)
  return (
    <section class="diff-section" aria-labelledby={`${id}-name`}>
      <header class="section-head">
        <h4 id={`${id}-name`}>{name}</h4>
        {!section.unregistered && (
          <button type="button" class="quiet" disabled={state.restoring} aria-describedby={`${id}-name`} onClick={() => void view.restoreSection(section.ns, section.scope)}>
            {m.restoreSection}
          </button>
        )}
      </header>
      {section.unregistered ? (
        <p class="field-hint">{m.unregisteredDiff}</p>
      ) : (
        <>
          {section.version && <p class="field-hint diff-version">{versionLine(section.version)}</p>}
          {withheld && <p class="field-hint">{m.mismatchNote}</p>}
          <div class="table-wrap">
            <table class="diff-table">
              <caption class="visually-hidden">{m.differCaption(name)}</caption>
              <thead>
                <tr>
                  <th scope="col">{m.field}</th>
                  <th scope="col">{m.inThisVersion}</th>
                  <th scope="col">{m.now}</th>
                </tr>
              </thead>
              <tbody>
                {section.fields.map((field) => {
                  const [before, after] = cells(field)
                  return (
                    <tr key={field.path.join('\u0000')} class={`change change-${field.change}`}>
                      <th scope="row">
                        {showPath(field.path)}
                        {field.secret && (
                          <>
                            {' '}
                            <span class="mark mark-required">secret</span>
                          </>
                        )}
                        {field.undeclared && (
                          <>
                            {' '}
                            <span class="mark">not used by this plugin</span>
                          </>
                        )}
                      </th>
                      <td>
                        <code>{before}</code>
                      </td>
                      <td>
                        <code>{after}</code>
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
      {error && (
        <p class="notice notice-error" role="alert">
          {error.message}
        </p>
      )}
    </section>
  )
}

/** What differs between the selected version and the current settings, with the restore buttons. */
function DiffView({ view, state, diff, version }: { view: HistoryView; state: HistoryState; diff: HistoryDiff; version: SettingsHistoryVersion | undefined }) {
  const versionError = state.error && !state.error.section ? state.error : undefined
  return (
    <section class="diff" aria-labelledby="diff-heading" aria-busy={diff.status === 'loading' || state.restoring}>
      <h3 id="diff-heading" tabIndex={-1}>
        {version ? m.versionWritten(showTime(versionTime(version)), whoMadeIt(version.by)) : m.selectedVersion}
      </h3>
      <p class="description">{m.diffIntro}</p>
      {diff.status === 'loading' && <p>{m.comparing}</p>}
      {diff.status === 'failed' && (
        <div class="notice notice-error" role="alert">
          <p>{m.compareFailed(diff.failure ?? '')}</p>
          <button type="button" onClick={() => void view.select(diff.version)}>
            {m.tryAgain}
          </button>
        </div>
      )}
      {diff.status === 'ready' && diff.sections.length === 0 && <p>{m.sameAsNow}</p>}
      {diff.status === 'ready' && diff.sections.length > 0 && (
        <>
          <div class="actions">
            <button type="button" disabled={state.restoring} onClick={() => void view.restoreVersion()}>
              {m.restoreVersion}
            </button>
          </div>
          {versionError && (
            <p class="notice notice-error" role="alert">
              {m.restoreFailed(versionError.message)}
            </p>
          )}
          {diff.sections.map((section) => (
            <DiffSection key={sectionKey(section)} view={view} state={state} section={section} />
          ))}
        </>
      )}
    </section>
  )
}

/** One kept version in the list: when it was written, by whom, and which sections it changed. */
function VersionItem({ view, version, selected }: { view: HistoryView; version: SettingsHistoryVersion; selected: boolean }) {
  const changed = version.sections.length ? version.sections.map(sectionName).join(', ') : m.noSection
  return (
    <li class={selected ? 'version version-selected' : 'version'}>
      <button type="button" class="quiet version-pick" aria-pressed={selected} onClick={() => void view.select(version.id)}>
        <time dateTime={versionTime(version)}>{m.written(showTime(versionTime(version)))}</time>
        <span class="version-who">{m.by(whoMadeIt(version.by))}</span>
        <span class="version-sections">{m.changedSections(changed)}</span>
      </button>
    </li>
  )
}

/**
 * The history view: the kept versions of the settings file, newest first,
 * with "Load more"; picking one shows how it differs from the settings now,
 * and offers to restore it whole or one section at a time.
 */
export function HistoryPanel({ view }: { view: HistoryView }) {
  const state = useStore(view)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  const selected = state.versions.find((version) => version.id === state.selected)
  return (
    <section id="history" class="history" aria-labelledby="history-heading">
      <h2 id="history-heading" ref={heading} tabIndex={-1}>
        {m.history}
      </h2>
      <p class="description">{m.historyIntro}</p>
      {state.status === 'loading' && <p>{m.loading}</p>}
      {state.status === 'failed' && (
        <div class="notice notice-error" role="alert">
          <p>{m.historyFailed(state.failure ?? '')}</p>
          <button type="button" onClick={() => void view.refresh()}>
            {m.tryAgain}
          </button>
        </div>
      )}
      {state.status === 'ready' && state.versions.length === 0 && <p>{m.noVersions}</p>}
      {state.versions.length > 0 && (
        <div class="history-layout">
          <div class="history-list">
            <ol class="versions" aria-label={m.keptVersions}>
              {state.versions.map((version) => (
                <VersionItem key={version.id} view={view} version={version} selected={version.id === state.selected} />
              ))}
            </ol>
            {state.more && (
              <button type="button" class="quiet" disabled={state.loadingMore} onClick={() => void view.loadMore()}>
                {state.loadingMore ? m.loading : m.loadMore}
              </button>
            )}
            {state.status === 'ready' && state.failure && (
              <p class="field-error" role="alert">
                {state.failure}
              </p>
            )}
          </div>
          {state.diff ? <DiffView view={view} state={state} diff={state.diff} version={selected} /> : <p class="diff-empty">{m.pickVersion}</p>}
        </div>
      )}
    </section>
  )
}
