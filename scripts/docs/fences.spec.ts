import { describe, expect, it } from 'vitest'
import { extractFences } from './fences.ts'

const strip = (fences: ReturnType<typeof extractFences>) => fences.map(({ line, lang, meta, body }) => ({ line, lang, meta, body }))

describe('extractFences', () => {
  it('finds backtick and tilde fences with their language, the rest of the info string and the 1-based line', () => {
    const text = ['# title', '', '```ts title="x"', 'const a = 1', '```', 'prose', '~~~~YAML', 'a: 1', '~~~~', ''].join('\n')
    expect(strip(extractFences(text, 'doc.md'))).toEqual([
      { line: 3, lang: 'ts', meta: 'title="x"', body: 'const a = 1' },
      { line: 7, lang: 'yaml', meta: '', body: 'a: 1' },
    ])
  })

  it('closes a fence only with a run of its own character at least as long, so shorter runs and the other character stay inside', () => {
    const text = ['````md', '```ts', '~~~', '```', '````'].join('\n')
    expect(strip(extractFences(text, 'doc.md'))).toEqual([{ line: 1, lang: 'md', meta: '', body: '```ts\n~~~\n```' }])
  })

  it('takes an indented fence (a list item’s) and removes that indentation from its lines', () => {
    const text = ['- item:', '', '  ```', '  [W] one', '    indented more', '  ```'].join('\n')
    expect(strip(extractFences(text, 'doc.md'))).toEqual([{ line: 3, lang: '', meta: '', body: '[W] one\n  indented more' }])
  })

  it('reads inline code with a backtick info string as no fence, and runs an unclosed fence to the end', () => {
    const text = ['```not `a` fence```', 'text', '```sh', 'echo hi', ''].join('\r\n')
    expect(strip(extractFences(text, 'doc.md'))).toEqual([{ line: 3, lang: 'sh', meta: '', body: 'echo hi\n' }])
  })
})
