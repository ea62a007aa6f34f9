import { describe, expect, it } from 'vitest'
import { blockCommands, matchLine, normalizeOutput, outputMismatch } from './compare.ts'
import type { Fence } from './fences.ts'

const fence = (lang: string, body: string): Fence => ({ file: 'doc.md', line: 1, lang, meta: '', body })

describe('blockCommands', () => {
  it('reads a console transcript: commands after `$ `, continuation lines, and the output up to the next command', () => {
    const block = fence('console', ['$ curl -s "$URL" \\', '  -d \'{}\'', '{"value":1}', '', '$ dsh settings check', '$ dsh get x', 'x: 1'].join('\n'))
    expect(blockCommands(block)).toEqual([
      { line: 'curl -s "$URL" \\\n  -d \'{}\'', expected: ['{"value":1}'] },
      { line: 'dsh settings check' },
      { line: 'dsh get x', expected: ['x: 1'] },
    ])
  })

  it('reads an sh block as commands only, leaving out blank lines and whole-line comments', () => {
    const block = fence('sh', ['# a comment', 'npx dsh start   # until Ctrl-C', '', 'curl -s a \\', '  -H b'].join('\n'))
    expect(blockCommands(block)).toEqual([{ line: 'npx dsh start   # until Ctrl-C' }, { line: 'curl -s a \\\n  -H b' }])
  })
})

describe('matching printed output', () => {
  it('lets … stand for any text within one line, and nothing else', () => {
    expect(matchLine('{"value":{"ns":"web-search",…}}', '{"value":{"ns":"web-search","revision":7}}')).toBe(true)
    expect(matchLine('id: …', 'id: 12')).toBe(true)
    expect(matchLine('{"value":{"ns":"web-search",…}}', '{"value":{"ns":"assistant"}}')).toBe(false)
    expect(matchLine('a.b (c)', 'aXb (c)')).toBe(false)
  })

  it('normalizes colors, the test’s folders and loopback ports before comparing', () => {
    const printed = '\x1b[32m[I]\x1b[39m remote API: http://127.0.0.1:40123/#token=abc\n/tmp/x/home/settings.yaml:3:10: bad\n\n'
    expect(normalizeOutput(printed, [['/tmp/x/home', '.dsh']])).toEqual(['[I] remote API: http://127.0.0.1:5140/#token=abc', '.dsh/settings.yaml:3:10: bad'])
  })

  it('holds plain output to every line in order, and log lines to each shown line in any order', () => {
    expect(outputMismatch(['a', 'b'], ['a', 'b'])).toBeUndefined()
    expect(outputMismatch(['a', 'b'], ['b', 'a'])).toContain('the doc shows')
    expect(outputMismatch(['a'], ['a', 'extra'])).toContain('the doc shows')
    expect(outputMismatch(['[I] two', '[I] one …'], ['$ pnpm start', '[I] one x', '[I] two'])).toBeUndefined()
    expect(outputMismatch(['[I] one …', '[I] one …'], ['[I] one x'])).toContain('not printed:\n[I] one …')
  })
})
