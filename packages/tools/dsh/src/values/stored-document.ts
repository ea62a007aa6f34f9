/**
 * The stored settings document, for a command that only reads it with no
 * host running. The file provider's document is read and parsed here exactly
 * as the provider loads it (its reading and its parse, `dsh-settings-file/codec`),
 * without starting the provider; any other provider is started read-only
 * (see `session.ts`) and asked for what it loaded. Nothing is written either way.
 */
import { extname } from 'node:path'
import { DEFAULT_MAX_DOCUMENT_BYTES, readPlainData } from 'dsh-settings-file/fast-read'
import { resolveDocumentPath } from 'dsh-settings-home'
import type { SettingsDocument } from 'dsh-settings'
import { configField, type ValuePlan } from './deployment-plan.ts'
import { UnavailableError } from './unavailable.ts'

/** Where the file provider of `plan` keeps its document, or `undefined` for another provider. */
export function fileDocumentPath(plan: ValuePlan, env: NodeJS.ProcessEnv): string | undefined {
  if (plan.provider?.specifier !== 'dsh-settings-file') return undefined
  return resolveDocumentPath(configField(plan.provider, 'path'), configField(plan.provider, 'home'), env)
}

/**
 * The file provider's document, read and parsed as its load does (an absent
 * file holds no sections): the quick read when it settles it, else the
 * provider's own reading and parse, which refuse in words what cannot be read.
 */
async function readFileDocument(plan: ValuePlan, path: string): Promise<SettingsDocument> {
  const configured = (plan.provider!.config as { maxDocumentBytes?: unknown } | undefined)?.maxDocumentBytes
  const maxBytes = typeof configured === 'number' && configured >= 1 ? configured : DEFAULT_MAX_DOCUMENT_BYTES
  const extension = extname(path).toLowerCase()
  if (extension !== '.yaml' && extension !== '.yml' && extension !== '.json') throw new UnavailableError(`the settings provider dsh-settings-file did not start: settings document ${path}: extension "${extname(path)}" is not supported (use .yaml, .yml or .json)`)
  const quick = readPlainData(path, maxBytes)
  if (quick) return quick as SettingsDocument
  const [{ parseSettings }, { readDocumentText }, { REFERENCE_TAGS }] = await Promise.all([import('dsh-settings-file/codec'), import('dsh-settings-file/fast-read'), import('dsh-settings-secrets')])
  try {
    const text = await readDocumentText(path, { maxBytes })
    // References (`!secret name`) read as the codec's tagged scalars, which the command resolves as the provider does.
    return text === undefined ? {} : (parseSettings(text, extension === '.json' ? 'json' : 'yaml', path, maxBytes, { tags: Object.values(REFERENCE_TAGS) }).data as SettingsDocument)
  } catch (error) {
    // The provider's refusals name the file and a position, never the content.
    throw new UnavailableError(`the settings provider dsh-settings-file did not start: ${(error as Error)?.message ?? String(error)}`)
  }
}

/**
 * The deployment's stored document, read without writing anything.
 * @throws {UnavailableError} when the deployment mounts no provider, or its document cannot be read.
 */
export async function readStoredDocument(plan: ValuePlan, env: NodeJS.ProcessEnv, conditions: readonly string[]): Promise<SettingsDocument> {
  const path = fileDocumentPath(plan, env)
  if (path !== undefined) return readFileDocument(plan, path)
  const { startSession } = await import('./session.ts')
  const session = await startSession(plan, conditions, { readOnly: true })
  try {
    return structuredClone(session.document())
  } finally {
    await session.close()
  }
}
