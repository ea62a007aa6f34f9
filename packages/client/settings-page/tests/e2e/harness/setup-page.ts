/**
 * A first setup on the page, done as a person does it: pick a form of a
 * union, then give every field the section marks required (`.field` wrappers
 * holding a `.mark-required`) the kind of value it asks for, through the
 * controls the page shows. Only the DOM drives it; what was given is returned
 * so a spec can check the plugin started with exactly that.
 */
import type { Locator, Page } from 'playwright-core'
import { fieldId } from '../../../src/app/format.ts'
import type { PageMessages } from '../../../src/app/i18n.ts'
import { numberFor, textFor, type Typed } from './setup-values.ts'

/** One field the section marks required, as the DOM shows it. */
interface RequiredControl {
  /** The field's kind, from its wrapper's `field-<kind>` class. */
  kind: string
  /** The id of its control (for a secret, of the password box it opens; for a union, of the union field). */
  id: string
  /** Whether it already shows a value (a chosen form, a set secret, a ticked box, a text). */
  given: boolean
}

/** Read, in the page, every `.field` in `region` whose own label carries the required mark. */
function listRequired(region: Element): RequiredControl[] {
  const own = (field: Element) => field.querySelector(':scope > .field-label > .mark-required, :scope > legend > .mark-required, :scope > summary > .mark-required')
  const found: RequiredControl[] = []
  for (const field of Array.from(region.querySelectorAll('.field'))) {
    if (!own(field)) continue
    const kind = Array.from(field.classList).find((name) => name.startsWith('field-'))?.slice('field-'.length) ?? ''
    const labelled = field.querySelector(':scope > .field-label > label[for]')?.getAttribute('for')
    const state = field.querySelector('.secret-state[id$="-state"]')?.id.replace(/-state$/, '')
    const picker = field.querySelector('[id$="-form"]')?.id.replace(/-form$/, '')
    const inner = Array.from(field.querySelectorAll(':is(input, select, textarea, output, [role=radiogroup])[id]')).find((element) => !/-(desc|problem|state)$/.test(element.id))
    const id = labelled ?? state ?? picker ?? inner?.id ?? ''
    let given = false
    if (kind === 'secret') given = field.querySelector('.actions button.quiet') !== null
    else if (kind === 'union') given = field.querySelector('[id$="-form"] input:checked') !== null || ((field.querySelector('select[id$="-form"]') as HTMLSelectElement | null)?.value ?? '-1') !== '-1'
    else {
      const control = field.ownerDocument.getElementById(id) as HTMLInputElement | HTMLSelectElement | null
      given = control instanceof HTMLInputElement && control.type === 'checkbox' ? control.checked : (control as HTMLInputElement | null)?.value !== undefined && (control as HTMLInputElement).value !== ''
      if (control?.getAttribute('role') === 'radiogroup' || control?.classList.contains('radios')) given = control.querySelector('input:checked') !== null
    }
    found.push({ kind, id, given })
  }
  return found
}

/** The path a field id names: the inverse of `fieldId`, checked against it. */
export function pathOfId(ns: string, id: string): string[] {
  const prefix = fieldId(ns, [])
  if (!id.startsWith(prefix)) throw new Error(`${id} is not a field of ${ns}`)
  const rest = id.slice(prefix.length)
  const path = rest === '' ? [] : rest.slice(2).split('--').map((key) => key.replace(/_([0-9a-f]+)_/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16))))
  if (fieldId(ns, path) !== id) throw new Error(`cannot read a path from ${id}`)
  return path
}

/** Pick form `index` of the union at `path`: its radio, its select option, or (enable to reveal) the boolean's checkbox. */
export async function chooseForm(page: Page, ns: string, path: string[], index: number, toggle?: { key: string; on: boolean }): Promise<void> {
  if (toggle) {
    const box = page.locator(`#${fieldId(ns, [...path, toggle.key])}`)
    if ((await box.isChecked()) !== toggle.on) await box.click()
    return
  }
  const picker = page.locator(`#${fieldId(ns, path)}-form`)
  if ((await picker.evaluate((element) => element.tagName)) === 'SELECT') await picker.selectOption(String(index))
  else await picker.locator('input[type=radio]').nth(index).click()
}

/** How many forms the union at `path` offers, as its picker shows them (0 when there is no picker). */
export async function formCount(page: Page, ns: string, path: string[]): Promise<number> {
  const picker = page.locator(`#${fieldId(ns, path)}-form`)
  if ((await picker.count()) === 0) return 0
  if ((await picker.evaluate((element) => element.tagName)) === 'SELECT') return picker.locator('option:not([value="-1"])').count()
  return picker.locator('input[type=radio]').count()
}

/** Give one required field a value through its control; answers what was given (a choice's value is read back later). */
async function give(page: Page, region: Locator, ns: string, control: RequiredControl, m: PageMessages, secret: string): Promise<Typed | undefined> {
  const path = pathOfId(ns, control.id)
  const box = page.locator(`#${control.id}`)
  switch (control.kind) {
    case 'secret': {
      const label = path.at(-1) ?? ns
      await region.getByRole('button', { name: m.replaceNamed(label), exact: true }).click()
      await box.fill(secret)
      await box.press('Enter')
      return { path, value: secret, secret: true }
    }
    case 'string':
    case 'textarea':
    case 'link':
    case 'number':
    case 'slider': {
      const value = control.kind === 'link' ? `https://setup.example/${path.join('/')}` : control.kind === 'number' || control.kind === 'slider' ? await numberOf(box) : textFor(path)
      await box.fill(String(value))
      await box.blur()
      return { path, value, secret: false }
    }
    case 'boolean':
      await box.check()
      return { path, value: true, secret: false }
    case 'select':
      if ((await box.evaluate((element) => element.tagName)) === 'SELECT') await box.selectOption({ index: (await box.locator('option[value=""]').count()) > 0 ? 1 : 0 })
      else await box.locator('input[type=radio]').first().click()
      return { path, value: undefined, secret: false }
    case 'union':
      await chooseForm(page, ns, path, 0)
      return { path, value: undefined, secret: false }
    default:
      throw new Error(`no control a person can fill for the required ${control.kind} field ${path.join('.')}`)
  }
}

/** The lowest number a number box allows (its `min`, else 1), kept under its `max`. */
async function numberOf(box: Locator): Promise<number> {
  const [min, max] = await box.evaluate((element) => [(element as HTMLInputElement).min, (element as HTMLInputElement).max])
  return numberFor(min ? Number(min) : undefined, max ? Number(max) : undefined)
}

/**
 * Give every field of the section that is marked required and shows no value
 * yet, round after round (a chosen form may reveal more), until none is left.
 * Objects are groups, not values: their own fields are visited instead.
 * Answers what was given, in order; a choice's value is `undefined` (the spec
 * reads it from the document).
 */
export async function fillRequired(page: Page, region: Locator, ns: string, m: PageMessages, secretPrefix: string): Promise<Typed[]> {
  const typed: Typed[] = []
  const done = new Set<string>()
  for (let round = 0; round < 40; round++) {
    const open = (await region.evaluate(listRequired)).filter((control) => !control.given && control.kind !== 'object' && !done.has(control.id) && control.id !== fieldId(ns, []))
    if (open.length === 0) return typed
    const control = open[0]!
    done.add(control.id)
    const given = await give(page, region, ns, control, m, `${secretPrefix}-${typed.length + 1}`)
    if (given) typed.push(given)
  }
  throw new Error(`${ns}: still fields to fill after 40 values`)
}
