/**
 * Run with dsh-settings unresolvable (see without-seam.mjs): imports the face
 * named in argv[2], and for the codec face parses, renders and refuses once
 * each, printing what it saw as one JSON line.
 */
export {}

const face = process.argv[2]!
const codec = (await import(face)) as typeof import('../../src/codec/index.ts')
if (face !== 'dsh-settings-file/codec') {
  process.stdout.write(JSON.stringify({ loaded: Object.keys(codec).length }) + '\n')
  process.exit(0)
}
const text = '# kept\nweb-search:\n  engine: bing # kept too\n'
const parsed = codec.parseSettings(text, 'yaml', 'alone.yaml')
const rendered = codec.renderDocument('yaml', text, parsed, { 'web-search': { engine: 'ddg' } }, 'alone.yaml')
const refusals: Record<string, unknown> = {}
for (const [what, run] of Object.entries({
  syntax: () => codec.parseSettings('a: [1\n', 'yaml', 'alone.yaml'),
  root: () => codec.parseSettings('- a\n', 'yaml', 'alone.yaml'),
  size: () => codec.parseSettings('a: 1234567890\n', 'yaml', 'alone.yaml', 4),
  hold: () => codec.renderDocument('yaml', '', codec.parseSettings('', 'yaml', 'alone.yaml'), { '\ufeffweb': { a: 1 } }, 'alone.yaml'),
})) {
  try {
    run()
  } catch (error) {
    refusals[what] = { name: (error as Error).name, code: (error as { code?: string }).code, isError: error instanceof Error }
  }
}
process.stdout.write(JSON.stringify({ data: parsed.data, text: rendered.text, refusals }) + '\n')
