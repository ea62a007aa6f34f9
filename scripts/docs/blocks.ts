/**
 * What each fenced block of the docs is, so the docs test knows how to run it.
 * A block says what it is by its language and, where that is not enough, by
 * its first line, which a reader sees too:
 * - `// sketch: why` or `# sketch: why`: only a sketch, skipped and listed;
 * - `// name.ts` names a TypeScript block's file, so a deployment of the same
 *   section can mount it (`./name.ts`); `// name.json` makes a JSON block a
 *   file the section's commands find (a `tsconfig.json`);
 * - `# cordis.yml…` makes a YAML block a deployment, and a first line naming a
 *   `settings.yaml` makes it a settings document (one whose first line says
 *   `after` is what the document holds once the section's deployment started).
 * TypeScript blocks are told apart by what they export: a provider (a class
 * extending `SettingsProvider`), a plugin (`apply`), declarations only, or a
 * script (anything else). Blocks between the `cordis-catalog` markers are the
 * generated API catalog, which `pnpm verify-cordis-catalog` checks.
 */
import ts from 'typescript'
import { extractFences, type Fence } from './fences.ts'

/** How the docs test treats a block. */
export type BlockKind =
  | 'sketch'
  | 'catalog'
  | 'plugin'
  | 'provider'
  | 'script'
  | 'declaration'
  | 'deployment'
  | 'document'
  | 'command'
  | 'file'
  | 'text'
  | 'unknown'

/** A fenced block with what the docs test makes of it. */
export interface DocBlock extends Fence {
  kind: BlockKind
  /** The `## ` heading the block is under (`''` before the first), which groups a deployment with its blocks. */
  section: string
  /** The file name the block's first line gives (`plugin.ts`, `cordis.yml`), if any. */
  name?: string
  /** For a sketch, what its first line says after `sketch:`. */
  reason?: string
}

const TYPESCRIPT = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'mjs'])
const SHELL = new Set(['sh', 'bash', 'shell', 'console'])
const YAML = new Set(['yaml', 'yml'])
const SKETCH = /^\s*(?:\/\/|#)\s*sketch:\s*(.*)$/i
const FILE_NAME = /^\s*\/\/\s*([\w.-]+\.(?:[cm]?ts|tsx|[cm]?js|json))\s*$/
const JSON_LANGS = new Set(['json', 'jsonc'])

/** Whether a statement only declares types (nothing of it runs). */
function typeOnly(statement: ts.Statement): boolean {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return true
  if (ts.isImportDeclaration(statement)) return statement.importClause?.isTypeOnly === true
  if (ts.isModuleDeclaration(statement)) return (ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Ambient) !== 0
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly
  return false
}

/** Whether a statement exports a binding named `name`. */
function exportsName(statement: ts.Statement, name: string): boolean {
  const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
  if (!exported) return false
  if (ts.isFunctionDeclaration(statement)) return statement.name?.text === name
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.some((declaration) => ts.isIdentifier(declaration.name) && declaration.name.text === name)
  return false
}

/** The kind of a TypeScript block, from what its statements declare. */
export function typescriptKind(body: string): BlockKind {
  const source = ts.createSourceFile('block.ts', body, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS)
  const statements = [...source.statements]
  if (statements.length > 0 && statements.every(typeOnly)) return 'declaration'
  if (/\bextends\s+SettingsProvider\b/.test(body)) return 'provider'
  if (statements.some((statement) => exportsName(statement, 'apply'))) return 'plugin'
  return 'script'
}

/** The kind of one fence, given its first line. */
function kindOf(fence: Fence, firstLine: string): BlockKind {
  if (TYPESCRIPT.has(fence.lang)) return typescriptKind(fence.body)
  if (SHELL.has(fence.lang)) return 'command'
  if (JSON_LANGS.has(fence.lang) && FILE_NAME.test(firstLine)) return 'file'
  if (YAML.has(fence.lang)) {
    if (/^#\s*cordis\.yml\b/.test(firstLine)) return 'deployment'
    if (/^#.*\bsettings\.yaml\b/.test(firstLine)) return 'document'
    return 'unknown'
  }
  return 'text'
}

/** Every fenced block of a Markdown text, classified, with its section. */
export function docBlocks(text: string, file: string): DocBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const catalogStart = lines.findIndex((line) => line.trim() === '<!-- cordis-catalog:start -->')
  const catalogEnd = lines.findIndex((line) => line.trim() === '<!-- cordis-catalog:end -->')
  return extractFences(text, file).map((fence) => {
    let section = ''
    for (let index = fence.line - 2; index >= 0; index--) {
      const heading = /^## (.+)$/.exec(lines[index]!)
      if (heading) {
        section = heading[1]!.trim()
        break
      }
    }
    const firstLine = fence.body.split('\n')[0] ?? ''
    const inCatalog = catalogStart >= 0 && fence.line - 1 > catalogStart && fence.line - 1 < catalogEnd
    const sketch = SKETCH.exec(firstLine)
    const block: DocBlock = { ...fence, section, kind: inCatalog ? 'catalog' : sketch ? 'sketch' : kindOf(fence, firstLine) }
    if (sketch) block.reason = sketch[1]!.trim()
    const named = FILE_NAME.exec(firstLine) ?? /^#\s*(cordis\.yml)\b/.exec(firstLine)
    if (named) block.name = named[1]
    return block
  })
}

/** Where a block is, for test names and messages: `file:line`. */
export function blockPlace(block: Fence): string {
  return `${block.file}:${block.line}`
}
