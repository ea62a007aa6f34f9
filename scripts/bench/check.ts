/**
 * `dsh settings check` of a document with 40,000 keys against the file
 * provider's boot of the same document (issue 35: a check reads and judges,
 * it starts nothing, so it may cost at most twice the boot).
 *
 * Two documents for the repository's `cordis.yml` (web-search, assistant,
 * web-search again in preset/coder):
 * - declared: 40,000 keys the plugins' schemas declare, as a large real
 *   document holds them (7,999 assistant providers with a base URL and a key,
 *   7,996 web-search mirrors with a URL and a token): the check passes it
 *   without a line;
 * - undeclared (the same target): the sections with 40,000 more keys under
 *   `web-search` that its schema does not declare, as the check's own
 *   80,000-key test writes them: each is judged, placed and printed as a
 *   warning line.
 *
 * The check runs in process (`runDsh`, its lines collected, not printed); the
 * boot is `FileSettingsProvider` on the same file until `settings` is ready,
 * then the plugin entries of `cordis.yml` that register settings, plugged as
 * it plugs them. The boot has `watch: false` and no editor schema: it starts
 * nothing either, so the comparison is the strict one. Runs are paired and
 * alternate; one unrecorded run of each comes first (module loading and the
 * JIT), then the medians of {@link RUNS}.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runDsh } from 'dsh'
import * as assistant from 'dsh-example-assistant'
import * as webSearch from 'dsh-example-web-search'
import { createScope } from 'dsh-scope'
import FileSettingsProvider from 'dsh-settings-file'
import { bootProvider, removeTemp, tempDir, type Row } from './harness.ts'
import { median, now, summarize } from './stats.ts'

const KEYS = 40_000
const RUNS = 7
/** The default deployment, as `dsh settings check` with no arguments would read it. */
const DEPLOYMENT = fileURLToPath(new URL('../../cordis.yml', import.meta.url))
/** What the check's summary line must name: the plugins the boot below plugs. */
const JUDGED = '(namespaces: web-search, assistant; scopes: preset/coder)'

/** A document and the number of map keys it holds. */
interface Sample {
  text: string
  keys: number
}

/** `keys` keys (and a few more, counted) that the deployment's schemas declare. */
export function declaredDocument(keys: number): Sample {
  // 11 keys of the sections themselves, 3 per provider (its name and two fields), 2 per mirror.
  let providers = Math.floor(keys / 5)
  if ((keys - 11 - 3 * providers) % 2) providers--
  const mirrors = (keys - 11 - 3 * providers) / 2
  const lines = ['assistant:', '  model: large', '  providers:']
  for (let index = 0; index < providers; index++) lines.push(`    p${index}:`, `      baseUrl: https://p${index}.example/v1`, `      apiKey: sk-bench-${index}`)
  lines.push('web-search:', '  engine: google', '  limit: 20', '  mirrors:')
  for (let index = 0; index < mirrors; index++) lines.push(`    - url: https://m${index}.example/search`, `      token: tk-bench-${index}`)
  lines.push('scopes:', '  preset/coder:', '    web-search:', '      limit: 30', '')
  return { text: lines.join('\n'), keys: 11 + providers * 3 + mirrors * 2 }
}

/** The deployment's own sections (9 keys), with `keys` more under `web-search` that its schema does not declare. */
export function undeclaredDocument(keys: number): Sample {
  const lines = ['web-search:', '  engine: google', '  limit: 20']
  for (let index = 0; index < keys; index++) lines.push(`  key${index}: value${index}`)
  lines.push('assistant:', '  model: large', 'scopes:', '  preset/coder:', '    web-search:', '      limit: 30', '')
  return { text: lines.join('\n'), keys: 9 + keys }
}

/** One `dsh settings check <deployment> <file>` in process; throws unless it passed the document, naming what the boot plugs. */
async function checkOnce(file: string, cwd: string): Promise<{ ms: number; warnings: number }> {
  let lines = 0
  let summary = ''
  const begin = now()
  const code = await runDsh(['settings', 'check', DEPLOYMENT, file], {
    out: (line) => {
      lines++
      summary = line
    },
    err: () => {},
    cwd,
    env: {},
    conditions: ['source'],
  })
  const ms = now() - begin
  if (code !== 0 || !summary.startsWith('settings check: no problems') || !summary.endsWith(JUDGED)) throw new Error(`the check did not pass the document as expected (exit ${code}): ${summary}`)
  return { ms, warnings: lines - 1 }
}

/** One boot of the file provider on `file` with the deployment's settings plugins; disposed after. */
async function bootOnce(file: string): Promise<number> {
  const begin = now()
  const booted = await bootProvider(FileSettingsProvider, { path: file, watch: false, editorSchema: false })
  try {
    // The entries of cordis.yml that register settings, as it plugs them.
    await booted.root.plugin(webSearch, { engine: 'bing', limit: 10 }).await()
    await booted.root.plugin(assistant, { model: 'small' }).await()
    await createScope(booted.root, { name: 'preset/coder' }).ctx.plugin(webSearch, { engine: 'duckduckgo', limit: 20 }).await()
    return now() - begin
  } finally {
    await booted.dispose()
  }
}

/** The row of one document: the check's median over the boot's, judged against ≤ 2×. */
async function measure(id: string, label: string, sample: Sample): Promise<Row> {
  const dir = await tempDir('check')
  try {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, sample.text, { mode: 0o600 })
    await checkOnce(file, dir)
    await bootOnce(file)
    const checks: number[] = []
    const boots: number[] = []
    let warnings = 0
    for (let run = 0; run < RUNS; run++) {
      const check = await checkOnce(file, dir)
      checks.push(check.ms)
      warnings = check.warnings
      boots.push(await bootOnce(file))
    }
    const ours = median(checks)
    const comparison = median(boots)
    const ratio = ours / comparison
    return {
      id,
      measurement: `settings check, ${label}`,
      ours,
      comparison,
      comparisonLabel: "the file provider's boot of the same document (its plugins registered)",
      unit: 'ms',
      ratio,
      ratioKind: 'ours/comparison',
      target: '≤ 2×',
      met: ratio <= 2,
      detail: { runs: RUNS, keys: sample.keys, bytes: Buffer.byteLength(sample.text), warnings, check: summarize(checks), boot: summarize(boots), checkRuns: checks, bootRuns: boots },
    }
  } finally {
    await removeTemp(dir)
  }
}

/**
 * The rows, both held to issue 35's ≤ 2×: a document of declared keys, and one of undeclared keys,
 * where the check also describes, places and words a warning line per key (40,000 lines).
 */
export async function benchCheck(): Promise<Row[]> {
  return [
    await measure('check-40k-vs-boot', '40,000 keys', declaredDocument(KEYS)),
    await measure('check-40k-undeclared-vs-boot', '40,000 undeclared keys (a warning line each)', undeclaredDocument(KEYS)),
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await benchCheck()) console.log(`${row.id}: ${row.ours.toFixed(0)} ms vs ${row.comparison!.toFixed(0)} ms = ${row.ratio!.toFixed(2)}× (${JSON.stringify(row.detail!.keys)} keys, ${row.detail!.warnings} warnings)`)
}
