import { parseYaml } from './parse.ts'
import { taggedScalarsOfTree, withKeptTags, type TaggedScalarAt } from './tagged.ts'

/**
 * Where the scalars with one of `tags` stand in YAML `text` (for a checker
 * that reports a reference at its `file:line:column`), in source order, with
 * their paths from the root. A text that does not parse gives what yaml read
 * of it. Nothing but the tag's text is read out: never another value.
 */
export function taggedScalarsIn(text: string, tags: readonly string[]): TaggedScalarAt[] {
  if (!tags.length) return []
  return withKeptTags(tags, () => taggedScalarsOfTree(parseYaml(text).doc.contents, text))
}
