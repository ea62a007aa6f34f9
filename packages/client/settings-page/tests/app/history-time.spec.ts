/**
 * The history view names a kept version by the time it was written, in the
 * list and in the difference's heading, as `dsh settings history` does; never
 * by the time a later write replaced it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { showTime } from '../../src/app/format.ts'
import { versionTime } from '../../src/app/history.ts'
import { m, setPageLocale } from '../../src/app/i18n.ts'

const version = { id: 'v-2', writtenAt: '2026-12-07T10:00:00.000Z', replacedAt: '2026-12-07T10:04:00.000Z', by: ['wire' as const], sections: [{ ns: 'web-search' }] }

describe('the time of a kept version', () => {
  afterEach(() => setPageLocale('en-US'))

  it('is when it was written, and the list says so in both languages', () => {
    expect(versionTime(version)).toBe(version.writtenAt)
    for (const locale of ['en-US', 'zh-CN'] as const) {
      setPageLocale(locale)
      const written = showTime(versionTime(version))
      expect(written).not.toBe(showTime(version.replacedAt))
      expect(m.written(written)).toContain(written)
      expect(m.versionWritten(written, 'x')).toContain(written)
    }
    setPageLocale('en-US')
    expect(m.written('then')).toBe('Written then')
  })
})
