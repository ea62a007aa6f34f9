/**
 * The secret scan's search of what a deployment keeps on disk beside its
 * document: the document itself, its editor schema (`<stem>.schema.json`)
 * and everything under `history/` (every kept version and the journal). With
 * secrets kept out of the document (`secrets: file | keyring`) none of these
 * may hold a secret written through the settings; only a value a user typed
 * into the document by hand may stay there (and in the versions that kept it).
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { scanText, type Leak, type SecretLedger, type SecretOrigin } from './secret-search.ts'

/** Searches one deployment's files; a kept version already searched is searched again only when it changed. */
export class DiskSearch {
  private readonly searched = new Map<string, string>()
  /** Files read so far (a changed one counts again). */
  files = 0

  /**
   * @param file the document's path
   * @param legitimate secrets that may be on disk: those the scan itself wrote into the document by hand
   */
  constructor(
    readonly file: string,
    private readonly legitimate: (origin: SecretOrigin) => boolean = () => false,
  ) {}

  /** The leaks in the document, the editor schema and `history/` now. */
  async scan(ledger: SecretLedger): Promise<Leak[]> {
    const folder = dirname(this.file)
    const stem = basename(this.file, extname(this.file))
    const leaks: Leak[] = []
    const places = [
      { path: this.file, surface: 'document on disk' },
      { path: join(folder, `${stem}.schema.json`), surface: 'editor schema on disk' },
      ...(await historyFiles(join(folder, 'history'))).map((path) => ({ path, surface: path.endsWith('.jsonl') ? 'history journal' : 'kept version in history/' })),
    ]
    for (const { path, surface } of places) {
      const info = await stat(path).catch(() => undefined)
      if (!info?.isFile()) continue
      const stamp = `${info.mtimeMs}:${info.size}:${info.ino}`
      if (this.searched.get(path) === stamp) continue
      const text = await readFile(path, 'utf8').catch(() => undefined)
      if (text === undefined) continue
      this.searched.set(path, stamp)
      this.files++
      // Kept versions are grouped as one place (their names differ per write); the document, schema and journal by name.
      leaks.push(...scanText(surface, text, ledger, surface === 'kept version in history/' ? 'a kept version' : basename(path)).filter((leak) => !(leak.origin && this.legitimate(leak.origin))))
    }
    return leaks
  }
}

/** Every regular file under `dir` (none when it does not exist). */
async function historyFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? (entry as { path?: string }).path ?? dir, entry.name))
}

/** Whether `secrets.yaml` beside the document holds any secret of `ledger`. */
export async function secretsFileHolds(file: string, ledger: SecretLedger): Promise<boolean> {
  return ledger.holds(await readFile(join(dirname(file), 'secrets.yaml'), 'utf8').catch(() => ''))
}

/** Whether the store file beside the document (`secrets.yaml`) or the document holds any secret: the search's self-check. */
export async function storeHolds(file: string, ledger: SecretLedger): Promise<boolean> {
  const texts = await Promise.all([file, join(dirname(file), 'secrets.yaml')].map((path) => readFile(path, 'utf8').catch(() => '')))
  return texts.some((text) => ledger.holds(text))
}
