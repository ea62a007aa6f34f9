/**
 * `dsh settings history` names each kept version by the time it was written,
 * as the settings page does, never by the time a later write replaced it.
 */
import { describe, expect, it } from 'vitest'
import { historyLines } from '../src/values/format.ts'

describe('dsh settings history: the time of a version', () => {
  it('is when the version was written, said as such, not when it was replaced', () => {
    const lines = historyLines({
      versions: [{ id: 'v-2', writtenAt: '2026-12-07T10:00:00.000Z', replacedAt: '2026-12-07T10:04:00.000Z', by: ['wire'], sections: [{ ns: 'web-search' }] }],
    })
    expect(lines).toEqual(['v-2  written 2026-12-07T10:00:00.000Z  by wire  web-search'])
    expect(lines.join('\n')).not.toContain('10:04')
  })
})
