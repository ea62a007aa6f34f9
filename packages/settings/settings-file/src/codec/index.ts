/**
 * The YAML/JSON codec, which knows nothing of settings or disk: parse a
 * document's text (with positions in every refusal, the size cap before a
 * byte is parsed, the same linear duplicate-key check a load makes), edit it
 * byte-stably and check the edit reads back, render it afresh. The parsed YAML
 * tree is yaml's `Document`, with yaml's node guards to walk it. Its refusals
 * are the plain errors of `./errors.ts`; the file provider turns them into its
 * `Settings*` classes.
 */
export { parseSettings, parseYaml, YAML_OPTIONS, type ParsedDocument, type ParseOptions } from './parse.ts'
/** Scalars with a kept local tag (`!secret name`): read as `TaggedScalar`, rendered back byte-stably, found with their positions. */
export { isTaggedScalar, renderTagged, TaggedScalar, type TaggedScalarAt } from './tagged.ts'
export { taggedScalarsIn } from './tagged-positions.ts'
export { checkNextSize, DEFAULT_MAX_DOCUMENT_BYTES, sizeOver } from './size.ts'
export { formatOf, type DocumentFormat } from './format.ts'
export { renderDocument, type Rendered } from './serialize.ts'
export { dataWith, renderChanges, type DocumentChange, type RenderedChanges } from './changes.ts'
export { rereadChanged } from './reread.ts'
export { dataEqual, type DocumentPath } from './data.ts'
export { DocumentCannotHoldError, DocumentError, DocumentNotAMapError, DocumentTooLargeError, type CodecError, type TextPosition } from './errors.ts'
export { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml'
