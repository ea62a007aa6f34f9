/**
 * `dsh settings get | set | unset | reset | history | diff | restore`: read or
 * change one setting of a deployment from a terminal or a CI job, through a
 * running host when one answers, else through the deployment's provider.
 */
import { resolve } from 'node:path'
import { RemoteError } from 'dsh-remote/client'
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import { parseCommand, refuse, type OptionSpec } from '../args.ts'
import { UsageError } from '../usage-error.ts'
import { EXIT, type CliIo } from '../io.ts'
import type { SettingsAccess } from './access.ts'
import { AddressError, parseAddress } from './address.ts'
import { connect, UnavailableError } from './connect.ts'
import { diffLines, historyLines, sectionName, SECRET_NOT_SET, SECRET_SET } from './format.ts'
import { ValueError } from './value-error.ts'

/** The help line of `--revision`, which every write command takes. */
const REVISION = '  --revision <n>           refuse the write if the section changed since revision n'

const COMMON = `  -d, --deployment <file>  the deployment file (default: cordis.yml)
  --json                   print what was read or done as JSON, for scripts
  -h, --help               print this help`

/** Each value command: its usage, its options, how many positionals it takes, and what it does. */
interface ValueCommand {
  usage: string
  options: OptionSpec
  positionals: [min: number, max: number]
  reveal?: (values: Values) => boolean
  run(access: SettingsAccess, args: string[], values: Values, io: CliIo): Promise<number>
}

type Values = { deployment?: string; scope?: string; json?: boolean; 'show-secrets'?: boolean; revision?: string; limit?: string; force?: boolean }

const DEPLOYMENT_OPTIONS: OptionSpec = { deployment: { type: 'string', short: 'd' }, json: { type: 'boolean' } }
const SCOPED_OPTIONS: OptionSpec = { ...DEPLOYMENT_OPTIONS, scope: { type: 'string', short: 's' } }
const WRITE_OPTIONS: OptionSpec = { ...SCOPED_OPTIONS, revision: { type: 'string' } }

/** `--revision <n>`: the revision the caller read, so the write is refused if the section changed since. */
function revisionOf(values: Values): number | undefined {
  if (values.revision === undefined) return undefined
  const revision = Number(values.revision)
  if (!Number.isSafeInteger(revision) || revision < 0) throw new AddressError('--revision must be a non-negative integer')
  return revision
}

/** What a write answered, as one line (or JSON): the section, its revision now, and which way it went. */
function written(io: CliIo, values: Values, access: SettingsAccess, what: string, view: SettingsNamespaceView): number {
  if (values.json) io.out(JSON.stringify({ ns: view.ns, ...(view.scope === undefined ? {} : { scope: view.scope }), revision: view.revision, via: access.via, where: access.where }))
  else io.out(`${what} (revision ${view.revision}, via ${access.via === 'host' ? `the running host at ${access.where}` : `the provider, ${access.where}`})`)
  if (view.problem) io.err(`note: ${sectionName(view.ns, view.scope)} is not in effect: ${view.problem.message}`)
  return EXIT.OK
}

