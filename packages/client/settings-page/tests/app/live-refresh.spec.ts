/**
 * LiveRefresh: which namespaces the page reads again after the event stream
 * spoke. What these tests prove: only the namespaces events name are read, once
 * each; a revision the page holds is not read again; an event of another named
 * scope is nobody's business here, while a global one feeds what a scope
 * inherits; `settings/updated` adds nothing; the events of a section with a
 * write on its way wait for its answer, and only what they named beyond it is
 * read; a payload it cannot read, or more names than a read may carry, reads
 * everything.
 */
import { describe, expect, it } from 'vitest'
import { LiveRefresh, type ShownSections } from '../../src/app/live-refresh.ts'

let id = 0
const documentUpdated = (data: unknown) => ({ id: ++id, event: 'settings/document-updated', data })

/** The page shows the global scope holding `demo` at revision 3 and `range` at 1. */
const global: ShownSections = { scope: undefined, revisionOf: (ns) => ({ demo: 3, range: 1 })[ns] }
const scoped: ShownSections = { scope: 'preset/coder', revisionOf: (ns) => ({ demo: 5 })[ns] }

describe('LiveRefresh', () => {
  it('reads only the namespaces events name, once each, and nothing it already holds', () => {
    const live = new LiveRefresh()
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 4 }), global)).toBe(true)
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 5 }), global)).toBe(true)
    expect(live.hear(documentUpdated({ ns: 'range', revision: 1 }), global)).toBe(false)
    expect(live.hear(documentUpdated({ ns: 'fresh', revision: 1 }), global)).toBe(true)
    expect(live.take(200)).toEqual({ kind: 'some', names: ['demo', 'fresh'] })
    expect(live.take(200)).toEqual({ kind: 'none' })
  })

  it('leaves other named scopes alone and reads a global change into the scope shown', () => {
    const live = new LiveRefresh()
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 9, scope: 'preset/other' }), scoped)).toBe(false)
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 9, scope: 'preset/coder' }), global)).toBe(false)
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 5, scope: 'preset/coder' }), scoped)).toBe(false)
    // A global section's revision says nothing about a scope's: what the scope inherits changed.
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 1 }), scoped)).toBe(true)
    expect(live.take(200)).toEqual({ kind: 'some', names: ['demo'] })
  })

  it('adds nothing for settings/updated or other events', () => {
    const live = new LiveRefresh()
    expect(live.hear({ id: 1, event: 'settings/updated', data: { ns: 'demo', source: 'update' } }, global)).toBe(false)
    expect(live.hear({ id: 2, event: 'other/thing', data: { ns: 'demo', revision: 99 } }, global)).toBe(false)
    expect(live.take(200)).toEqual({ kind: 'none' })
  })

  it('holds a written section’s events until the write answers, then reads only what they named beyond the answer', () => {
    const live = new LiveRefresh()
    live.sent('demo')
    // The write's own event: no read now, and none once the answer carries its revision.
    expect(live.hear(documentUpdated({ ns: 'demo', revision: 4 }), global)).toBe(false)
    expect(live.answered('demo', 4)).toBe(false)
    expect(live.take(200)).toEqual({ kind: 'none' })
    // Somebody else wrote after the write's answer was read.
    live.sent('demo')
    live.hear(documentUpdated({ ns: 'demo', revision: 5 }), global)
    live.hear(documentUpdated({ ns: 'demo', revision: 6 }), global)
    expect(live.answered('demo', 5)).toBe(true)
    expect(live.take(200)).toEqual({ kind: 'some', names: ['demo'] })
  })

  it('reads a section again after a failed write that heard events, and waits for the last of two writes', () => {
    const live = new LiveRefresh()
    live.sent('demo')
    live.sent('demo')
    live.hear(documentUpdated({ ns: 'demo', revision: 7 }), global)
    expect(live.answered('demo', 7)).toBe(false)
    expect(live.answered('demo', undefined)).toBe(true)
    expect(live.take(200)).toEqual({ kind: 'some', names: ['demo'] })
    // A write that heard nothing asks for nothing, whatever its outcome.
    live.sent('range')
    expect(live.answered('range', undefined)).toBe(false)
    expect(live.answered('never-sent', 3)).toBe(false)
  })

  it('reads everything for a payload it cannot read, for more names than one read carries, or when asked', () => {
    for (const data of [null, 'demo', { ns: 'demo' }, { ns: 7, revision: 1 }, { ns: 'demo', revision: 1, scope: 3 }]) {
      const live = new LiveRefresh()
      expect(live.hear(documentUpdated(data), global)).toBe(true)
      expect(live.take(200)).toEqual({ kind: 'all' })
    }
    const live = new LiveRefresh()
    for (const ns of ['a', 'b', 'c']) live.mark(ns)
    expect(live.take(2)).toEqual({ kind: 'all' })
    live.markAll()
    expect(live.take(200)).toEqual({ kind: 'all' })
  })

  it('forgets what it gathered and the writes in flight on reset', () => {
    const live = new LiveRefresh()
    live.mark('demo')
    live.sent('range')
    live.hear(documentUpdated({ ns: 'range', revision: 9 }), global)
    live.reset()
    expect(live.answered('range', 1)).toBe(false)
    expect(live.take(200)).toEqual({ kind: 'none' })
  })
})
