import { branchesOf, resolveNode, type Envelope, type EnvelopeNode } from './envelope.ts'
import type { Field, FormModel } from './fields.ts'
import { isPlainObject } from './paths.ts'

/** One problem with a candidate value: where, and what was expected (never the value itself). */
export interface FieldIssue {
  path: string[]
  message: string
}

/** Answers how a constant reads in a message; constants come from the schema, not from the user. */
function show(constant: unknown): string {
  return JSON.stringify(constant) ?? 'null'
}

function checkString(node: EnvelopeNode, value: string, path: string[]): FieldIssue[] {
  const { min, max, pattern } = node.meta
  const issues: FieldIssue[] = []
  if (min !== undefined && value.length < min) issues.push({ path, message: `expected at least ${min} characters` })
  if (max !== undefined && value.length > max) issues.push({ path, message: `expected at most ${max} characters` })
  if (pattern && !safeTest(pattern, value)) issues.push({ path, message: `expected text matching /${pattern.source}/${pattern.flags}` })
  return issues
}

function safeTest(pattern: { source: string; flags: string }, value: string): boolean {
  try {
    return new RegExp(pattern.source, pattern.flags).test(value)
  } catch {
    // A pattern this engine cannot compile is left for the server to judge.
    return true
  }
}

function checkNumber(node: EnvelopeNode, value: number, path: string[]): FieldIssue[] {
  if (!Number.isFinite(value)) return [{ path, message: 'expected a finite number' }]
  const { min, max, step } = node.meta
  const issues: FieldIssue[] = []
  if (min !== undefined && value < min) issues.push({ path, message: `expected a number of at least ${min}` })
  if (max !== undefined && value > max) issues.push({ path, message: `expected a number of at most ${max}` })
  if (step !== undefined && step > 0) {
    const steps = (value - (min ?? 0)) / step
    // Tolerate float noise such as 0.1 + 0.2, as schemastery itself does.
    if (Math.abs(steps - Math.round(steps)) > 1e-9) issues.push({ path, message: `expected a multiple of ${step}${min ? ` from ${min}` : ''}` })
  }
  return issues
}

function checkEntries(envelope: Envelope, node: EnvelopeNode, value: unknown, path: string[]): FieldIssue[] {
  switch (node.type) {
    case 'object':
      if (!isPlainObject(value)) return [{ path, message: 'expected an object' }]
      return Object.entries(node.dict ?? {}).flatMap(([key, id]) => checkNode(envelope, id, value[key], [...path, key]))
    case 'dict': {
      if (!isPlainObject(value)) return [{ path, message: 'expected an object' }]
      const key = resolveNode(envelope, node.sKey)
      return Object.entries(value).flatMap(([name, item]) => [
        ...(key?.type === 'string' ? checkString(key, name, [...path, name]).map((i) => ({ ...i, message: `key: ${i.message}` })) : []),
        ...checkNode(envelope, node.inner, item, [...path, name]),
      ])
    }
    case 'array':
      if (!Array.isArray(value)) return [{ path, message: 'expected a list' }]
      return value.flatMap((item, index) => checkNode(envelope, node.inner, item, [...path, String(index)]))
    case 'tuple': {
      const list = node.list ?? []
      if (!Array.isArray(value)) return [{ path, message: `expected a list of ${list.length} items` }]
      if (value.length > list.length) return [{ path, message: `expected at most ${list.length} items` }]
      return list.flatMap((id, index) => checkNode(envelope, id, value[index], [...path, String(index)]))
    }
    default:
      return []
  }
}

function checkUnion(envelope: Envelope, node: EnvelopeNode, value: unknown, path: string[]): FieldIssue[] {
  const branches = branchesOf(envelope, node)
  if (branches.some((branch) => checkNode(envelope, branch.uid, value, path).length === 0)) return []
  if (branches.every((branch) => branch.type === 'const')) {
    return [{ path, message: `expected one of ${branches.map((b) => show(b.value)).join(', ')}` }]
  }
  return [{ path, message: 'expected a value matching one of the allowed forms' }]
}

function checkPresent(envelope: Envelope, node: EnvelopeNode, value: unknown, path: string[]): FieldIssue[] {
  switch (node.type) {
    case 'string':
      return typeof value === 'string' ? checkString(node, value, path) : [{ path, message: 'expected text' }]
    case 'number':
      return typeof value === 'number' ? checkNumber(node, value, path) : [{ path, message: 'expected a number' }]
    case 'boolean':
      return typeof value === 'boolean' ? [] : [{ path, message: 'expected true or false' }]
    case 'const':
      return value === node.value ? [] : [{ path, message: `expected ${show(node.value)}` }]
    case 'union':
      return checkUnion(envelope, node, value, path)
    case 'intersect':
      return branchesOf(envelope, node).flatMap((branch) => checkNode(envelope, branch.uid, value, path))
    default:
      // Types the page cannot edit (any, function, is, bitset…) are left for the server.
      return checkEntries(envelope, node, value, path)
  }
}

/**
 * Check `value` against the node at `uid`. `undefined` and `null` mean
 * "absent", which schemastery treats as "use the default", so only a
 * required field without a default refuses them.
 */
export function checkNode(envelope: Envelope, uid: string | undefined, value: unknown, path: string[]): FieldIssue[] {
  const node = resolveNode(envelope, uid)
  if (!node) return []
  if (value === undefined || value === null) {
    return node.meta.required && node.meta.default === undefined ? [{ path, message: 'a value is required' }] : []
  }
  return checkPresent(envelope, node, value, path)
}

/**
 * Check a candidate value for one field before it is sent. Only what the
 * envelope states is judged here; a plugin's own `validate` is the server's.
 */
export function validateField(model: FormModel, field: Field, value: unknown): FieldIssue[] {
  return checkNode(model.envelope, field.uid, value, field.path)
}
