import { meantBranch } from './branches.ts'
import { branchesOf, resolveNode, type Envelope, type EnvelopeNode } from './envelope.ts'
import type { Field, FormModel } from './fields.ts'
import { isPlainObject } from './paths.ts'

/** What a candidate value broke, for a page that says it in its own language (`message` says it in English). */
export type FieldIssueCode =
  | 'min-length' | 'max-length' | 'pattern' | 'finite' | 'min' | 'max' | 'step' | 'object' | 'list' | 'tuple-length'
  | 'tuple-max' | 'one-of' | 'any-form' | 'text' | 'number' | 'boolean' | 'constant' | 'required'

/** One problem with a candidate value: where, and what was expected (never the value itself). */
export interface FieldIssue {
  path: string[]
  /** The rule, in English. */
  message: string
  /** The rule as a code, with `params` (bounds, the allowed constants: never the value). */
  code: FieldIssueCode
  params?: Record<string, string | number>
  /** The rule was broken by a dict key, not a value. */
  onKey?: true
}

/** Each issue code's rule in English, from its params: what `FieldIssue.message` holds. */
export const FIELD_ISSUE_ENGLISH: Readonly<Record<FieldIssueCode, (params: Record<string, string | number>) => string>> = {
  'min-length': (p) => `expected at least ${p.min} characters`,
  'max-length': (p) => `expected at most ${p.max} characters`,
  pattern: (p) => `expected text matching ${p.pattern}`,
  finite: () => 'expected a finite number',
  min: (p) => `expected a number of at least ${p.min}`,
  max: (p) => `expected a number of at most ${p.max}`,
  step: (p) => `expected a multiple of ${p.step}${p.from ? ` from ${p.from}` : ''}`,
  object: () => 'expected an object',
  list: () => 'expected a list',
  'tuple-length': (p) => `expected a list of ${p.count} items`,
  'tuple-max': (p) => `expected at most ${p.count} items`,
  'one-of': (p) => `expected one of ${p.choices}`,
  'any-form': () => 'expected a value matching one of the allowed forms',
  text: () => 'expected text',
  number: () => 'expected a number',
  boolean: () => 'expected true or false',
  constant: (p) => `expected ${p.value}`,
  required: () => 'a value is required',
}

function issue(path: string[], code: FieldIssueCode, params: Record<string, string | number> = {}): FieldIssue {
  const found: FieldIssue = { path, code, message: FIELD_ISSUE_ENGLISH[code](params) }
  if (Object.keys(params).length) found.params = params
  return found
}

/** Answers how a constant reads in a message; constants come from the schema, not from the user. */
function show(constant: unknown): string {
  return JSON.stringify(constant) ?? 'null'
}

function checkString(node: EnvelopeNode, value: string, path: string[]): FieldIssue[] {
  const { min, max, pattern } = node.meta
  const issues: FieldIssue[] = []
  if (min !== undefined && value.length < min) issues.push(issue(path, 'min-length', { min }))
  if (max !== undefined && value.length > max) issues.push(issue(path, 'max-length', { max }))
  if (pattern && !safeTest(pattern, value)) issues.push(issue(path, 'pattern', { pattern: `/${pattern.source}/${pattern.flags}` }))
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
  if (!Number.isFinite(value)) return [issue(path, 'finite')]
  const { min, max, step } = node.meta
  const issues: FieldIssue[] = []
  if (min !== undefined && value < min) issues.push(issue(path, 'min', { min }))
  if (max !== undefined && value > max) issues.push(issue(path, 'max', { max }))
  if (step !== undefined && step > 0) {
    const steps = (value - (min ?? 0)) / step
    // Tolerate float noise such as 0.1 + 0.2, as schemastery itself does.
    if (Math.abs(steps - Math.round(steps)) > 1e-9) issues.push(issue(path, 'step', min ? { step, from: min } : { step }))
  }
  return issues
}

function checkEntries(envelope: Envelope, node: EnvelopeNode, value: unknown, path: string[]): FieldIssue[] {
  switch (node.type) {
    case 'object':
      if (!isPlainObject(value)) return [issue(path, 'object')]
      return Object.entries(node.dict ?? {}).flatMap(([key, id]) => checkNode(envelope, id, value[key], [...path, key]))
    case 'dict': {
      if (!isPlainObject(value)) return [issue(path, 'object')]
      const key = resolveNode(envelope, node.sKey)
      return Object.entries(value).flatMap(([name, item]) => [
        ...(key?.type === 'string' ? checkString(key, name, [...path, name]).map((i): FieldIssue => ({ ...i, message: `key: ${i.message}`, onKey: true })) : []),
        ...checkNode(envelope, node.inner, item, [...path, name]),
      ])
    }
    case 'array':
      if (!Array.isArray(value)) return [issue(path, 'list')]
      return value.flatMap((item, index) => checkNode(envelope, node.inner, item, [...path, String(index)]))
    case 'tuple': {
      const list = node.list ?? []
      if (!Array.isArray(value)) return [issue(path, 'tuple-length', { count: list.length })]
      if (value.length > list.length) return [issue(path, 'tuple-max', { count: list.length })]
      return list.flatMap((id, index) => checkNode(envelope, id, value[index], [...path, String(index)]))
    }
    default:
      return []
  }
}

/**
 * A union accepts what one of its branches accepts. When it refuses and the
 * value says which branch it means (its discriminator, or the only branch whose
 * constants it does not contradict), that branch's problems are reported, each
 * at its own field; otherwise the union's own.
 */
function checkUnion(envelope: Envelope, node: EnvelopeNode, value: unknown, path: string[]): FieldIssue[] {
  const branches = branchesOf(envelope, node)
  if (branches.some((branch) => checkNode(envelope, branch.uid, value, path).length === 0)) return []
  if (branches.every((branch) => branch.type === 'const')) {
    return [issue(path, 'one-of', { choices: branches.map((b) => show(b.value)).join(', ') })]
  }
  // Hidden branches are a plugin's own escape hatches: a person never means one.
  const shown = branches.filter((branch) => !branch.meta.hidden)
  const meant = meantBranch(envelope, shown, value)
  if (meant >= 0) return checkNode(envelope, shown[meant]!.uid, value, path)
  return [issue(path, 'any-form')]
}

function checkPresent(envelope: Envelope, node: EnvelopeNode, value: unknown, path: string[]): FieldIssue[] {
  switch (node.type) {
    case 'string':
      return typeof value === 'string' ? checkString(node, value, path) : [issue(path, 'text')]
    case 'number':
      return typeof value === 'number' ? checkNumber(node, value, path) : [issue(path, 'number')]
    case 'boolean':
      return typeof value === 'boolean' ? [] : [issue(path, 'boolean')]
    case 'const':
      return value === node.value ? [] : [issue(path, 'constant', { value: show(node.value) })]
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
    // A `null` default is none: schemastery still refuses a required field without a value.
    return node.meta.required && node.meta.default == null ? [issue(path, 'required')] : []
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
