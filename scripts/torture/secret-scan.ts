/**
 * Secret scan: generated schemas with a `role('secret')` field in every
 * position (see secret-schemas.ts) are registered on the real stack (YAML
 * file provider watching its document, controller, remote server), a fresh
 * secret is set by every way in (see secret-case.ts), and the secret bytes are
 * searched for in every wire answer (describe, writes, errors), every frame
 * of `/remote/events`, every error a caller saw (in-process and wire), every
 * log line as the deployment prints it, every process warning, and once per
 * run the settings page in headless chromium (secret-page.ts). A leak is
 * reported by surface and place, never by the secret itself.
 */
import { removeTemp, sleep, tempDir } from './harness.ts'
import type { Row } from './report.ts'
import { registerSecretKind, runSecretCase } from './secret-case.ts'
import { DiskSearch, storeHolds } from './secret-disk.ts'
import { scanPage, type PageScan } from './secret-page.ts'
import { buildSecretSchema, FIRST_PASS_PLANS, secretPlans } from './secret-schemas.ts'
import { groupLeaks, scanEventStream, scanLogs, scanText, SecretLedger, type Leak } from './secret-search.ts'
import { scanSources, type SourcesScan } from './secret-sources.ts'
import { bootStack } from './stack.ts'

/** Seconds kept for the browser part (build, launch, load, two scans) and the source sessions (two host processes); the schema loop gets the rest, at least half. */
const PAGE_SECONDS = 6
const SOURCES_SECONDS = 6

