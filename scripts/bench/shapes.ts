/**
 * The shapes a user writes a large settings section in, each as a YAML
 * document of about a given size and the schema its plugin would register:
 * a block list of small maps, flow lists, a map of 10,000 keys, deep nesting.
 * The boot bench (boot-shapes.ts) times the file provider's boot of each
 * against js-yaml's `load` of the same text.
 */
import Schema from 'schemastery'

/** The shapes, in the order the bench prints them. */
export const SHAPES = ['block-list', 'flow-lists', 'map-10k', 'deep'] as const
export type Shape = (typeof SHAPES)[number]

/** How each shape reads in a table, with a line of the YAML it is made of. */
export const SHAPE_TITLES: Record<Shape, string> = {
  'block-list': 'block list of small maps (- id: 1 / name: …)',
  'flow-lists': 'flow lists (g00001: [alpha, beta, …])',
  'map-10k': 'a map of 10,000 keys (key-00001: "…")',
  deep: 'deep nesting (8 levels of maps, 4 keys each)',
}

/** The namespace every shape's document holds its data under. */
export const SHAPE_NAMESPACE = 'data'

/** Grow `lines` with `next(index)` until their text reaches `bytes`. */
function fill(lines: string[], bytes: number, next: (index: number) => string[]): string[] {
  let size = lines.reduce((sum, line) => sum + line.length + 1, 0)
  for (let index = 1; size < bytes; index++) {
    const more = next(index)
    lines.push(...more)
    size += more.reduce((sum, line) => sum + line.length + 1, 0)
  }
  return lines
}

const DEPTH = 8
const FAN_OUT = 4

/** The lines of a nested map below `path`, `depth` levels down to leaves of two fields, until `budget` bytes are used. */
function tree(lines: string[], indent: string, path: string, depth: number, budget: { left: number }): void {
  // The first branch always goes down to a leaf, so no key is left without its subtree when the budget runs out.
  for (let branch = 0; branch < FAN_OUT && (branch === 0 || budget.left > 0); branch++) {
    const here = `${path}${branch}`
    const push = (line: string) => {
      lines.push(line)
      budget.left -= line.length + 1
    }
    push(`${indent}n${branch}:`)
    if (depth === 1) {
      push(`${indent}  name: leaf ${here}`)
      push(`${indent}  size: ${Number.parseInt(here, FAN_OUT) % 1000}`)
    } else tree(lines, `${indent}  `, here, depth - 1, budget)
  }
}

/** A document of about `bytes` in `shape`; `sample` goes into a leading comment, so no two samples share their bytes. */
export function shapeDocument(shape: Shape, bytes: number, sample = 0): string {
  const head = [`# boot sample ${sample}: ${SHAPE_TITLES[shape]}`, `${SHAPE_NAMESPACE}:`]
  const pad = (index: number) => String(index).padStart(5, '0')
  let lines: string[]
  if (shape === 'block-list') {
    lines = fill([...head, '  items:'], bytes, (index) => [`    - id: ${index}`, `      name: item ${index} of the list`])
  } else if (shape === 'flow-lists') {
    lines = fill([...head, '  groups:'], bytes, (index) => [`    g${pad(index)}: [alpha-${index}, beta, gamma-${index % 97}, delta, "epsilon, ${index}"]`])
  } else if (shape === 'map-10k') {
    // 10,000 keys whatever `bytes` is: the value length makes up the size.
    const value = 'x'.repeat(Math.max(1, Math.round(bytes / 10_000) - 18))
    lines = [...head, '  keys:', ...Array.from({ length: 10_000 }, (_, index) => `    key-${pad(index + 1)}: "${value}"`)]
  } else {
    lines = [...head, '  tree:']
    // Repeat whole trees until the size is reached, so every part of the document is 8 levels deep.
    const budget = { left: bytes - lines.join('\n').length }
    for (let root = 0; budget.left > 0; root++) {
      lines.push(`    t${root}:`)
      tree(lines, '      ', '', DEPTH, budget)
    }
  }
  return lines.join('\n') + '\n'
}

/** The schema of `shape`'s namespace, typed as a plugin author would write it. */
export function shapeSchema(shape: Shape): Schema {
  if (shape === 'block-list') return Schema.object({ items: Schema.array(Schema.object({ id: Schema.natural(), name: Schema.string() })).default([]) })
  if (shape === 'flow-lists') return Schema.object({ groups: Schema.dict(Schema.array(Schema.string())).default({}) })
  if (shape === 'map-10k') return Schema.object({ keys: Schema.dict(Schema.string()).default({}) })
  let level: Schema = Schema.object({ name: Schema.string(), size: Schema.natural() })
  for (let depth = 0; depth < DEPTH; depth++) level = Schema.dict(level)
  return Schema.object({ tree: Schema.dict(level).default({}) })
}
