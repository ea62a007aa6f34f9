/**
 * Sections whose form is built on first read. What these tests prove: nothing
 * is built until `form` is read, then exactly once; the view is there without
 * building; spreading a section reads the form and carries it like any field;
 * a rebuilt section keeps its other fields and builds anew from the same view.
 */
import { describe, expect, it, vi } from 'vitest'
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import type { FormModel } from '../../src/model/index.ts'
import { formBuilt, lazySection, rebuiltSection, sectionView } from '../../src/app/lazy-section.ts'

interface Held {
  form: FormModel
  busy: boolean
  note?: string
}

const view = { ns: 'demo', revision: 3 } as unknown as SettingsNamespaceView
const build = (read: SettingsNamespaceView) => ({ ns: read.ns, view: read }) as unknown as FormModel

describe('lazy sections', () => {
  it('builds the form on first read, once, and answers the view without building it', () => {
    const builder = vi.fn(build)
    const section = lazySection<Held>(view, builder, { busy: false })
    expect(sectionView(section)).toBe(view)
    expect(formBuilt(section)).toBe(false)
    expect(builder).not.toHaveBeenCalled()
    const form = section.form
    expect(section.form).toBe(form)
    expect(builder).toHaveBeenCalledTimes(1)
    expect(formBuilt(section)).toBe(true)
    expect(sectionView(section)).toBe(view)
  })

  it('carries the form through a spread, like any other field', () => {
    const section = lazySection<Held>(view, build, { busy: false })
    const busy = { ...section, busy: true }
    expect(busy.form.view).toBe(view)
    expect(busy.form).toBe(section.form)
    expect(Object.keys(busy).sort()).toEqual(['busy', 'form'])
  })

  it('rebuilds a section from its view, keeping its other fields', () => {
    const builder = vi.fn(build)
    const section = lazySection<Held>(view, builder, { busy: true, note: 'kept' })
    const first = section.form
    const again = rebuiltSection(section, builder)
    expect(again.busy).toBe(true)
    expect(again.note).toBe('kept')
    expect(formBuilt(again)).toBe(false)
    expect(again.form).not.toBe(first)
    expect(again.form.view).toBe(view)
    expect(builder).toHaveBeenCalledTimes(2)
  })
})