/** Run the scan for about `seconds`; one row. */
export async function secretScan(seconds: number): Promise<Row[]> {
  const ledger = new SecretLedger()
  const leaks: Leak[] = []
  const misses: string[] = []
  const searched = { answers: 0, frames: 0, logs: 0, texts: 0, warnings: 0 }
  const positions = new Set<string>()
  let schemas = 0
  let handEdits = 0
  let valuesSet = 0
  /** Cases whose document did not hold their last secret: the search itself would be blind (a self-check). */
  let blind = 0
  const warnings: string[] = []
  const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', onWarning)
  const dir = await tempDir('secrets')
  const stack = await bootStack(dir, { document: '# torture: secret scan\n', watch: true })
  let page: PageScan | undefined
  let sources: SourcesScan | undefined
  // Only a value the scan typed into the document by hand may be on disk beside it (the user's own doing).
  const disk = new DiskSearch(stack.file, (origin) => origin.setBy.startsWith('hand edit'))
  try {
    // Another plugin's listener that quotes the value it was told about when it throws: its log line must not carry it.
    stack.root.on('settings/updated', (_ns, next) => {
      if ((next as { note?: string } | undefined)?.note === 'EVENT') throw new Error(`listener cannot take ${JSON.stringify(next)}`)
    })
    const events = await stack.openEvents()
    /** Search the answers and log lines recorded since the last search (a late reload's lines included). */
    const searchRecords = () => {
      for (const answer of stack.answers.slice(searched.answers)) leaks.push(...scanText(`wire answer ${new URL(answer.url).pathname} (HTTP ${answer.status})`, answer.body, ledger))
      leaks.push(...scanLogs(stack.logs.slice(searched.logs), ledger))
      searched.answers = stack.answers.length
      searched.logs = stack.logs.length
    }
    const deadline = Date.now() + Math.max(seconds / 2, seconds - PAGE_SECONDS - SOURCES_SECONDS) * 1000
    const plans = secretPlans()
    // Every position is tried at least once, even when that takes longer than the quick run's share.
    while (Date.now() < deadline || schemas < FIRST_PASS_PLANS) {
      const secrets = buildSecretSchema(plans.next().value!)
      const ns = `sec-${++schemas}`
      for (const part of [...secrets.plan.chain, secrets.plan.leaf, ...(secrets.plan.scoped ? ['scoped'] : []), ...(secrets.plan.withBase ? ['base'] : []), ...(secrets.plan.recursive ? ['recursive'] : [])]) positions.add(part)
      if (!secrets.plan.chain.length) positions.add('top-level')
      const kind = await registerSecretKind(stack, ns, secrets, ledger)
      const record = await runSecretCase(stack, ns, secrets, kind.scope, ledger)
      handEdits += record.handEdits
      valuesSet += record.set
      misses.push(...record.misses)
      // With `secrets: file` (the default) a written secret lives in secrets.yaml, a hand-typed one in the document.
      if (!(await storeHolds(stack.file, ledger))) blind++
      // Let watchers, listeners and the event stream catch up before this case's records are searched.
      await sleep(50)
      searchRecords()
      leaks.push(...(await disk.scan(ledger)))
      for (const { surface, text } of record.texts) leaks.push(...scanText(surface, text, ledger, 'text'))
      searched.texts += record.texts.length
      // Reset the sections (no secret stays in the file) and end the registrations, so describes stay small.
      for (const scope of [undefined, kind.scope, 'preset/nobody']) await stack.settings.replace(ns, {}, undefined, scope).catch(() => {})
      await kind.dispose()
    }
    await sleep(200)
    searchRecords()
    leaks.push(...(await disk.scan(ledger)))
    sources = await scanSources(ledger)
    leaks.push(...sources.leaks)
    const stream = events.text()
    events.stop()
    leaks.push(...scanEventStream(stream, ledger))
    searched.frames = stream.split('\n\n').filter((frame) => frame.trim()).length
    for (const warning of warnings) leaks.push(...scanText('process warning', warning, ledger, 'warning'))
    searched.warnings = warnings.length
    page = await scanPage(ledger).catch((error: unknown): PageScan => ({ status: 'failed', note: error instanceof Error ? error.message.split('\n')[0]! : String(error), leaks: [], searched: 0 }))
    leaks.push(...page.leaks)
  } finally {
    process.off('warning', onWarning)
    await stack.dispose()
    await removeTemp(dir)
  }
  const groups = groupLeaks(leaks)
  return [
    {
      id: 'secrets',
      scenario: 'secret scan',
      ops: valuesSet,
      kills: 0,
      edits: handEdits,
      mustBeZero: { leaks: leaks.length, 'page scan errors': page?.status === 'failed' ? 1 : 0, 'blind searches': blind, 'source checks failed': sources?.misses.length ?? 1 },
      figures: {
        'schemas tried': schemas,
        'positions covered': [...positions].join(' '),
        'values set': valuesSet,
        'secrets searched for': ledger.count,
        'secrets by source': sources ? sourceFigure(valuesSet, sources) : 'source sessions not reached',
        'places searched': `wire answers ${searched.answers}, event frames ${searched.frames}, log lines ${searched.logs}, errors and in-process reads ${searched.texts}, process warnings ${searched.warnings}, files on disk ${disk.files}${sources ? `; source hosts: wire answers ${sources.searched.answers}, event frames ${sources.searched.frames}, output lines ${sources.searched.logs}, errors ${sources.searched.errors}, files on disk ${sources.searched.files}` : ''}`,
        page: page?.status === 'scanned' ? `${page.searched} texts (${page.note})` : `${page?.status === 'failed' ? 'FAILED' : 'SKIPPED'}: ${page?.note ?? 'not reached'}`,
        'leak kinds': groups.length,
        'ways in that missed': misses.length,
      },
      ...(page?.status === 'skipped' || sources?.keychainSkipped ? { note: [page?.status === 'skipped' ? `page part skipped: ${page.note}` : '', sources?.keychainSkipped ? `keychain source skipped: ${sources.keychainSkipped}` : ''].filter(Boolean).join('; ') } : {}),
      detail: { notes: [...groups, ...(sources?.misses ?? []), ...misses.slice(0, 10)], misses: [...misses, ...(sources?.misses ?? [])] },
    },
  ]
}

/** The row's per-source count: values set through the settings under the default store, given by `!env` and `!file`, written into the keychain, and moved. */
function sourceFigure(storeWrites: number, sources: SourcesScan): string {
  const { env, file, keychain, moved } = sources.counts
  return `store (secrets: file) ${storeWrites} values set on the main stack + 1 host write, env ${env}, file ${file}, keychain ${sources.keychainSkipped ? 'skipped' : keychain}, inline moved by moveSecrets() ${moved}`
}
