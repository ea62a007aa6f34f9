/**
 * Something other than a regular file at the document path: a real FIFO (`mkfifo`), a real unix
 * socket, a directory, /dev/null through a symlink, and a character device node (`mknod`, as root).
 * Each is refused at once, at boot or swapped in while the provider runs: never opened for a
 * blocking read, a typed error naming the path, one warning, the last good settings kept.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, lstatSync, openSync, writeSync, type Stats } from 'node:fs'
import { mkdir, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import { SettingsDocumentError, SettingsNotAFileError } from 'dsh-settings-file'
import { setTimeout as sleep } from 'node:timers/promises'
import { bootFile, eventually, fileFixture, type FileHarness } from './file-harness.ts'

const schema = () => Schema.object({ limit: Schema.number().default(5) })
type Search = SettingsScope<ReturnType<ReturnType<typeof schema>>>

const fx = fileFixture()
const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done))
})

async function register(h: FileHarness): Promise<Search> {
  let scope!: Search
  await h.root.inject(['settings'], (ctx) => {
    scope = ctx.settings.register('web-search', schema())
  })
  return scope
}

/** A way to make something that is not a regular file at `path`, what `lstat` then says of it, and the kind reported. */
interface Special {
  name: string
  kind: SettingsNotAFileError['kind']
  make(path: string): Promise<void>
  is(info: Stats): boolean
}

const SPECIALS: Special[] = [
  { name: 'a FIFO', kind: 'FIFO', make: async (path) => void execFileSync('mkfifo', [path]), is: (info) => info.isFIFO() },
  {
    name: 'a unix socket',
    kind: 'socket',
    make: async (path) => {
      const server = createServer()
      servers.push(server)
      await new Promise<void>((listening, failed) => server.once('error', failed).listen(path, listening))
    },
    is: (info) => info.isSocket(),
  },
  { name: 'a directory', kind: 'directory', make: (path) => mkdir(path), is: (info) => info.isDirectory() },
  { name: '/dev/null through a symlink', kind: 'character device', make: (path) => symlink('/dev/null', path), is: (info) => info.isSymbolicLink() },
  // A device node of its own (what /dev/null is); making one needs root, as this suite runs.
  { name: 'a character device node', kind: 'character device', make: async (path) => void execFileSync('mknod', [path, 'c', '1', '3']), is: (info) => info.isCharacterDevice() },
]

/** The warnings a harness logged about the document not being a regular file. */
const notAFileWarnings = (h: FileHarness) => h.logs.filter((line) => line.includes('not a regular file'))

describe.each(SPECIALS)('$name at the document path', (special) => {
  it('fails the load at once with a typed error naming the path', async () => {
    const document = join(fx.dir, 'settings.yaml')
    await special.make(document)
    const failure = await bootFile({ path: document, editorSchema: false }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(SettingsNotAFileError)
    expect(failure).toBeInstanceOf(SettingsDocumentError)
    expect(failure).toMatchObject({ name: 'SettingsNotAFileError', code: 'SETTINGS_NOT_A_FILE', refusal: 'rejected', file: document, kind: special.kind })
    expect((failure as Error).message).toContain(document)
    expect(special.is(lstatSync(document))).toBe(true)
  })

  it('swapped in while running: one warning, the last good settings kept, writes refused, then the file is read again once it is a file', async () => {
    const document = join(fx.dir, 'settings.yaml')
    await writeFile(document, 'web-search:\n  limit: 1\n')
    fx.harness = await bootFile({ path: document, debounceMs: 10, recheckMs: 20, editorSchema: false })
    const search = await register(fx.harness)
    expect(search.get().limit).toBe(1)

    if (special.kind === 'directory') {
      await unlink(document)
      await special.make(document)
    } else {
      // Swapped in by a rename, as an atomic replace would.
      await special.make(join(fx.dir, 'incoming'))
      await rename(join(fx.dir, 'incoming'), document)
    }
    await eventually(() => expect(notAFileWarnings(fx.harness!)).toHaveLength(1))
    const warning = notAFileWarnings(fx.harness)[0]!
    expect(warning).toContain(document)
    expect(warning).toContain(`is a ${special.kind}`)
    expect(warning).toContain('keeping the last good settings')
    expect(search.get().limit).toBe(1)

    const refused = await search.update({ limit: 2 }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toMatchObject({ code: 'SETTINGS_NOT_A_FILE', refusal: 'rejected', kind: special.kind })
    expect((refused as Error).message).toContain(document)
    expect(special.is(lstatSync(document))).toBe(true)
    expect(search.get().limit).toBe(1)

    // Many re-checks later, still the one warning (it names a state of the file, not each look at it).
    await sleep(200)
    expect(notAFileWarnings(fx.harness)).toHaveLength(1)

    await rm(document, { recursive: true })
    await writeFile(document, 'web-search:\n  limit: 3\n')
    await eventually(() => expect(search.get().limit).toBe(3))
    await search.update({ limit: 4 })
    expect(await readFile(document, 'utf8')).toBe('web-search:\n  limit: 4\n')
  })
})

describe('a FIFO that someone writes into', () => {
  it('is refused too, and what was written into it is never read as the document', async () => {
    const document = join(fx.dir, 'settings.yaml')
    await writeFile(document, 'web-search:\n  limit: 1\n')
    fx.harness = await bootFile({ path: document, debounceMs: 10, recheckMs: 20, editorSchema: false })
    const search = await register(fx.harness)
    execFileSync('mkfifo', [join(fx.dir, 'incoming')])
    await rename(join(fx.dir, 'incoming'), document)
    // A process holding the FIFO open (both ends, which Linux allows without blocking) with a document
    // waiting in it: an open for reading would not block here, and a read would take those bytes.
    const writer = openSync(document, 'r+')
    try {
      writeSync(writer, 'web-search:\n  limit: 66\n')
      await eventually(() => expect(notAFileWarnings(fx.harness!)).toHaveLength(1))
      await expect(search.update({ limit: 2 })).rejects.toMatchObject({ code: 'SETTINGS_NOT_A_FILE' })
      expect(search.get().limit).toBe(1)
    } finally {
      closeSync(writer)
    }
  })
})
