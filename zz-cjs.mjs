import { build } from 'esbuild'
import { resolve, relative, join } from 'node:path'
const DSH = resolve('packages/tools/dsh')
const OUTSIDE = ['values/set.ts', 'values/provider-way.ts', 'values/session.ts', 'main.ts']
const ext = new Set(['yaml', 'dsh-loader', 'dsh-settings-file/codec'])
await build({ entryPoints: [join(DSH, 'src/bin.ts')], outfile: join(DSH, 'dist/bin.cjs'), bundle: true, platform: 'node', format: 'cjs', target: 'node20', conditions: ['source'], minify: true, keepNames: true, logLevel: 'warning',
  plugins: [{ name: 'o', setup(b) {
    b.onResolve({ filter: /^[^.]/ }, (a) => ext.has(a.path) ? { path: a.path, external: true } : undefined)
    b.onResolve({ filter: /\.ts$/ }, (a) => { if (!a.path.startsWith('.')) return; const f = resolve(a.resolveDir, a.path); const rel = relative(join(DSH, 'src'), f); return OUTSIDE.includes(rel) ? { path: './' + rel.replace(/\.ts$/, '.js'), external: true } : undefined })
  } }] })
