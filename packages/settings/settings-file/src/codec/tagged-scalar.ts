/**
 * The value a kept tag reads as, apart from the codec's YAML machinery (`tagged.ts`), so a reader that
 * only looks at parsed data (the `fast-read` face) can tell one without loading `yaml`.
 */

/** A scalar written with a kept tag: the tag (`!secret`) and its text, unresolved. Compares by its two fields (`dataEqual`). */
export class TaggedScalar {
  /** The tag as written, with its `!` (`!secret`). */
  readonly tag: string
  /** The scalar's text (`web-search.apiKey`), as a string whatever it looks like. */
  readonly text: string

  constructor(tag: string, text: string) {
    this.tag = tag
    this.text = text
  }
}

/** Whether `value` is a {@link TaggedScalar}. */
export function isTaggedScalar(value: unknown): value is TaggedScalar {
  return value instanceof TaggedScalar
}
