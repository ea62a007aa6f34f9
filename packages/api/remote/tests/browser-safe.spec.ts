/**
 * The client entry points must load in a browser: walking their relative
 * imports, no module imports a Node built-in or touches Node-only globals.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const SRC = new URL('../src/', import.meta.url)

/** Every module reachable from `entry` through relative imports (static or dynamic), with its text. */
function graph(entry: string): Map<string, string> {
  const seen = new Map<string, string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    const text = readFileSync(new URL(file, SRC), 'utf8')
    seen.set(file, text)
    for (const match of text.matchAll(/(?:import|export)[^'"]*from '\.\/([^']+)'|import\('\.\/([^']+)'\)/g)) visit((match[1] ?? match[2])!)
  }
  visit(entry)
  return seen
}

describe.each(['client.ts', 'client-plugin.ts'])('%s', (entry) => {
  it('reaches no Node built-in and no Node-only global', () => {
    const modules = graph(entry)
    expect(modules.size).toBeGreaterThan(1)
    for (const [file, text] of modules) {
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      expect(code, file).not.toMatch(/from '(node:|fs|path|http|crypto|os|net|stream)/)
      expect(code, file).not.toMatch(/\b(Buffer|process|require|__dirname)\b/)
    }
  })
})
