import type { Fiber } from 'cordis'
import Schema from 'schemastery'
import { possibleBranches } from './branch.ts'
import { formatPath } from './json.ts'
import type { SettingsSchema } from './types.ts'

/** A registration waiting for values: the fiber to start again once they are given. */
export interface PendingSetup {
  readonly fiber: Fiber
  /** Set once a write gave the values and the plugin is being started again. */
  restarting?: boolean
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function accepts(schema: Schema, value: unknown): boolean {
  try {
    schema(value)
    return true
  } catch {
    return false
  }
}

/**
 * The paths of required values `data` lacks for `schema`: required properties
 * with no default and no value, through objects, intersections, wrappers and,
 * for a union, the branch that lacks the fewest (none when one accepts the data).
 * Lists and dicts are not entered: their items are the person's own.
 */
export function missingPaths(schema: SettingsSchema<unknown>, data: unknown, path: string[] = [], depth = 0): string[][] {
  if (depth > 32) return []
  const inner = (child: Schema, value: unknown, at: string[]) => missingPaths(child as SettingsSchema<unknown>, value, at, depth + 1)
  switch (schema.type) {
    case 'object': {
      // An absent object is read as its default (schemastery gives objects `{}`), whose required values must then be given.
      const fallback = isPlain(schema.meta.default) ? schema.meta.default : path.length === 0 ? {} : undefined
      const value = isPlain(data) ? data : fallback
      if (value === undefined) return []
      return Object.entries(schema.dict ?? {}).flatMap(([key, child]) => {
        const at = [...path, key]
        const present = value[key] !== undefined && value[key] !== null
        if (present) return inner(child, value[key], at)
        // A `null` default is none: schemastery still refuses a required value without one (OneBot's `endpoint`).
        if (child.meta.required && child.meta.default == null) return [at]
        // Anything else absent is read part by part: an object's default, an intersection's object parts.
        return inner(child, isPlain(child.meta.default) ? child.meta.default : undefined, at)
      })
    }
    case 'intersect':
      return dedupe((schema.list ?? []).flatMap((part) => inner(part, data, path)))
    case 'union': {
      const branches = (schema.list ?? []).filter((branch) => !branch.meta.hidden)
      if (data !== undefined && branches.some((branch) => accepts(branch, data))) return []
      // A branch whose constant (an adapter's `protocol`) the data contradicts, or whose kind it does not fit, is not the one meant.
      const fitting = possibleBranches(branches, data)
      let best: string[][] | undefined
      for (const branch of fitting.length ? fitting : branches) {
        const found = inner(branch, data, path)
        if (!best || found.length < best.length) best = found
      }
      return best ?? []
    }
    case 'transform':
    case 'lazy':
      return schema.inner ? inner(schema.inner, data, path) : []
    default:
      return []
  }
}

function dedupe(paths: string[][]): string[][] {
  const seen = new Set<string>()
  return paths.filter((path) => {
    const key = path.join('\u0000')
    return seen.has(key) ? false : (seen.add(key), true)
  })
}

/** The missing paths as people read them: `selfId, token`. */
export function showMissing(missing: readonly string[][]): string {
  return missing.length ? `a value is required at ${missing.map((path) => formatPath(path)).join(', ')}` : 'the section does not resolve'
}
