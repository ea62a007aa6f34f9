/**
 * A reader that finds the document missing looks for an aside of it, and the replace that set it aside can
 * end between the two: the look then finds nothing aside while the document is back. Forced here by a look
 * that puts the document back just before it answers; the reader must read again, not take the document
 * for deleted.
 */
import { readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it, vi } from 'vitest'
import { plugWithSettings } from 'dsh-testing'
import { asideName, tempName } from '../src/store/leftovers.ts'
import { currentOwner } from '../src/store/owner.ts'
import { bootFile, fileFixture } from './file-harness.ts'

/** When set, the next look for an aside runs this first (a replace ending meanwhile), then answers as it finds. */
const race = vi.hoisted(() => ({ before: undefined as (() => void) | undefined, looks: 0 }))

vi.mock('../src/store/leftovers.ts', async (importOriginal) => {
  const leftovers = await importOriginal<typeof import('../src/store/leftovers.ts')>()
  return {
    ...leftovers,
    asideState: (...args: Parameters<typeof leftovers.asideState>) => {
      race.looks++
      const before = race.before
      race.before = undefined
      before?.()
      return leftovers.asideState(...args)
    },
  }
})

const fixture = fileFixture()

describe('a replace that ends between a read and the look for its aside', () => {
  it('is read again at start: the host starts with the document, not with defaults', async () => {
    const path = join(fixture.dir, 'settings.yaml')
    await writeFile(path, 'search:\n  limit: 5\n')
    const aside = join(dirname(path), asideName(tempName('settings.yaml', currentOwner())))
    await rename(path, aside)
    const { linkSync, unlinkSync } = await import('node:fs')
    race.looks = 0
    // The writer links its version back and drops its aside name just before the look: nothing aside, document back.
    race.before = () => {
      linkSync(aside, path)
      unlinkSync(aside)
    }
    fixture.harness = await bootFile({ path, watch: false })
    const { value: handle } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Schema.object({ limit: Schema.natural().default(10) })))
    expect(handle.get()).toEqual({ limit: 5 })
    expect(race.looks).toBe(1)
    expect(await readFile(path, 'utf8')).toBe('search:\n  limit: 5\n')
  })

  it('still takes a document missing with nothing aside, twice in a row, for deleted', async () => {
    const path = join(fixture.dir, 'settings.yaml')
    race.looks = 0
    fixture.harness = await bootFile({ path, watch: false })
    const { value: handle } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Schema.object({ limit: Schema.natural().default(10) })))
    expect(handle.get()).toEqual({ limit: 10 })
    expect(race.looks).toBe(2)
  })
})
