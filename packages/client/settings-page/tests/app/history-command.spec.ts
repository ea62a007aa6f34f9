import { afterEach, describe, expect, it } from 'vitest'
import { whoMadeIt } from '../../src/app/history.ts'
import { setPageLocale } from '../../src/app/i18n.ts'

afterEach(() => setPageLocale('en-US'))

describe('a version the dsh command wrote with no host running', () => {
  it('is said to be by the command, in both languages, beside the host’s own origins', () => {
    expect(whoMadeIt(['command'])).toBe('the dsh command (no host running)')
    expect(whoMadeIt(['command', 'wire'])).toBe('the dsh command (no host running) and this host (wire)')
    setPageLocale('zh-CN')
    expect(whoMadeIt(['command'])).toBe('dsh 命令（无宿主运行时）')
  })
})
