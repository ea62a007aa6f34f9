import type { Context } from 'cordis'
import type { SettingsSchema } from 'dsh-settings'
import { ownerToGive, type LockOwner } from '../store/owner.ts'
import { EditorSchemaWriter, hasSchemaModeline, schemaModeline } from './editor-schema.ts'
import type { DocumentFormat } from './settings-codec.ts'

/**
 * The text a YAML document starts with so editors find its schema
 * (`# yaml-language-server: $schema=…`), when a write should add it: always to
 * a new document, to an existing one only with `schemaModeline`.
 */
export function modelineFor(file: string, format: DocumentFormat, options: { editorSchema: boolean; schemaModeline: boolean }, text: string, created: boolean): string | undefined {
  if (format !== 'yaml' || !options.editorSchema) return undefined
  // A user's existing bytes are changed only when asked.
  if (!created && !options.schemaModeline) return undefined
  return hasSchemaModeline(text) ? undefined : schemaModeline(file)
}

/**
 * Start the editor schema writer for `file` as an effect of `ctx`'s fiber:
 * its disposal writes what is pending and stops the writer.
 * @returns a getter of the running writer (to schedule a rewrite when the kinds change).
 */
export function startEditorSchema(
  ctx: Context,
  file: string,
  kinds: () => readonly { ns: string; schema: SettingsSchema<unknown> }[],
  options: { owner: LockOwner; stopping(): boolean; leaveGraceMs: number; locale: string },
): () => EditorSchemaWriter | undefined {
  let running: EditorSchemaWriter | undefined
  const logger = ctx.logger('settings')
  ctx.effect(() => {
    const writer = new EditorSchemaWriter(file, kinds, (error) => logger.warn(`settings: writing the editor schema beside ${file} failed:`, error), { ...options, give: () => ownerToGive(file) })
    running = writer
    return () => writer.close()
  }, 'settings-file: editor schema writer')
  return () => running
}
