import ts from 'typescript'

/** One documented member as the catalog shows it. */
export interface CatalogEntry {
  /** The member's name, e.g. `register` or `settings/updated`. */
  name: string
  /** The declaration without its body, as written in the source. */
  signature: string
  /** The JSDoc block as written, or `''`. */
  doc: string
}

/** The JSDoc block written right before a node, verbatim, with its indentation removed. */
function jsDocOf(source: ts.SourceFile, node: ts.Node): string {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? []
  const block = [...ranges].reverse().find((range) => source.text.startsWith('/**', range.pos))
  if (!block) return ''
  return source.text
    .slice(block.pos, block.end)
    .split('\n')
    .map((line) => line.replace(/^\s+\*/, ' *').replace(/^\s+\/\*\*/, '/**'))
    .join('\n')
}

/** A declaration's text up to its body, decorators and trailing punctuation left out, whitespace folded. */
function signatureOf(source: ts.SourceFile, node: ts.Node & { body?: ts.Node }): string {
  const end = node.body ? node.body.getStart(source) : node.getEnd()
  return source.text
    .slice(node.getStart(source), end)
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/,\s*\)/g, ')')
    .replace(/[;\s]+$/, '')
    .trim()
}

function isPublic(member: ts.ClassElement): boolean {
  const flags = ts.getCombinedModifierFlags(member as ts.Declaration)
  if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static)) return false
  return !!member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))
}

/** The public methods and accessors of class `name` in `source`, in declaration order. */
export function classMembers(source: ts.SourceFile, name: string): CatalogEntry[] | undefined {
  let found: ts.ClassDeclaration | undefined
  source.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name?.text === name) found = node
  })
  if (!found) return undefined
  const entries: CatalogEntry[] = []
  for (const member of found.members) {
    if (!(ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member)) || !isPublic(member)) continue
    entries.push({ name: (member.name as ts.Identifier).text, signature: signatureOf(source, member), doc: jsDocOf(source, member) })
  }
  return entries
}

/** The members of every `interface Events` in `source` whose name starts with `prefix`. */
export function eventMembers(source: ts.SourceFile, prefix: string): CatalogEntry[] {
  const entries: CatalogEntry[] = []
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'Events') {
      for (const member of node.members) {
        if (!ts.isMethodSignature(member) || !member.name || !ts.isStringLiteral(member.name)) continue
        if (!member.name.text.startsWith(prefix)) continue
        entries.push({ name: member.name.text, signature: signatureOf(source, member), doc: jsDocOf(source, member) })
      }
    }
    node.forEachChild(visit)
  }
  visit(source)
  return entries
}

/** Parse a TypeScript file for reading declarations. */
export function readSource(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
}
