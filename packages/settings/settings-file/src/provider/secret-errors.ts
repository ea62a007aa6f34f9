import { formatPath, SettingsStoreError, type SectionKey } from 'dsh-settings'
import { formatReference, type SecretReference } from 'dsh-settings-secrets'

function label(key: SectionKey): string {
  return key.scope === undefined ? `section ${key.ns}` : `section ${key.ns} of scope ${key.scope}`
}

/**
 * A write that would change a value the document takes from the host
 * (`!env NAME`, `!file PATH`): refused, naming the reference and the place,
 * never a value. Change the variable or the file, or replace the reference by hand.
 */
export class SettingsSecretReadOnlyError extends SettingsStoreError {
  override readonly name = 'SettingsSecretReadOnlyError'
  declare readonly code: 'SETTINGS_SECRET_READ_ONLY'
  readonly ns: string
  readonly scope?: string
  readonly path: string[]
  /** Where the value comes from: the kind and the variable's name or the file's path. */
  readonly reference: { kind: 'env' | 'file'; name: string }

  constructor(file: string, key: SectionKey, path: readonly string[], reference: SecretReference & { kind: 'env' | 'file' }) {
    const from = reference.kind === 'env' ? 'the environment variable' : 'the file'
    super(
      'SETTINGS_SECRET_READ_ONLY',
      `the value at ${formatPath(path)} of ${label(key)} comes from ${from} ${formatReference(reference)} and cannot be changed through the settings: ` +
        `change ${reference.kind === 'env' ? 'the variable' : 'the file'}, or replace the reference in ${file}`,
      file,
      { refusal: 'rejected' },
    )
    this.ns = key.ns
    if (key.scope !== undefined) this.scope = key.scope
    this.path = [...path]
    this.reference = { kind: reference.kind, name: reference.name }
  }
}

/** The warning for a section whose reference does not resolve: names the section and the reference's problem, never a value. */
export function unresolvedWarning(file: string, key: SectionKey, path: readonly string[], problem: string): string {
  return `settings: ${file}: the value at ${formatPath(path)} of ${label(key)} does not resolve: ${problem}; the section fails until it does`
}
