import { describe, expect, it } from 'vitest'
import { classMembers, eventMembers, readSource } from './extract.ts'

const source = readSource(
  'sample.ts',
  `
export class Sample {
  private hidden() {}
  protected inner() {}
  static make() {}
  /**
   * Say hello.
   * @param name - who to greet.
   */
  greet(name: string,
        loud?: boolean): string {
    return name
  }
  /** The size. */
  get size(): number { return 1 }
  undocumented(): void {}
}
declare module 'cordis' {
  interface Events {
    /** Fired on change. */
    'settings/changed'(ns: string): void
    'other/thing'(): void
  }
}
`,
)

describe('catalog extraction', () => {
  it('lists public methods and getters with their JSDoc and one-line signatures, in order', () => {
    expect(classMembers(source, 'Sample')).toEqual([
      { name: 'greet', signature: 'greet(name: string, loud?: boolean): string', doc: '/**\n * Say hello.\n * @param name - who to greet.\n */' },
      { name: 'size', signature: 'get size(): number', doc: '/** The size. */' },
      { name: 'undocumented', signature: 'undocumented(): void', doc: '' },
    ])
  })

  it('answers undefined for a class the file does not declare', () => {
    expect(classMembers(source, 'Missing')).toBeUndefined()
  })

  it('lists the events with the given prefix from interface Events', () => {
    expect(eventMembers(source, 'settings/')).toEqual([{ name: 'settings/changed', signature: "'settings/changed'(ns: string): void", doc: '/** Fired on change. */' }])
  })
})
