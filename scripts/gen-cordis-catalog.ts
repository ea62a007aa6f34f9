/**
 * Generates the API catalog section of docs/settings.md from the sources:
 * each public method of `ctx.settings` and `ctx.settingsController` with its
 * signature and JSDoc, and each `settings/*` event. `--check` fails (exit 1)
 * when the section in the file is not what the sources generate.
 *
 *   pnpm gen-cordis-catalog      # rewrite the section
 *   pnpm verify-cordis-catalog   # check it is fresh
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { classMembers, eventMembers, readSource, type CatalogEntry } from './catalog/extract.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOC = join(ROOT, 'docs', 'settings.md')
const START = '<!-- cordis-catalog:start -->'
const END = '<!-- cordis-catalog:end -->'

/** A service class to document: where to look for it and how the context names it. */
interface ServiceSource {
  property: string
  className: string
  folder: string
}

const SERVICES: ServiceSource[] = [
  { property: 'ctx.settings', className: 'SettingsProvider', folder: 'packages/settings/settings/src' },
  { property: 'ctx.settingsController', className: 'SettingsController', folder: 'packages/api/settings-controller/src' },
]
const EVENTS_FILE = 'packages/settings/settings/src/types.ts'

function sourcesIn(folder: string): string[] {
  const path = join(ROOT, folder)
  if (!existsSync(path)) return []
  return readdirSync(path)
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => join(path, name))
}

function block(entries: CatalogEntry[]): string {
  return entries.map((entry) => ['```ts', ...(entry.doc ? [entry.doc] : []), entry.signature, '```'].join('\n')).join('\n\n')
}

function serviceSection(service: ServiceSource): string {
  for (const file of sourcesIn(service.folder)) {
    const members = classMembers(readSource(file, readFileSync(file, 'utf8')), service.className)
    if (!members) continue
    const source = relative(ROOT, file)
    return `### ${service.property} — ${service.className}\n\nSource: \`${source}\`\n\n${block(members)}`
  }
  throw new Error(`class ${service.className} not found under ${service.folder}`)
}

/** The generated section, markers included. */
export function generateCatalog(): string {
  const eventsFile = join(ROOT, EVENTS_FILE)
  const events = eventMembers(readSource(eventsFile, readFileSync(eventsFile, 'utf8')), 'settings/')
  const parts = [
    START,
    '## API catalog',
    '',
    '_Generated from the sources by `scripts/gen-cordis-catalog.ts`; do not edit by hand. `pnpm gen-cordis-catalog` regenerates it and `pnpm verify-cordis-catalog` (run by CI) checks that it is fresh._',
    '',
    ...SERVICES.map(serviceSection).flatMap((section) => [section, '']),
    `### settings/* events\n\nSource: \`${EVENTS_FILE}\`\n\n${block(events)}`,
    END,
  ]
  return parts.join('\n')
}

function main(): number {
  const check = process.argv.includes('--check')
  const text = readFileSync(DOC, 'utf8')
  const generated = generateCatalog()
  const start = text.indexOf(START)
  const end = text.indexOf(END)
  const next = start === -1 || end === -1 ? `${text.replace(/\n*$/, '\n')}\n${generated}\n` : text.slice(0, start) + generated + text.slice(end + END.length)
  if (check) {
    if (next === text) return 0
    console.error('docs/settings.md: the API catalog is stale; run `pnpm gen-cordis-catalog`')
    return 1
  }
  if (next !== text) writeFileSync(DOC, next)
  console.log(next === text ? 'docs/settings.md: catalog already fresh' : 'docs/settings.md: catalog written')
  return 0
}

process.exitCode = main()
