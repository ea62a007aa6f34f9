import { parse as parseJsonc, type ParseError } from 'jsonc-parser'
import { parseDocument, type Document } from 'yaml'
import { SettingsDocumentError } from './errors.ts'
import type { DocumentFormat } from './format.ts'

/** Parse options: `<<` merge keys resolve, aliases are capped against expansion attacks. */
export const YAML_OPTIONS = { merge: true, maxAliasCount: 100 } as const

/** A parsed settings document. */
export interface ParsedDocument {
  /** The plain data: global sections by namespace, scoped ones under `scopes`. */
  data: Record<string, unknown>
  /** The YAML node tree, for byte-stable edits; absent for JSON. */
  yaml?: Document.Parsed
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 }
}

function rootCheck(data: unknown, file: string): Record<string, unknown> {
  if (data === null || data === undefined) return {}
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new SettingsDocumentError(`settings document ${file} must be a map of namespace sections`, file)
  }
  return data as Record<string, unknown>
}

/**
 * Parse document text. Errors give the position (`line L, column C`) and the
 * parser's error code, never the parser's message: those quote the source,
 * which may hold a secret.
 * @throws {SettingsDocumentError}
 */
export function parseSettings(text: string, format: DocumentFormat, file: string): ParsedDocument {
  if (format === 'json') {
    if (!text.trim()) return { data: {} }
    try {
      return { data: rootCheck(JSON.parse(text), file) }
    } catch (error) {
      if (error instanceof SettingsDocumentError) throw error
      const errors: ParseError[] = []
      parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
      const at = lineAndColumn(text, errors[0]?.offset ?? 0)
      throw new SettingsDocumentError(`settings document ${file} is not valid JSON at line ${at.line}, column ${at.column}`, file, at)
    }
  }
  const yaml = parseDocument(text, YAML_OPTIONS)
  if (yaml.errors.length) {
    const first = yaml.errors[0]!
    const position = first.linePos?.[0] ?? lineAndColumn(text, first.pos[0])
    const at = { line: position.line, column: 'col' in position ? position.col : position.column }
    const more = yaml.errors.length > 1 ? ` (and ${yaml.errors.length - 1} more)` : ''
    throw new SettingsDocumentError(`settings document ${file} is not valid YAML: ${first.code} at line ${at.line}, column ${at.column}${more}`, file, at)
  }
  let data: unknown
  try {
    data = yaml.toJS(YAML_OPTIONS)
  } catch (error) {
    throw new SettingsDocumentError(`settings document ${file} cannot be read: ${(error as Error).name}`, file)
  }
  if (isCyclic(data)) throw new SettingsDocumentError(`settings document ${file} holds an alias that contains itself`, file)
  return { data: rootCheck(data, file), yaml }
}

/** Whether a value reaches itself (`a: &x [*x]` builds such a value). Shared, acyclic references are fine. */
function isCyclic(value: unknown, ancestors = new Set<object>()): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (ancestors.has(value)) return true
  ancestors.add(value)
  const children = Array.isArray(value) ? value : Object.values(value)
  const found = children.some((child) => isCyclic(child, ancestors))
  ancestors.delete(value)
  return found
}
