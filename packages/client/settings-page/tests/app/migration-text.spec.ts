/**
 * How the page words a migration's steps. What these tests prove: each step's
 * changes are said in the page's language (a move within one parent as a
 * rename, a move elsewhere, a drop, an old default, a function, a step that
 * changes nothing), with the page's path display; and a descriptor from a host
 * that sends no `changes` falls back to its English step names.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SettingsSectionMigration } from 'dsh-settings'
import { setPageLocale } from '../../src/app/i18n.ts'
import { stepList, stepsText } from '../../src/app/migration-text.ts'

const migration: SettingsSectionMigration = {
  version: 3,
  stored: 0,
  state: 'pending',
  steps: ['rename $.apiKey to $.token, move $.host to $.server.host', 'drop $.legacy, default $.retries', 'splitHost'],
  changes: [
    [
      { op: 'move', from: ['apiKey'], to: ['token'] },
      { op: 'move', from: ['host'], to: ['server', 'host'] },
    ],
    [
      { op: 'drop', path: ['legacy'] },
      { op: 'default', path: ['retries'] },
    ],
    [{ op: 'function', name: 'splitHost' }],
  ],
}

afterEach(() => setPageLocale('en-US'))

describe('stepsText', () => {
  it('says each step in English on the en-US page', () => {
    setPageLocale('en-US')
    expect(stepsText(migration)).toBe(' (rename apiKey to token, move host to server › host; remove legacy, keep the earlier default of retries; run splitHost)')
  })

  it('says each step in Chinese on the zh-CN page', () => {
    setPageLocale('zh-CN')
    expect(stepsText(migration)).toBe('（将 apiKey 重命名为 token，将 host 移至 server › host；删除 legacy，为 retries 保留此前的默认值；运行 splitHost）')
    expect(stepsText({ ...migration, steps: ['no change'], changes: [[]] })).toBe('（无变化）')
  })

  it('falls back to the English step names from a host that sends no changes, and says nothing without steps', () => {
    setPageLocale('zh-CN')
    const older = { ...migration, changes: undefined } as unknown as SettingsSectionMigration
    expect(stepsText(older)).toBe(`（${migration.steps.join('；')}）`)
    expect(stepsText({ ...migration, steps: [], changes: [] })).toBe('')
  })
})

describe('a migration in the history view', () => {
  it('words a version change’s steps from their data in the page’s language, and falls back to the host’s names', () => {
    const version = { before: 0, after: 1, steps: ['rename $.apiKey to $.token'], changes: [[{ op: 'move' as const, from: ['apiKey'], to: ['token'] }]] }
    setPageLocale('zh-CN')
    try {
      const [zh] = stepList(version)
      expect(zh).not.toBe('rename $.apiKey to $.token')
      expect(zh).toContain('apiKey')
      expect(/[\u4e00-\u9fff]/.test(zh!)).toBe(true)
    } finally {
      setPageLocale('en-US')
    }
    expect(stepList({ steps: ['splitHost'] })).toEqual(['splitHost'])
  })
})
