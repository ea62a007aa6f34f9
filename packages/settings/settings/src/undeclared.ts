import { isPlainObject, valueAt } from './data.ts'
import { unlazy } from './schema-nodes.ts'
import type { SettingsSchema } from './types.ts'

type AnySchema = SettingsSchema<any>

/**
 * One finding of the walk: a place the schema does not declare, or (`inside`)
 * a declared place whose value has another shape than the schema there, so
 * that nothing inside it is declared. The second kind only matters for a union
 * or intersection: a branch that calls `opts` a string declares none of the
 * keys an object under `opts` holds, and must not vouch for them.
 */
interface Finding {
  path: string[]
  inside?: true
}

/** The value at this place has another shape than the schema there. */
const MISFIT = Symbol('misfit')

function isContainer(value: unknown): boolean {
  return isPlainObject(value) || Array.isArray(value)
}

/**
 * The paths `value` holds that `schema` does not declare, walked the way the
 * redactor walks: objects (a key their `dict` does not name is undeclared),
 * dicts (every key is declared), arrays, tuples (an item past the tuple's
 * length is undeclared), unions and intersections (a place is undeclared only
 * when no branch or part declares it), transforms (through their input schema)
 * and lazy schemas. Only the topmost undeclared place is listed, never what
 * lies below it. Where the schema cannot be known (`any`, `is`, a function) the
 * value is declared as a whole, and opaque. A container where the schema
 * wants a scalar (an object where a string is due) declares nothing inside
 * it: its keys or items are listed. A section holding one is not in effect
 * (the schema refuses it), but a union may admit it through a branch that
 * does not declare that place at all.
 */
export function undeclaredPaths(schema: AnySchema, value: unknown): string[][] {
  const found: Finding[] = []
  walk(value, schema, [], found)
  // A loop, not flatMap: a section may hold tens of thousands of findings, each a list of one.
  const paths: string[][] = []
  for (const finding of found) {
    if (!finding.inside) paths.push(finding.path)
    else for (const path of childPaths(valueAt(value, finding.path), finding.path)) paths.push(path)
  }
  return paths
}

/** The path of each key or item of a container. */
function childPaths(container: unknown, path: string[]): string[][] {
  if (Array.isArray(container)) return container.map((_, index) => [...path, String(index)])
  return isPlainObject(container) ? Object.keys(container).map((key) => [...path, key]) : []
}

/**
 * Add what `value` (at `path`, a stack pushed and popped on the way, copied
 * only for a finding) holds undeclared to `found`.
 * @returns {@link MISFIT}, having added nothing, when the value's shape is not the schema's.
 */
function walk(value: unknown, input: AnySchema, path: string[], found: Finding[]): typeof MISFIT | undefined {
  // A scalar holds no key: whatever the schema says of it, there is nothing to find (or to vouch for) inside.
  if (!isContainer(value)) return undefined
  const node = unlazy(input)
  switch (node.type) {
    case 'object': {
      if (!isPlainObject(value)) return MISFIT
      const dict = node.dict ?? {}
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(dict, key)) below(value[key], dict[key]!, key, path, found)
        else found.push({ path: [...path, key] })
      }
      return undefined
    }
    case 'dict':
      if (!isPlainObject(value)) return MISFIT
      if (node.inner) for (const key of Object.keys(value)) below(value[key], node.inner, key, path, found)
      return undefined
    case 'array':
    case 'tuple':
      if (!Array.isArray(value)) return MISFIT
      for (let index = 0; index < value.length; index++) {
        const item = node.type === 'array' ? node.inner : node.list?.[index]
        if (item) below(value[index], item, String(index), path, found)
        else if (node.type === 'tuple') found.push({ path: [...path, String(index)] })
      }
      return undefined
    case 'union':
    case 'intersect': {
      // A branch the value does not fit at all says nothing; the others must each leave a place undeclared.
      const answers: Finding[][] = []
      for (const branch of node.list ?? []) {
        const answer: Finding[] = []
        if (walk(value, branch, path, answer) !== MISFIT) answers.push(answer)
      }
      if (!answers.length) return MISFIT
      found.push(...undeclaredByAll(answers))
      return undefined
    }
    case 'transform':
      return node.inner ? walk(value, node.inner, path, found) : undefined
    case 'const':
      // A constant object or list is declared whole.
      return isContainer(node.value) ? undefined : MISFIT
    case 'string':
    case 'number':
    case 'boolean':
    case 'never':
      return MISFIT
    default:
      // any, is, function, bitset (a number or a list of flag names), or a kind this walk does not know:
      // the value is declared whole, and opaque.
      return undefined
  }
}

/** {@link walk} one level down, at `key`: a child of another shape than its schema leaves its contents undeclared. */
function below(child: unknown, schema: AnySchema, key: string, path: string[], found: Finding[]): void {
  path.push(key)
  if (walk(child, schema, path, found) === MISFIT) found.push({ path: [...path], inside: true })
  path.pop()
}

/**
 * What every answer leaves undeclared. A place counts when each answer lists
 * it or one of its ancestors as undeclared, or finds its parent (or a higher
 * ancestor) holding another shape than it declares; an `inside` finding counts
 * when each answer leaves that place's contents undeclared. Topmost first.
 */
function undeclaredByAll(answers: Finding[][]): Finding[] {
  if (answers.length === 1) return answers[0]!
  // A branch that finds nothing vouches for everything.
  if (answers.some((answer) => !answer.length)) return []
  const key = (path: readonly string[]) => JSON.stringify(path)
  const indexes = answers.map((answer) => ({
    whole: new Set(answer.filter((finding) => !finding.inside).map((finding) => key(finding.path))),
    inside: new Set(answer.filter((finding) => finding.inside).map((finding) => key(finding.path))),
  }))
  // Whether `answer` leaves everything at `path` undeclared (`contents`: only what lies inside it).
  const covers = (answer: (typeof indexes)[number], path: string[], contents: boolean) =>
    path.some((_, index) => {
      const ancestor = key(path.slice(0, index + 1))
      const strict = index < path.length - 1
      return answer.whole.has(ancestor) || ((strict || contents) && answer.inside.has(ancestor))
    })
  const kept = new Map<string, Finding>()
  for (const finding of answers.flat()) {
    const id = `${finding.inside ? 'in' : 'at'}${key(finding.path)}`
    if (!kept.has(id) && indexes.every((answer) => covers(answer, finding.path, finding.inside === true))) kept.set(id, finding)
  }
  const whole = new Set([...kept.values()].filter((finding) => !finding.inside).map((finding) => key(finding.path)))
  return [...kept.values()].filter((finding) => !finding.path.slice(0, -1).some((_, index) => whole.has(key(finding.path.slice(0, index + 1)))))
}