const COMMANDS: Record<string, ValueCommand> = {
  get: {
    usage: `usage: dsh settings get <namespace>[.<key>…] [--scope <id>] [--show-secrets] [--json]

Print a setting as the plugins read it (defaults, deployment base and stored
sections merged). A secret prints as ${SECRET_SET} or ${SECRET_NOT_SET}; with --json as
{ "secret": true, "set": true | false }, which no string value reads as.
--show-secrets prints secrets' values instead, read through the deployment's
provider in this process. A namespace waiting for setup that holds no value
there exits 1 naming what it lacks; --json prints valid JSON or nothing.

  -s, --scope <id>         the value a named scope's instance reads (preset/coder)
  --show-secrets           print secrets' values
${COMMON}`,
    options: { ...SCOPED_OPTIONS, 'show-secrets': { type: 'boolean' } },
    positionals: [1, 1],
    reveal: (values) => values['show-secrets'] === true,
    run: async (access, [address], values, io) => (await import('./get.ts')).runGet(access, { address: address!, scope: values.scope, json: values.json === true, reveal: values['show-secrets'] === true }, io),
  },
  set: {
    usage: `usage: dsh settings set <namespace>.<key>[.<key>…] [<value>] [--json] [--force] [--scope <id>] [--revision <n>]

Store one value in the deployment's settings document (the section of the
global settings, or of a named scope), typed by the plugin's schema at that
path and judged by it before anything is written:
  a string field takes the text exactly as given (nothing is parsed or cut);
  a number field a decimal number; a boolean true or false; a field of fixed
  choices the text of one; an object, list or dict only as JSON (--json).
A value that starts with "-" goes after "--": set ns.key -- -5.

Leave the value out to read it from standard input (all of it, one trailing
newline dropped) or, in a terminal, from a prompt that does not echo. A
secret is taken only this way, never as an argument:
  printf '%s' "$KEY" | dsh settings set web-search.apiKey
A path the schema does not declare is refused with the nearest declared name.

  --json                   the value is JSON (any field; the answer is JSON too)
  --force                  store at a path the schema does not declare, unchecked
  -s, --scope <id>         write the named scope's section (preset/coder)
${REVISION}
  -d, --deployment <file>  the deployment file (default: cordis.yml)
  -h, --help               print this help`,
    options: { ...WRITE_OPTIONS, force: { type: 'boolean' } },
    positionals: [1, 2],
    async run(access, [address, text], values, io) {
      const revision = revisionOf(values)
      const { planSet } = await import('./set.ts')
      const write = await planSet(access, { address: address!, text, scope: values.scope, json: values.json === true, force: values.force === true }, io)
      const view = await access.mutate(write.ns, [{ op: 'set', path: write.path, value: write.value }], revision, values.scope)
      for (const note of write.notes) io.err(note)
      return written(io, values, access, `set ${address}`, view)
    },
  },
  unset: {
    usage: `usage: dsh settings unset <namespace>.<key>[.<key>…] [--scope <id>] [--revision <n>] [--json]

Remove one stored value, so the lower layers (the deployment's base, the
schema's default) apply again. Nothing else in the section is touched.

  -s, --scope <id>         write the named scope's section (preset/coder)
${REVISION}
${COMMON}`,
    options: WRITE_OPTIONS,
    positionals: [1, 1],
    async run(access, [address], values, io) {
      const { ns, path } = parseAddress(address!, { pathRequired: true })
      const view = await access.mutate(ns, [{ op: 'unset', path }], revisionOf(values), values.scope)
      return written(io, values, access, `unset ${address}`, view)
    },
  },
  reset: {
    usage: `usage: dsh settings reset <namespace> [--scope <id>] [--revision <n>] [--json]

Empty a namespace's stored section: every value falls back to the deployment's
base and the schema's defaults. The replaced section is kept as a version.

  -s, --scope <id>         reset the named scope's section (preset/coder)
${REVISION}
${COMMON}`,
    options: WRITE_OPTIONS,
    positionals: [1, 1],
    async run(access, [address], values, io) {
      const { ns, path } = parseAddress(address!, { pathRequired: false })
      if (path.length) throw new AddressError(`reset takes a namespace, not a key inside one (use unset for ${address})`)
      const view = await access.replace(ns, {}, revisionOf(values), values.scope)
      return written(io, values, access, `reset ${sectionName(ns, values.scope)}`, view)
    },
  },
  history: {
    usage: `usage: dsh settings history [--limit <n>] [--json]

List the kept versions of the settings document, newest first: id, when it
was written (the time the settings page shows), who made it, and the
sections it differs in.

  --limit <n>              list at most n versions (default: all kept)
${COMMON}`,
    options: { ...DEPLOYMENT_OPTIONS, limit: { type: 'string' } },
    positionals: [0, 0],
    async run(access, _args, values, io) {
      const limit = values.limit === undefined ? undefined : Number(values.limit)
      if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) throw new AddressError('--limit must be a positive integer')
      const history = await access.history(limit === undefined ? {} : { limit })
      for (const line of values.json ? [JSON.stringify(history)] : historyLines(history)) io.out(line)
      return EXIT.OK
    },
  },
  diff: {
    usage: `usage: dsh settings diff <version> [--json]

Show what changed from a kept version (see dsh settings history) to the
current settings, field by field; secrets and keys no plugin declares show
only that they changed.
${COMMON}`,
    options: DEPLOYMENT_OPTIONS,
    positionals: [1, 1],
    async run(access, [version], values, io) {
      const diff = await access.compare(version!)
      for (const line of values.json ? [JSON.stringify(diff)] : diffLines(diff)) io.out(line)
      return EXIT.OK
    },
  },
  restore: {
    usage: `usage: dsh settings restore <version> [<namespace>] [--scope <id>] [--json]

Write a kept version back: every section that differs, or only one
namespace's (with --scope, its section in that scope). Each is a normal write:
judged by the plugin's schema, with the replaced text kept as a new version.

  -s, --scope <id>         with a namespace: its section in the named scope
${COMMON}`,
    options: SCOPED_OPTIONS,
    positionals: [1, 2],
    async run(access, [version, ns], values, io) {
      if (values.scope !== undefined && ns === undefined) throw new AddressError('--scope needs a namespace to restore')
      const restored = await access.restore(version!, ns === undefined ? {} : { ns, ...(values.scope === undefined ? {} : { scope: values.scope }) })
      if (values.json) io.out(JSON.stringify(restored))
      else {
        io.out(restored.restored.length ? `restored ${restored.restored.map((section) => sectionName(section.ns, section.scope)).join(', ')}` : 'nothing to restore: the version holds what is stored now')
        for (const section of restored.skipped) io.err(`note: ${sectionName(section.ns, section.scope)} differs but no plugin registers it now, so it was not restored`)
      }
      return EXIT.OK
    },
  },
}

