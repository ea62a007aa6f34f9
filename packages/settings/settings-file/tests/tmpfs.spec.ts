/**
 * The file provider on tmpfs (a mount of its own when root, else /dev/shm):
 * the memory file system of /run, /tmp on many distributions, and containers.
 */
import { describe, expect, it } from 'vitest'
import { endJourney, providerJourney, type JourneyTrash } from './mounted-journey.ts'
import { fileSystemType, mountTmpfs } from './mounts.ts'

describe('the file provider on tmpfs', () => {
  it('starts, writes, reloads a hand edit, keeps history and shares the document with a second process', { timeout: 90_000 }, async () => {
    const mounted = mountTmpfs()
    const trash: JourneyTrash = { children: [] }
    try {
      expect(fileSystemType(mounted.dir)).toBe('tmpfs')
      await providerJourney(mounted.dir, trash)
    } finally {
      await endJourney(trash)
      mounted.remove()
    }
  })
})
