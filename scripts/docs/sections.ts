/**
 * What the blocks of one section give each other: a deployment mounts the
 * TypeScript files named in its section, settings documents seed its home or
 * say what it holds after the start, and command and script blocks run
 * against the section's deployment (the last one before them), or the
 * repository's default deployment when the section has none.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'
import { ROOT } from '../pack/workspace.ts'
import type { DocBlock } from './blocks.ts'

/** The example plugins of the default deployment, by the namespace each registers. */
const EXAMPLES: Record<string, string> = { 'web-search': 'dsh-example-web-search', assistant: 'dsh-example-assistant' }

/** The repository's default deployment, `cordis.yml`. */
export function defaultDeployment(): string {
  return readFileSync(join(ROOT, 'cordis.yml'), 'utf8')
}

/** The file a TypeScript block is written to: the name its first line gives, else one made from its line. */
export function blockFile(block: DocBlock): string {
  return block.name ?? `block-${block.line}.ts`
}

/** The namespaces a block registers (`register('web-search', …)`). */
export function registeredNamespaces(block: DocBlock): string[] {
  return [...block.body.matchAll(/\.register\(\s*'([a-z0-9-]+)'/g)].map((match) => match[1]!)
}

/** Whether a plugin block says it waits for setup (a comment that says so). */
export function waitsForSetup(block: DocBlock): boolean {
  return /\/\/.*\bwaits for setup\b/i.test(block.body)
}

/** The blocks of `block`'s section in its file. */
export function sectionOf(blocks: readonly DocBlock[], block: DocBlock): DocBlock[] {
  return blocks.filter((other) => other.file === block.file && other.section === block.section)
}

/** The deployment `block` runs against: the last deployment block before it in its section. */
export function deploymentFor(blocks: readonly DocBlock[], block: DocBlock): DocBlock | undefined {
  return sectionOf(blocks, block)
    .filter((other) => other.kind === 'deployment' && other.line < block.line)
    .pop()
}

/** The deployments of `block`'s section that mount its file (`./name.ts`). */
export function mountedBy(blocks: readonly DocBlock[], block: DocBlock): DocBlock[] {
  const file = `./${blockFile(block)}`
  return sectionOf(blocks, block).filter((other) => other.kind === 'deployment' && new RegExp(`^\\s*-?\\s*(?:name:\\s*)?${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:?`, 'm').test(other.body))
}

/** The settings documents of a section: the one it starts with, and the one it holds after the start. */
export function sectionDocuments(section: readonly DocBlock[]): { initial?: DocBlock; after?: DocBlock } {
  const documents = section.filter((block) => block.kind === 'document')
  const isAfter = (block: DocBlock) => /\bafter\b/i.test(block.body.split('\n')[0]!)
  return { initial: documents.find((block) => !isAfter(block)), after: documents.find(isAfter) }
}

/** Remove the example entries registering one of `namespaces` from a deployment map, at any depth. */
function withoutExamples(plugins: Record<string, unknown>, names: Set<string>): Record<string, unknown> {
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(plugins)) {
    if (names.has(key.replace(/^~/, '').replace(/:[a-z0-9-]+$/, ''))) continue
    kept[key] = key.startsWith('scope:') && value && typeof value === 'object' ? withoutExamples(value as Record<string, unknown>, names) : value
  }
  return kept
}

/**
 * The deployment a plugin block with none of its own is plugged into: the
 * default one, less an example plugin registering a namespace the block
 * registers itself (two schemas under one name are refused), plus the block.
 */
export function pluginDeployment(block: DocBlock): string {
  const data = parse(defaultDeployment()) as { plugins: Record<string, unknown> }
  const names = new Set(registeredNamespaces(block).flatMap((ns) => (EXAMPLES[ns] ? [EXAMPLES[ns]] : [])))
  return stringify({ plugins: { ...withoutExamples(data.plugins, names), [`./${blockFile(block)}`]: {} } })
}
