/**
 * The file provider on exFAT through exfat-fuse: a file system without hard
 * links, where RENAME_EXCHANGE is refused (EINVAL) and modes do not exist, as
 * on USB sticks and some network and FUSE mounts. Every write must work there.
 * Needs root, /dev/fuse and the packages in {@link EXFAT_PACKAGES}; without
 * FUSE (and only then) the test skips, saying why.
 */
import { describe, expect, it } from 'vitest'
import { endJourney, providerJourney, type JourneyTrash } from './mounted-journey.ts'
import { EXFAT_PACKAGES, fileSystemType, fuseUnavailable, mountExfat } from './mounts.ts'

const unavailable = fuseUnavailable()
if (unavailable) console.warn(`\n!!! SKIPPED: the exFAT tests of dsh-settings-file (exfat.spec.ts): ${unavailable}. They need /dev/fuse, root and ${EXFAT_PACKAGES}.\n`)

describe('the file provider on exFAT (exfat-fuse)', () => {
  it('starts, writes, reloads a hand edit, keeps history and shares the document with a second process', { timeout: 90_000 }, async (context) => {
    context.skip(unavailable !== undefined, `no FUSE here: ${unavailable}`)
    const mounted = mountExfat()
    const trash: JourneyTrash = { children: [] }
    try {
      expect(fileSystemType(mounted.dir)).toBe('fuseblk')
      await providerJourney(mounted.dir, trash)
    } finally {
      await endJourney(trash)
      mounted.remove()
    }
  })
})
