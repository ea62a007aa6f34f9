import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { extname, join, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'

/** Content types by extension; with `nosniff` on every response, a wrong one would break the page. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
}

/** The content type served for a file name; unknown extensions are opaque bytes. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
}

/** What a static lookup found. */
export type StaticLookup = { kind: 'file'; file: string; size: number } | { kind: 'missing' } | { kind: 'refused' }

/**
 * Serves the page assets of one directory. Paths are taken segment by
 * segment from the raw request target: a `..` or `.` segment, an encoded
 * slash, backslash or NUL, and dotfiles are refused before touching the disk,
 * and the file found must still lie inside the directory after symlinks are
 * resolved.
 */
export class StaticAssets {
  private root: string | undefined

  constructor(private readonly directory: string) {}

  /** Whether the directory exists now (a missing one is reported at start; every page answers 404 until it appears). */
  async exists(): Promise<boolean> {
    return stat(this.directory).then((info) => info.isDirectory(), () => false)
  }

  /** Resolve a raw request path (`/`, `/app.js`, `/sub/`) to a file under the directory. */
  async lookup(rawPath: string): Promise<StaticLookup> {
    const segments = rawPath.split('/').slice(1)
    const names: string[] = []
    for (const [index, raw] of segments.entries()) {
      // An empty segment is only a directory's trailing slash.
      if (raw === '') {
        if (index === segments.length - 1) continue
        return { kind: 'refused' }
      }
      let name: string
      try {
        name = decodeURIComponent(raw)
      } catch {
        return { kind: 'refused' }
      }
      if (name.startsWith('.') || /[/\\\0]/.test(name)) return { kind: 'refused' }
      names.push(name)
    }
    try {
      // Resolved once, on first use: the directory may be created after the server starts.
      this.root ??= await realpath(this.directory)
      let candidate = join(this.root, ...names)
      let info = await stat(candidate)
      if (info.isDirectory()) {
        candidate = join(candidate, 'index.html')
        info = await stat(candidate)
      }
      if (!info.isFile()) return { kind: 'missing' }
      const real = await realpath(candidate)
      if (!real.startsWith(this.root + sep)) return { kind: 'refused' }
      return { kind: 'file', file: real, size: info.size }
    } catch {
      return { kind: 'missing' }
    }
  }

  /** Send a found file (headers only for `HEAD`). The caller has set the common headers. */
  async send(found: { file: string; size: number }, response: ServerResponse, head: boolean): Promise<void> {
    response.statusCode = 200
    response.setHeader('Content-Type', contentTypeOf(found.file))
    response.setHeader('Content-Length', found.size)
    if (head) {
      response.end()
      return
    }
    await pipeline(createReadStream(found.file), response).catch(() => response.destroy())
  }
}
