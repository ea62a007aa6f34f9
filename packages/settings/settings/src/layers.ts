import { sectionFrom, type SectionKey, type SectionSource } from './document.ts'
import { valueAt } from './data.ts'
import { SettingsValidationError } from './errors.ts'
import { storedSectionProblem } from './json.ts'

/**
 * Where a resolved field can come from, lowest first: the schema's defaults,
 * the registrant's composition `base`, the global user section, and the user
 * section of the instance's named scope.
 */
export const LAYER_ORDER = ['defaults', 'base', 'global', 'scope'] as const

/** The name of one layer of a resolution. */
export type LayerName = (typeof LAYER_ORDER)[number]

/** One layer of a resolution: its name and its raw data (`undefined` when it holds nothing). */
export interface Layer {
  readonly name: Exclude<LayerName, 'defaults'>
  readonly data: unknown
}

/** What a list of layers is gathered for: a namespace, the scope resolved (if any), the instance's base, and how the kind reads its sections. */
export interface ResolutionTarget extends SectionKey {
  base?: unknown
  /**
   * How the kind reads a well-formed stored section (`readerOf` in
   * `migrations.ts`: without `$version`, migrated when older), or, as text, why it cannot.
   */
  read?: (section: unknown) => { data: unknown } | string
}

/**
 * A stored section as a layer reads it: `null` holds nothing, exactly like an
 * absent section. It is what YAML makes of a section whose every field was
 * commented out (`web-search:` alone, or `web-search: ~`), and the user means
 * "nothing of mine here", not "replace everything below with null".
 */
export function sectionLayerData(section: unknown): unknown {
  return section === null ? undefined : section
}

/**
 * The data layers of one resolution target, lowest first, read from `doc`. The
 * schema's defaults are not listed: the schema applies them when it resolves.
 * A stored `null` section is an empty layer ({@link sectionLayerData}). A
 * stored section that cannot feed resolution (not an object, or holding a
 * prototype key) goes to `onProblem`, which may throw to refuse the whole
 * resolution or return to leave that layer out.
 */
export function layersAt(
  doc: SectionSource,
  target: ResolutionTarget,
  onProblem: (layer: Layer['name'], problem: string) => void = (layer, problem) => {
    throw new SettingsValidationError({ ns: target.ns, scope: layer === 'scope' ? target.scope : undefined, path: [], reason: `section ${problem}` })
  },
): Layer[] {
  const layers: Layer[] = [{ name: 'base', data: target.base }, storedLayer(doc, target, 'global', undefined, onProblem)]
  if (target.scope !== undefined) layers.push(storedLayer(doc, target, 'scope', target.scope, onProblem))
  return layers
}

/** One stored section of {@link layersAt} as its layer; a malformed one is told to `onProblem` and holds nothing. */
function storedLayer(doc: SectionSource, target: ResolutionTarget, name: 'global' | 'scope', scope: string | undefined, onProblem: (layer: Layer['name'], problem: string) => void): Layer {
  const raw = sectionLayerData(sectionFrom(doc, target.ns, scope))
  const read = storedSectionProblem(raw) ?? target.read?.(raw) ?? { data: raw }
  if (typeof read !== 'string') return { name, data: read.data }
  onProblem(name, read)
  return { name, data: undefined }
}

/** The layers strictly below `name`: what a field would read if that layer held nothing. */
export function layersBelow(layers: readonly Layer[], name: Layer['name']): Layer[] {
  const rank = LAYER_ORDER.indexOf(name)
  return layers.filter((layer) => LAYER_ORDER.indexOf(layer.name) < rank)
}

/** The layer's data where `name` is present in the list, else `undefined`. */
export function layerData(layers: readonly Layer[], name: Layer['name']): unknown {
  return layers.find((layer) => layer.name === name)?.data
}

/**
 * Which layer sets the field at `path`: the highest layer holding a value
 * there (a stored `null` counts, since it masks what lies below), or
 * `defaults` when no data layer holds one and the value comes from the schema (or is unset).
 */
export function inspect(layers: readonly Layer[], path: readonly string[]): LayerName {
  for (let index = layers.length - 1; index >= 0; index--) {
    const layer = layers[index]!
    if (valueAt(layer.data, path) !== undefined) return layer.name
  }
  return 'defaults'
}
