/**
 * Sections whose form is built the first time something reads it. A read of
 * a thousand namespaces holds a thousand views, but the page renders a
 * screenful first: building every form up front (about half a millisecond
 * each) would cost the first render half a second. The form is an ordinary
 * enumerable property once read, so spreading a section (`{ ...s, busy }`)
 * reads it and copies it like any other field.
 */
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import type { FormModel } from '../model/index.ts'

/** The fields of a section besides its form (the session's `SectionState`, structurally). */
interface WithForm {
  form: FormModel
}

/** Views of sections whose form nobody has read yet. */
const unbuilt = new WeakMap<object, SettingsNamespaceView>()

/**
 * A section holding `view`, with `rest` beside it, whose `form` is `build(view)`
 * on first read (then kept).
 */
export function lazySection<S extends WithForm>(view: SettingsNamespaceView, build: (view: SettingsNamespaceView) => FormModel, rest: Omit<S, 'form'>): S {
  const section = { ...rest } as S
  Object.defineProperty(section, 'form', {
    enumerable: true,
    configurable: true,
    get(this: S) {
      const form = build(view)
      Object.defineProperty(this, 'form', { value: form, enumerable: true, configurable: true, writable: true })
      unbuilt.delete(this)
      return form
    },
  })
  unbuilt.set(section, view)
  return section
}

/** The view a section shows, without building its form when nobody has read it yet. */
export function sectionView(section: WithForm): SettingsNamespaceView {
  return unbuilt.get(section) ?? section.form.view
}

/** Whether the section's form has been built (read) already. */
export function formBuilt(section: WithForm): boolean {
  return !unbuilt.has(section)
}

/** The section again, its form to be rebuilt from its view on next read (the page's language changed). */
export function rebuiltSection<S extends WithForm>(section: S, build: (view: SettingsNamespaceView) => FormModel): S {
  const rest: Partial<S> = {}
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(section))) {
    if (key !== 'form' && 'value' in descriptor) (rest as Record<string, unknown>)[key] = descriptor.value
  }
  return lazySection<S>(sectionView(section), build, rest as Omit<S, 'form'>)
}
