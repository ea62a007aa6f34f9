/**
 * Real-files stages about links: a document that is a symlink into a
 * dotfiles folder (to an existing file, to one not created yet, retargeted
 * while the host runs), and a document with a second hard link.
 */
import { chmod, link, lstat, mkdir, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { StageContext } from './real-files-context.ts'
import type { FilesHost } from './real-files-host.ts'
import { baseDocument, documentSecrets, limitLine, limitOf, lostBytes, readRegular, regularFiles } from './real-files-judge.ts'

/** A dotfiles folder, a deployment folder, and the document's path as a symlink into the first. */
async function linkedLayout(c: StageContext, names: string[] = ['dotfiles']): Promise<{ deploy: string; link: string; targets: string[]; linkText: (target: string) => string }> {
  const deploy = join(c.dir, 'deploy')
  await mkdir(deploy, { mode: 0o700 })
  const targets: string[] = []
  for (const name of names) {
    await mkdir(join(c.dir, name), { mode: 0o700 })
    targets.push(join(c.dir, name, 'settings.yaml'))
  }
  // Odd variations link by a relative path, as `ln -s ../dotfiles/settings.yaml` does.
  const relative = c.variation % 2 === 1
  c.variant = relative ? 'a relative link' : 'an absolute link'
  const linkText = (target: string) => (relative ? join('..', target.slice(c.dir.length + 1)) : target)
  return { deploy, link: join(deploy, 'settings.yaml'), targets, linkText }
}

/**
 * Secrets found in a dotfiles folder beyond its own document: kept versions,
 * temp files and copies of a document that should have stayed in the
 * deployment's own `history/`.
 */
function scanDotfiles(c: StageContext, folder: string, document: string): void {
  for (const file of regularFiles(folder)) {
    if (file === document) continue
    const found = c.tally.sentinels.foundIn(readRegular(file) ?? '')
    c.counts.leakedValues += found.length
    if (found.length) c.note(`${found.length} secret(s) in ${file.slice(c.dir.length + 1)}, beside the link's target`)
  }
}

/** Ask for the history and compare the newest version: their answers join the leak scan. */
async function browseHistory(c: StageContext, host: FilesHost): Promise<void> {
  const history = await c.call(host, 'history', [])
  const newest = history.kind === 'value' ? (history.value as { versions: { id: string }[] }).versions[0] : undefined
  if (newest) await c.call(host, 'compare', [newest.id])
}

/** Write `limit` and check it landed in `target` with every other byte of `before`, through an intact link. */
async function writeThrough(c: StageContext, host: FilesHost, link: string, linkText: string, target: string, before: string, limit: number): Promise<string> {
  const landed = await c.setLimit(host, limit)
  c.checkLink(link, linkText)
  const after = readRegular(target)
  if (!landed) return before
  if (after === undefined || limitOf(after) !== limit) {
    c.counts.brokenLinks++
    c.note(`an acknowledged write is not in the link's target (it holds limit ${limitOf(after)}, not ${limit})`)
    return before
  }
  const lost = lostBytes(before, after, limitLine)
  c.counts.lostBytes += lost
  if (lost) c.note(`a write through the link lost ${lost} bytes of the target`)
  return after
}

/** `settings.yaml` is a symlink to an existing file in a dotfiles folder. */
export async function symlinkExisting(c: StageContext): Promise<void> {
  const { deploy, link, targets, linkText } = await linkedLayout(c)
  const target = targets[0]!
  let text = baseDocument(documentSecrets(c.tally.sentinels))
  await writeFile(target, text, { mode: 0o600 })
  await symlink(linkText(target), link)
  const host = await c.host({ file: link, home: deploy })
  if (c.upright(host)) {
    for (let write = 0; write < 2 + (c.variation % 3); write++) text = await writeThrough(c, host, link, linkText(target), target, text, 11 + write)
    await browseHistory(c, host)
  }
  await c.stop(host)
  c.checkLink(link, linkText(target))
  scanDotfiles(c, join(target, '..'), target)
}

/** `settings.yaml` is a symlink to a file not created yet: the first write must create it (0600) through the link. */
export async function symlinkDangling(c: StageContext): Promise<void> {
  const { deploy, link, targets, linkText } = await linkedLayout(c)
  const target = targets[0]!
  await symlink(linkText(target), link)
  const host = await c.host({ file: link, home: deploy })
  if (c.upright(host)) {
    const secret = c.tally.sentinels.make('dangling-key')
    if (await c.setLimit(host, 12, [{ op: 'set', path: ['apiKey'], value: secret }])) {
      const created = await lstat(target).catch(() => undefined)
      if (!created?.isFile()) c.wrong(`an acknowledged write left no file at the link's target`)
      else if ((created.mode & 0o777) !== 0o600) {
        c.counts.changedModes++
        c.note(`the target was created with mode ${(created.mode & 0o777).toString(8)}, not 600`)
      }
      if (limitOf(readRegular(target)) !== 12) c.wrong(`the created target does not hold the acknowledged write`)
      const before = readRegular(target) ?? ''
      await writeThrough(c, host, link, linkText(target), target, before, 13)
    }
    await browseHistory(c, host)
  }
  c.checkLink(link, linkText(target))
  await c.stop(host)
  scanDotfiles(c, join(target, '..'), target)
}

/** The link is pointed at another file while the host runs: the next read and write must follow it. */
export async function symlinkRetarget(c: StageContext): Promise<void> {
  const { deploy, link, targets, linkText } = await linkedLayout(c, ['dotfiles-a', 'dotfiles-b'])
  const [first, second] = targets as [string, string]
  let firstText = baseDocument(documentSecrets(c.tally.sentinels), 10)
  let secondText = baseDocument(documentSecrets(c.tally.sentinels), 20)
  await writeFile(first, firstText, { mode: 0o600 })
  await writeFile(second, secondText, { mode: 0o600 })
  await symlink(linkText(first), link)
  const host = await c.host({ file: link, home: deploy })
  if (c.upright(host)) {
    firstText = await writeThrough(c, host, link, linkText(first), first, firstText, 31)
    const firstBytes = await readFile(first)
    // Retarget as `ln -sfn` does: a new link renamed over the old one.
    await symlink(linkText(second), `${link}.new`)
    await rename(`${link}.new`, link)
    c.tally.edits++
    if (!(await readsLimit(c, host, 20))) {
      c.counts.brokenLinks++
      c.note('after the link was retargeted, the host kept reading the old target')
    }
    secondText = await writeThrough(c, host, link, linkText(second), second, secondText, 32)
    if (!(await readFile(first)).equals(firstBytes)) {
      c.counts.brokenLinks++
      c.note('a write after the link was retargeted changed the old target')
    }
    await browseHistory(c, host)
  }
  await c.stop(host)
  scanDotfiles(c, join(first, '..'), first)
  scanDotfiles(c, join(second, '..'), second)
}

/** Whether the host's `web-search.limit` reads `limit` within a few seconds (its watcher and re-check must follow the link). */
async function readsLimit(c: StageContext, host: FilesHost, limit: number): Promise<boolean> {
  for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
    const described = await c.call(host, 'describe', [])
    if (described.kind !== 'value') return false
    const view = (described.value as { namespaces: { ns: string; value: { limit?: number } }[] }).namespaces.find((entry) => entry.ns === 'web-search')
    if (view?.value.limit === limit) return true
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return false
}

/** The document has a second hard link elsewhere (mode 0644): nothing the provider does may change that name's bytes or mode. */
export async function hardLink(c: StageContext): Promise<void> {
  const text = baseDocument(documentSecrets(c.tally.sentinels))
  const { deploy, file } = await c.deployment(text)
  const elsewhere = join(c.dir, 'elsewhere')
  await mkdir(elsewhere, { mode: 0o755 })
  const other = join(elsewhere, 'settings-copy.yaml')
  await chmod(file, 0o644)
  await link(file, other)
  const otherBytes = await readFile(other)
  const host = await c.host({ file, home: deploy })
  const check = async (when: string) => {
    const now = await stat(other)
    if ((now.mode & 0o777) !== 0o644 || !(await readFile(other)).equals(otherBytes)) {
      c.counts.changedModes++
      c.note(`${when}, the other hard link has mode ${(now.mode & 0o777).toString(8)} (was 644)${(await readFile(other)).equals(otherBytes) ? '' : ' and other bytes'}`)
    }
  }
  if (c.upright(host)) {
    let before = text
    for (let write = 0; write < 2 + (c.variation % 2); write++) {
      if (!(await c.setLimit(host, 21 + write))) continue
      const after = readRegular(file) ?? ''
      const lost = lostBytes(before, after, limitLine)
      c.counts.lostBytes += lost
      before = after
      await check(`after write ${write + 1}`)
    }
    await browseHistory(c, host)
  }
  await c.stop(host)
  await check('after the host stopped')
}
