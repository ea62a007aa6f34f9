import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The temp directories one script run makes, so every one of them is removed
 * when the run ends, also from an 'exit' handler (hence synchronous).
 */
export class TempDirs {
  private readonly made = new Set<string>()

  /** @param prefix - names every directory `<prefix>-<name>-XXXXXX` under the system temp folder. */
  constructor(private readonly prefix: string) {}

  /** A fresh directory, realpath'd so paths compare equal to what a provider canonicalizes. */
  create(name: string): string {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), `${this.prefix}-${name}-`)))
    this.made.add(dir)
    return dir
  }

  /** Remove one directory now. */
  remove(dir: string): void {
    rmSync(dir, { recursive: true, force: true })
    this.made.delete(dir)
  }

  /** Remove every directory still around. */
  removeAll(): void {
    for (const dir of [...this.made]) this.remove(dir)
  }
}
