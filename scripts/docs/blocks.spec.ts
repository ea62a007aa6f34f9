import { describe, expect, it } from 'vitest'
import { docBlocks, typescriptKind } from './blocks.ts'
import { installCommands } from './install.ts'
import { deploymentFor, mountedBy, pluginDeployment, registeredNamespaces, sectionDocuments, waitsForSetup } from './sections.ts'

const DOC = `# Title

\`\`\`sh
# sketch: not for a test
rm -rf /
\`\`\`

## Plugins

\`\`\`yaml
# settings.yaml, before
demo:
  a: 1
\`\`\`

\`\`\`ts
// demo.ts
export const inject = ['settings']
export function apply(ctx) {
  // waits for setup until a token is given
  ctx.settings.register('demo', schema)
}
\`\`\`

\`\`\`yaml
# cordis.yml
plugins:
  ./demo.ts: {}
\`\`\`

\`\`\`yaml
# settings.yaml after the start
demo:
  a: 2
\`\`\`

\`\`\`console
$ npm install dsh cordis@4.0.0-rc.10
\`\`\`

\`\`\`json
{ "not": "named" }
\`\`\`

\`\`\`yaml
other: yaml
\`\`\`

<!-- cordis-catalog:start -->
\`\`\`ts
/** generated */
\`\`\`
<!-- cordis-catalog:end -->
`

describe('docBlocks', () => {
  const blocks = docBlocks(DOC, 'doc.md')

  it('classifies each block by its language and first line, with its section and name', () => {
    expect(blocks.map(({ line, kind, section, name }) => ({ line, kind, section, ...(name ? { name } : {}) }))).toEqual([
      { line: 3, kind: 'sketch', section: '' },
      { line: 10, kind: 'document', section: 'Plugins' },
      { line: 16, kind: 'plugin', section: 'Plugins', name: 'demo.ts' },
      { line: 25, kind: 'deployment', section: 'Plugins', name: 'cordis.yml' },
      { line: 31, kind: 'document', section: 'Plugins' },
      { line: 37, kind: 'command', section: 'Plugins' },
      { line: 41, kind: 'text', section: 'Plugins' },
      { line: 45, kind: 'unknown', section: 'Plugins' },
      { line: 50, kind: 'catalog', section: 'Plugins' },
    ])
    expect(blocks[0]!.reason).toBe('not for a test')
  })

  it('ties a section’s blocks together: the deployment mounting a file, the documents before and after, what a plugin registers', () => {
    const [, before, plugin, deployment, after, install] = blocks
    expect(mountedBy(blocks, plugin!)).toEqual([deployment])
    expect(deploymentFor(blocks, install!)).toBe(deployment)
    expect(deploymentFor(blocks, plugin!)).toBeUndefined()
    expect(sectionDocuments(blocks.filter((block) => block.section === 'Plugins'))).toEqual({ initial: before, after })
    expect(registeredNamespaces(plugin!)).toEqual(['demo'])
    expect(waitsForSetup(plugin!)).toBe(true)
    expect(installCommands(install!)).toEqual([{ dev: false, specs: ['dsh', 'cordis@4.0.0-rc.10'], packages: ['dsh', 'cordis'] }])
  })

  it('plugs a plugin block into the default deployment without the example registering its namespace', () => {
    const plugin = docBlocks("```ts\nexport function apply(ctx) { ctx.settings.register('web-search', s) }\n```", 'x.md')[0]!
    const deployment = pluginDeployment(plugin)
    expect(deployment).not.toContain('dsh-example-web-search')
    expect(deployment).toContain('dsh-example-assistant')
    expect(deployment).toContain('./block-1.ts: {}')
  })
})

describe('typescriptKind', () => {
  it('tells providers, plugins, scripts and declarations apart', () => {
    expect(typescriptKind('export default class P extends SettingsProvider {}')).toBe('provider')
    expect(typescriptKind('export function apply() {}')).toBe('plugin')
    expect(typescriptKind('export const apply = () => {}')).toBe('plugin')
    expect(typescriptKind("import { x } from 'y'\nawait x()")).toBe('script')
    expect(typescriptKind("import type { A } from 'a'\ndeclare module 'b' { interface C { a: A } }")).toBe('declaration')
  })
})
