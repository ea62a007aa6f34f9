/**
 * `dsh settings secrets move`: move every secret written inline in the
 * deployment's settings document into its secret store now, the document
 * keeping a `!secret` reference in each one's place (and every kept version
 * rewritten the same way, by the file provider). It prints how many, never
 * which values.
 *
 * It always goes through the deployment's provider in this process, a
 * running host or not: the host's wire has no operation for it, and the
 * provider's lock orders the move against a running host's writes, which
 * then reloads the document and the store as it does after a hand edit.
 * Only the provider knows which values are secrets once a kind is
 * registered, so each kind the host recorded in its catalog is registered
 * from its schema (no plugin of the deployment runs).
 */
import { resolve } from 'node:path'
import { SettingsStoreError } from 'dsh-settings'
import { SecretStoreUnavailableError } from 'dsh-settings-secrets'
import { parseCommand, refuse } from '../args.ts'
import { shownPath } from '../check/cli.ts'
import { EXIT, type CliIo } from '../io.ts'
import { UsageError } from '../usage-error.ts'
import { catalogState, staleLine, type CatalogState } from '../values/catalog-state.ts'
import { planValues, type ValuePlan } from '../values/deployment-plan.ts'
import { olderSections } from '../values/provider-way.ts'
import { schemaOfKind } from '../values/revived.ts'
import { startSession, type Session } from '../values/session.ts'
import { fileDocumentPath } from '../values/stored-document.ts'
import { UnavailableError } from '../values/unavailable.ts'
import { secretsFilePath, secretsMode, storeLabel } from './store.ts'

/** The usage of `dsh settings secrets`, printed for `--help` and with a refused command line. */
export const SECRETS_USAGE = `usage: dsh settings secrets move [-d <cordis.yml>] [--json]

Move every secret written inline in the deployment's settings document into
its secret store (secrets: file, the default: secrets.yaml beside the
document; secrets: keyring: the operating system's keychain), leaving a
!secret reference in its place, and rewrite the kept versions under history/
the same way. Prints how many were moved, never which values.

It goes through the deployment's settings provider in this process, with
the same lock as a running host, which picks the change up as it does a
hand edit. Which values are secrets comes from the schemas the host recorded:
start the host once first.

  -d, --deployment <file>  the deployment file (default: cordis.yml)
  --json                   print { "moved": n, "store": "file" | "keyring", "where": … }
  -h, --help               print this help

Exit code: 0 moved (none, if there were none), 1 refused (no schema recorded,
secrets: inline, a provider that keeps no document), 2 usage error or an
unreadable deployment file, 3 the provider or the secret store could not be
reached.`

/** A refusal of the move: exit 1 with its reason. */
class MoveRefused extends Error {
  override readonly name = 'MoveRefused'
}

/** What the provider offers for the move (dsh-settings-file's `FileSettingsProvider#moveSecrets`). */
interface MovingProvider {
  moveSecrets(): Promise<{ moved: number }>
}

/**
 * A writable session of the provider with every recorded kind registered,
 * except those whose sections wait to be migrated (registered here, they
 * would be written back unmigrated): their secrets stay where they are, said
 * in a note.
 */
async function movingSession(plan: ValuePlan, state: CatalogState & { catalog: object }, conditions: readonly string[], io: CliIo): Promise<Session> {
  const session = await startSession(plan, conditions, { readOnly: false })
  try {
    for (const kind of state.kinds.values()) {
      if (olderSections(kind, session.document()).length) {
        io.err(`note: ${kind.ns} is stored at an older version than its plugin's settings: its secrets were not moved (start the host once to migrate it, then move again)`)
        continue
      }
      try {
        schemaOfKind(kind)
      } catch {
        io.err(`note: the recorded schema of ${kind.ns} does not read back: its secrets were not moved (start the host once to record it again)`)
        continue
      }
      await session.register(kind)
    }
    return session
  } catch (error) {
    await session.close()
    throw error
  }
}

/** Move the secrets of the deployment in `file`; answer what to print. */
async function move(file: string, io: CliIo): Promise<{ moved: number; store: 'file' | 'keyring'; where: string }> {
  const env = io.env ?? process.env
  const conditions = io.conditions ?? []
  const plan = await planValues(file, env, conditions)
  if (!plan.provider) throw new UnavailableError(`${plan.file} mounts no settings provider`)
  const document = fileDocumentPath(plan, env)
  if (document === undefined) throw new MoveRefused(`the deployment keeps its settings with ${plan.provider.specifier}, not in a document: there is no document to move secrets out of`)
  const mode = secretsMode(plan.provider.config)
  if (mode === 'inline') throw new MoveRefused(`the deployment keeps its secrets in the document (secrets: inline in ${plan.file}): set secrets: file or secrets: keyring there first`)
  const state = await catalogState(plan, env, conditions)
  if (!state.catalog) throw new MoveRefused(`no schema is recorded for this deployment, so nothing tells its secrets from its other values (${state.why}): start the host once (it records the schemas), then move again`)
  const stale = staleLine(state)
  if (stale) io.err(stale)
  const session = await movingSession(plan, state, conditions, io)
  try {
    const provider = session.provider as unknown as Partial<MovingProvider>
    if (typeof provider.moveSecrets !== 'function') throw new MoveRefused(`the installed ${plan.provider.specifier} cannot move secrets out of its document (it has no moveSecrets): upgrade it`)
    const { moved } = await provider.moveSecrets()
    return { moved, store: mode, where: mode === 'file' ? secretsFilePath(document) : storeLabel(mode, document) }
  } finally {
    await session.close()
  }
}

/** Run `dsh settings secrets <argv…>` and answer its exit code. */
export async function runSecrets(argv: readonly string[], io: CliIo): Promise<number> {
  const label = 'dsh settings secrets'
  const parsed = parseCommand<{ deployment?: string; json?: boolean }>(label, argv, io, SECRETS_USAGE, { deployment: { type: 'string', short: 'd' }, json: { type: 'boolean' } }, { minPositionals: 1, maxPositionals: 1 })
  if ('exit' in parsed) return parsed.exit
  if (parsed.positionals[0] !== 'move') return refuse(label, io, SECRETS_USAGE, `unknown command ${JSON.stringify(parsed.positionals[0])} (secrets takes move)`).exit
  try {
    const done = await move(resolve(io.cwd, parsed.values.deployment ?? 'cordis.yml'), io)
    const shown = done.store === 'file' ? shownPath(done.where, io.cwd) : done.where
    io.out(parsed.values.json ? JSON.stringify(done) : `moved ${done.moved} secret${done.moved === 1 ? '' : 's'} into ${shown}`)
    return EXIT.OK
  } catch (error) {
    const [exit, message] = failure(error)
    io.err(`${label} move: ${message}`)
    return exit
  }
}

/** The exit code and line of a failed move; the messages are ours or the provider's, which name no value. */
function failure(error: unknown): [number, string] {
  if (error instanceof MoveRefused) return [EXIT.REFUSED, error.message]
  if (error instanceof UsageError) return [EXIT.USAGE, error.message]
  if (error instanceof UnavailableError || error instanceof SecretStoreUnavailableError) return [EXIT.UNAVAILABLE, error.message]
  if (error instanceof SettingsStoreError) return [error.refusal === 'unavailable' ? EXIT.UNAVAILABLE : EXIT.REFUSED, `${error.message} [${error.code}]`]
  throw error
}
