import { SettingsValidationError } from './errors.ts'
import { inputError, MAX_WRITE_BYTES, storedSectionProblem, toJsonObject, utf8Length, type InputCall } from './json.ts'
import { sectionLayerData } from './layers.ts'
import { mergeLayers, mergeShared } from './merge.ts'
import { applyPathOps, checkPathOps, type CheckedPathOp } from './path.ts'
import type { JsonObject } from './types.ts'

/** The three ways to write a section, and `migrate`: the seam's own write-back of a section older than its kind (`migrations.ts`). */
export type WriteMode = 'update' | 'replace' | 'mutate' | 'migrate'

/** A write's payload after the call-time checks: a private copy the caller can no longer touch. */
export type WritePayload =
  | { mode: 'update' | 'replace'; data: JsonObject }
  | { mode: 'mutate'; ops: CheckedPathOp[] }
  | { mode: 'migrate' }

/** A payload that derives a section from what is stored: every mode but the seam's own `migrate`. */
export type SectionPayload = Exclude<WritePayload, { mode: 'migrate' }>

/**
 * Check a write's payload when the call is made and copy it. This is the one
 * place a payload is checked: callers in front of the seam (the settings
 * controller) hand it over as they got it and map the refusal's `reason`.
 * @throws {SettingsInputError} for a non-object patch or section, malformed ops, non-JSON data or an oversized write.
 */
export function checkPayload(mode: Exclude<WriteMode, 'migrate'>, payload: unknown, call: InputCall): SectionPayload
export function checkPayload(mode: WriteMode, payload: unknown, call: InputCall): WritePayload
export function checkPayload(mode: WriteMode, payload: unknown, call: InputCall): WritePayload {
  if (mode === 'migrate') return { mode }
  if (mode !== 'mutate') return { mode, data: toJsonObject(payload, call) }
  const ops = checkPathOps(payload, call)
  if (utf8Length(JSON.stringify(ops)) > MAX_WRITE_BYTES) {
    throw inputError(call, 'too-large', `ops exceed ${MAX_WRITE_BYTES} bytes of JSON`)
  }
  return { mode, ops }
}

/**
 * The section a write stores, derived from the section as it is stored when
 * the write reaches the front of the queue. `update` deep-merges its patch,
 * `replace` takes its section as given, `mutate` applies its ops in order. A
 * stored `null` section is derived from as `{}` (and is left as it is until a
 * write of that section stores the derived object). A
 * stored section that is malformed can only be repaired by `replace` or by a
 * `mutate` whose first op addresses the section root.
 * @throws {SettingsValidationError} when the stored section is malformed and the write cannot repair it.
 */
export function deriveSection(stored: unknown, payload: SectionPayload, call: InputCall): JsonObject {
  if (payload.mode === 'replace') return mergeLayers([payload.data]) as JsonObject
  // A stored `null` (a section whose fields were all commented out) reads as no section, and a write starts from `{}`.
  const section = sectionLayerData(stored)
  const problem = storedSectionProblem(section)
  const repairs = payload.mode === 'mutate' ? payload.ops[0]?.path.length === 0 : false
  if (problem && !repairs) {
    throw new SettingsValidationError({
      ns: call.ns ?? '',
      scope: call.scope,
      path: [],
      reason: `stored section ${problem}; replace the section to repair it`,
    })
  }
  const current = (problem ? {} : (section ?? {})) as JsonObject
  if (payload.mode !== 'mutate') return mergeShared(current, payload.data) as JsonObject
  return applyPathOps(current, payload.ops, call)
}
