import { Context, Logger } from 'cordis'
import { describe, expect, it } from 'vitest'
import { formatLogValue } from '../src/log-format.ts'

class CodedError extends Error {
  override readonly name = 'CodedError'
  readonly code = 'SOME_CODE'
}

describe('formatLogValue', () => {
  it('shows an error by name, code, message and stack frames instead of {}', () => {
    const text = formatLogValue(new CodedError('the document is locked by pid 42'))
    expect(text.split('\n')[0]).toBe('CodedError [SOME_CODE]: the document is locked by pid 42')
    expect(text).toMatch(/\n\s+at /)
    expect(text).not.toBe('{}')
  })

  it('follows causes, once each', () => {
    const root = new Error('disk full')
    const outer = new Error('write failed', { cause: root })
    const text = formatLogValue(outer)
    expect(text).toContain('Error: write failed')
    expect(text).toContain('caused by Error: disk full')
    const loop = new Error('loop') as Error & { cause?: unknown }
    loop.cause = loop
    expect(formatLogValue(loop).match(/loop/g)).toHaveLength(1)
  })

  it('shows other objects as JSON, and what JSON cannot show as text', () => {
    expect(formatLogValue({ a: 1 })).toBe('{"a":1}')
    const circular: Record<string, unknown> = {}
    circular.self = circular
    expect(formatLogValue(circular)).toBe('[object Object]')
  })

  it('is what the deployment log prints for an error passed after the message', () => {
    const root = new Context()
    const lines: string[] = []
    const exporter = { colors: false as const, formatters: { o: formatLogValue }, export: (message: Parameters<typeof Logger.format>[1]) => lines.push(Logger.format(exporter, message)) }
    root.logger.exporter(exporter)
    root.logger('settings').warn('reloading failed:', new CodedError('bad'))
    expect(lines.join('\n')).toContain('reloading failed: CodedError [SOME_CODE]: bad')
  })
})
