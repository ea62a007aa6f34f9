import { isMap, isPair, isScalar, isSeq, type Node, type ScalarTag } from 'yaml'

/**
 * Scalars written with a local tag the caller asked to keep (`!name text`):
 * they read as a {@link TaggedScalar} rather than as a string, and render back
 * as the tag and the text. The codec knows nothing of what a tag means; the
 * caller names the tags (`parseSettings(…, { tags })`) and the parse carries
 * them on to every later read and render of that document (`ParsedDocument.tags`).
 */

import { TaggedScalar } from './tagged-scalar.ts'

export { isTaggedScalar, TaggedScalar } from './tagged-scalar.ts'

/** The tags kept by the codec call in progress (every codec call is synchronous, so one slot serves them all). */
let kept: readonly string[] = []

/** Run `work` with `tags` kept by every parse, check and render it makes; the previous tags come back after. */
export function withKeptTags<T>(tags: readonly string[] | undefined, work: () => T): T {
  const before = kept
  kept = tags ?? []
  try {
    return work()
  } finally {
    kept = before
  }
}

/** The tags kept right now (see {@link withKeptTags}). */
export function keptTags(): readonly string[] {
  return kept
}

/** A text plain in any context (block or flow), else double-quoted: the tag's text reads back exactly. */
export function renderTagText(text: string): string {
  return /^[A-Za-z0-9_$][\w$@~+./-]*$/.test(text) && !/^(?:true|false|null|~)$/i.test(text) ? text : JSON.stringify(text)
}

/** A tagged scalar on one line: `!secret web-search.apiKey`. */
export function renderTagged(value: TaggedScalar): string {
  return `${value.tag} ${renderTagText(value.text)}`
}

const tagObjects = new Map<string, ScalarTag>()

/** yaml's tag object for `tag`: reads a scalar as a {@link TaggedScalar}, writes one back with its tag. */
function tagObject(tag: string): ScalarTag {
  let found = tagObjects.get(tag)
  if (!found) {
    found = {
      tag,
      resolve: (text: string) => new TaggedScalar(tag, text) as never,
      identify: (value: unknown) => value instanceof TaggedScalar && value.tag === tag,
      stringify: (item) => renderTagText((item.value as TaggedScalar).text),
    }
    tagObjects.set(tag, found)
  }
  return found
}

/** yaml's `customTags` for the kept tags (none: `undefined`, yaml's defaults). */
export function keptCustomTags(tags: readonly string[] = kept): ScalarTag[] | undefined {
  return tags.length ? tags.map(tagObject) : undefined
}

/** A tagged scalar found in a document's text: where it stands (its tag's first character) and what it holds. */
export interface TaggedScalarAt {
  /** Keys (and item indexes) from the document's root. */
  path: (string | number)[]
  tag: string
  text: string
  /** Offset of the tag in the text. */
  offset: number
  /** 1-based line and column of the tag. */
  line: number
  column: number
}

/** The tagged scalars under `root` (a parsed YAML tree), in source order, with their positions in `text`. */
export function taggedScalarsOfTree(root: unknown, text: string): TaggedScalarAt[] {
  const found: TaggedScalarAt[] = []
  const stack: { node: unknown; path: (string | number)[] }[] = [{ node: root, path: [] }]
  while (stack.length) {
    const { node, path } = stack.pop()!
    if (isScalar(node) && node.value instanceof TaggedScalar) {
      const start = node.range?.[0] ?? 0
      const lineStart = text.lastIndexOf('\n', start - 1) + 1
      const before = text.slice(lineStart, start)
      const at = before.lastIndexOf(node.value.tag)
      const offset = at >= 0 ? lineStart + at : start
      const line = text.slice(0, offset).split('\n').length
      found.push({ path, tag: node.value.tag, text: node.value.text, offset, line, column: offset - (text.lastIndexOf('\n', offset - 1) + 1) + 1 })
    } else if (isMap(node)) {
      for (const pair of [...node.items].reverse()) {
        const key = (pair.key as Node | null) && isScalar(pair.key) ? String(pair.key.value) : undefined
        if (key !== undefined) stack.push({ node: pair.value, path: [...path, key] })
      }
    } else if (isSeq(node)) {
      for (let index = node.items.length - 1; index >= 0; index--) stack.push({ node: node.items[index], path: [...path, index] })
    } else if (isPair(node)) {
      stack.push({ node: node.value, path })
    }
  }
  return found.sort((a, b) => a.offset - b.offset)
}
