/**
 * The page's two languages: which one it starts in, that the switch keeps the
 * pick, that every text exists in both, and that the form model's problems are
 * said in the page's language (without the value typed).
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { initialPageLocale, messagesOf, nearestPageLocale, pageLocale, setPageLocale, showIssue } from '../../src/app/i18n.ts'
import { validateField } from '../../src/model/index.ts'
import { deploy, type Deployment } from '../model/harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  setPageLocale('en-US')
  await current?.dispose()
  current = undefined
})

function memoryStorage(): Storage {
  const items = new Map<string, string>()
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) } as Storage
}

describe('the page’s languages', () => {
  it('starts in the reader’s earlier pick, else the first browser language it speaks, else English', () => {
    const storage = memoryStorage()
    expect(initialPageLocale(storage, ['fr-FR', 'zh-TW', 'en-US'])).toBe('zh-CN')
    expect(initialPageLocale(storage, ['de', 'en-GB'])).toBe('en-US')
    expect(initialPageLocale(storage, ['ja'])).toBe('en-US')
    expect(initialPageLocale(undefined, [])).toBe('en-US')
    setPageLocale('zh-CN', storage)
    expect(pageLocale()).toBe('zh-CN')
    expect(initialPageLocale(storage, ['en-US'])).toBe('zh-CN')
    expect(nearestPageLocale('zh-Hant-HK')).toBe('zh-CN')
  })

  it('has every text in both languages, and the Chinese ones in Chinese', () => {
    const keys = (value: object, prefix = ''): string[] => Object.entries(value).flatMap(([key, inner]) => (inner && typeof inner === 'object' ? keys(inner, `${prefix}${key}.`) : [`${prefix}${key}`]))
    const en = messagesOf('en-US')
    const zh = messagesOf('zh-CN')
    expect(keys(zh).sort()).toEqual(keys(en).sort())
    expect(zh.settings).toMatch(/[\u4e00-\u9fff]/)
    expect(zh.resetField('limit', false)).toMatch(/[\u4e00-\u9fff]/)
  })

  it('says the form model’s problems in the page’s language, never quoting the value', async () => {
    current = await deploy(Schema.object({ name: Schema.string().max(5).pattern(/^[a-z]+$/), count: Schema.natural().max(9) }))
    const model = current.form()
    const [name, count] = model.root.children!
    const issues = validateField(model, name!, 'TOO-LONG-VALUE')
    expect(issues.map((issue) => issue.code)).toEqual(['max-length', 'pattern'])
    expect(issues[0]!.message).toBe('expected at most 5 characters')
    setPageLocale('zh-CN')
    expect(showIssue(issues[0]!)).toBe('最多 5 个字符')
    expect(showIssue(validateField(model, count!, 12)[0]!)).toBe('数字不能大于 9')
    expect(showIssue(issues[1]!)).not.toContain('TOO-LONG-VALUE')
    setPageLocale('en-US')
    expect(showIssue(issues[0]!)).toBe('expected at most 5 characters')
  })
})
