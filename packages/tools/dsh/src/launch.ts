#!/usr/bin/env node
/**
 * The published `dsh` executable (bundled to `dist/bin.cjs` by
 * `scripts/pack/bundle-bin.ts`). A `dsh settings get` runs `get.bundle.cjs`,
 * the whole `get` path in one CommonJS file, with the V8 code cache recorded
 * when the package was packed, so it compiles next to nothing before it
 * answers (a cache from another Node version, or for other bytes, is refused
 * by V8 itself and the bundle compiles as usual). Every other command imports
 * `bin.js` as `tsc` emitted it. With `DSH_RECORD_CODE_CACHE=<file>`, a `get`
 * writes the cache of what it compiled to that file (the packing does so once).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Script } from 'node:vm'

const [command, sub] = process.argv.slice(2)
if (command === 'settings' && sub === 'get') {
  const bundle = join(__dirname, 'get.bundle.cjs')
  let cachedData: Buffer | undefined
  try {
    cachedData = readFileSync(join(__dirname, 'get.bundle.cache'))
  } catch {
    // No cache shipped (a build that did not record one): the bundle compiles as any file would.
  }
  // The wrapper Node gives every CommonJS module. The bundle makes no `import()`: a script run this way could not.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8').replace(/^#!.*/, '')}\n})`
  const script = new Script(source, { filename: bundle, ...(cachedData ? { cachedData } : {}) })
  const record = process.env.DSH_RECORD_CODE_CACHE
  if (record) process.once('exit', () => writeFileSync(record, script.createCachedData()))
  const module = { exports: {} }
  ;(script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, require, module, bundle, __dirname)
} else {
  void import(pathToFileURL(join(__dirname, 'bin.js')).href)
}
