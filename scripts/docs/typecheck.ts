/**
 * Type-check files one program each, as each would be compiled in a project
 * of its own: a block that forgets `import type {} from 'dsh-settings'` must
 * fail even when another block imports it (a module augmentation reaches the
 * whole program). Parsed files are shared between the programs, so the
 * declarations of cordis and our packages are read once.
 */
import ts from 'typescript'

/** The options the docs' TypeScript section recommends, plus Node's types for the scripts. */
export const BLOCK_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: ['node'],
  moduleDetection: ts.ModuleDetectionKind.Force,
}

/** Each file's diagnostics as text (`file:line:col: message`), for the files that have any. */
export function typecheckEach(files: readonly string[], options: ts.CompilerOptions = BLOCK_OPTIONS): Map<string, string[]> {
  const host = ts.createCompilerHost(options)
  const cache = new Map<string, ts.SourceFile | undefined>()
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (fileName, language, onError) => {
    const key = `${fileName}\0${typeof language === 'object' ? language.languageVersion : language}`
    if (!cache.has(key)) cache.set(key, getSourceFile(fileName, language, onError))
    return cache.get(key)
  }
  const problems = new Map<string, string[]>()
  for (const file of files) {
    const program = ts.createProgram({ rootNames: [file], options, host })
    const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
      if (!diagnostic.file || diagnostic.start === undefined) return message
      const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
      return `${diagnostic.file.fileName}:${line + 1}:${character + 1}: ${message}`
    })
    if (diagnostics.length > 0) problems.set(file, diagnostics)
  }
  return problems
}