export const SETTINGS_USAGE = `usage: dsh settings <command> [arguments]

  check [cordis.yml] [settings.yaml]   check a settings document against the deployment's plugins
  get <namespace>[.<key>…]             print a setting (secrets as ${SECRET_SET})
  set <namespace>.<key>… [<value>]     store one value, typed by the schema (no value:
                                       read from stdin or a prompt; secrets only so)
  unset <namespace>.<key>…             remove one stored value
  reset <namespace>                    empty a namespace's stored section
  history                              list the kept versions
  diff <version>                       what changed since a kept version
  restore <version> [<namespace>]      write a kept version back
  secrets move                         move the document's inline secrets into its
                                       secret store (prints how many, never which)

get, set, unset, reset, history, diff and restore go through a running host
of the deployment when one answers (its plugins see the change at once),
else through the deployment's settings provider in this process: the same
lock, schema checks and kept versions either way. Run a command with --help
for its options.

Exit code: 0 done, 1 refused by the settings (a value the schema refuses or a
path it does not declare, a changed revision, an unknown namespace or version,
a read-only provider; for check: problems found), 2 usage error (a secret
given as an argument, JSON that does not parse, no value to read), 3 the deployment's settings could not
be reached (no provider, or it failed to start; a host that stopped answering
mid-command).`

/** The value commands' names. */
export const VALUE_COMMANDS: readonly string[] = Object.keys(COMMANDS)

/** Run `dsh settings <name> <argv…>` for a value command, and answer its exit code. */
export async function runValueCommand(name: string, argv: readonly string[], io: CliIo): Promise<number> {
  const command = COMMANDS[name]!
  const label = `dsh settings ${name}`
  const parsed = parseCommand<Values>(label, argv, io, command.usage, command.options, { minPositionals: command.positionals[0], maxPositionals: command.positionals[1] })
  if ('exit' in parsed) return parsed.exit
  let access: SettingsAccess | undefined
  try {
    access = await connect(resolve(io.cwd, parsed.values.deployment ?? 'cordis.yml'), io, { reveal: command.reveal?.(parsed.values) ?? false })
    return await command.run(access, parsed.positionals, parsed.values, io)
  } catch (error) {
    if (error instanceof AddressError) return refuse(label, io, command.usage, error.message).exit
    if (error instanceof ValueError) {
      // No value and no standard input at all: the command line lacks its value argument.
      if (error.code === 'no-input' && !io.stdin) return refuse(label, io, command.usage, error.message).exit
      io.err(`${label}: ${error.message}`)
      return error.exit
    }
    if (error instanceof UsageError) {
      io.err(`${label}: ${error.message}`)
      return EXIT.USAGE
    }
    if (error instanceof UnavailableError) {
      io.err(`${label}: ${error.message}`)
      return EXIT.UNAVAILABLE
    }
    if (error instanceof RemoteError) {
      // The controller's codes: refusals of what was asked, or the settings being out of reach.
      io.err(`${label}: ${error.message} [${error.code}]`)
      return error.code.startsWith('settings/') ? EXIT.REFUSED : EXIT.UNAVAILABLE
    }
    throw error
  } finally {
    await access?.close()
  }
}
