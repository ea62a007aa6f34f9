import Schema from 'schemastery'
import { environmentLocale } from 'dsh-settings/locale'
import type { HistoryLimits } from '../store/history.ts'
import { DEFAULT_MAX_DOCUMENT_BYTES } from './settings-codec.ts'

/** How many replaced versions `history/` keeps. */
export interface FileHistoryConfig {
  keep?: number
  maxAgeDays?: number
}

/** Configuration of the file provider; see the package README for each key. */
export interface FileProviderConfig {
  path?: string
  home?: string
  watch?: boolean
  debounceMs?: number
  recheckMs?: number
  lockTimeoutMs?: number
  settleMs?: number
  maxDocumentBytes?: number
  /** Keep `<document>.schema.json` beside the document for editors (default true). */
  editorSchema?: boolean
  /** Add the yaml-language-server modeline to an existing YAML document at its next write (default false; a new one always gets it). */
  schemaModeline?: boolean
  /** The locale of the editor schema's descriptions (default: from `LC_ALL` / `LC_MESSAGES` / `LANG`). */
  locale?: string
  history?: FileHistoryConfig | false
  /** Where secrets written through the settings go: `secrets.yaml` beside the document (default), the OS keychain, or the document itself. */
  secrets?: 'file' | 'keyring' | 'inline'
}

/** The file provider's configuration schema (cordis validates a plugin's config with it). */
export const fileProviderConfig: Schema<FileProviderConfig> = Schema.object({
  path: Schema.string().description('Document path; .yaml, .yml or .json picks the format. Defaults to settings.yaml under home.'),
  home: Schema.string().description('Settings home when path is omitted; defaults to $DSH_HOME, else ~/.dsh.'),
  watch: Schema.boolean().default(true).description('Watch the document and publish outside edits.'),
  debounceMs: Schema.natural().default(100).description('Settle window for watcher events.'),
  recheckMs: Schema.natural().default(2000).description('Period of the re-check that heals missed watcher events (0 turns it off).'),
  lockTimeoutMs: Schema.natural().default(2000).description('How long a writer waits for the cross-process lock.'),
  settleMs: Schema.natural().default(100).description('A read that comes back shorter than the last one while the file is younger than this is read again once it settles; an empty read waits 10 times this.'),
  maxDocumentBytes: Schema.natural().min(1).default(DEFAULT_MAX_DOCUMENT_BYTES).description('Size cap (UTF-8 bytes) on the document: a larger one fails the load, is ignored on reload and refuses writes; a write that would pass it is refused.'),
  editorSchema: Schema.boolean().default(true).description('Keep <document>.schema.json (JSON Schema of every registered namespace) beside the document for editors.'),
  locale: Schema.string().description('Locale the editor schema\'s descriptions are written in where a plugin gives them per locale (zh-CN, en-US); defaults from LC_ALL / LC_MESSAGES / LANG.'),
  schemaModeline: Schema.boolean().default(false).description('Also add the yaml-language-server modeline to an existing YAML document at its next write (a new one always gets it).'),
  history: Schema.union([
    Schema.const(false),
    Schema.object({
      keep: Schema.natural().min(1).default(50).description('How many replaced versions to keep.'),
      maxAgeDays: Schema.number().min(0).default(30).description('Remove kept versions older than this.'),
    }),
  ]).default({ keep: 50, maxAgeDays: 30 }).description('Keep replaced versions in history/ beside the document; false turns it off.'),
  secrets: Schema.union([Schema.const('file'), Schema.const('keyring'), Schema.const('inline')])
    .default('file')
    .description('Where secrets written through the settings go: file keeps them in secrets.yaml beside the document (mode 0600, never kept in history/); keyring in the operating system\'s keychain; inline in the document itself, as before.')
    .i18n({
      'zh-CN': '通过设置写入的密钥存放在哪里：file 存入文档旁的 secrets.yaml（权限 0600，从不保留在 history/ 中）；keyring 存入操作系统的钥匙串；inline 仍写在文档本身中。',
      'en-US': 'Where secrets written through the settings go: file keeps them in secrets.yaml beside the document (mode 0600, never kept in history/); keyring in the operating system\'s keychain; inline in the document itself, as before.',
    }),
})

/** Every option with its default filled in (but the path, resolved apart). */
export interface FileProviderOptions {
  watch: boolean
  debounceMs: number
  recheckMs: number
  lockTimeoutMs: number
  settleMs: number
  maxDocumentBytes: number
  editorSchema: boolean
  schemaModeline: boolean
  locale: string
  history: HistoryLimits | false
  secrets: 'file' | 'keyring' | 'inline'
}

/** The options of `config` with their defaults: again here, so a provider constructed without cordis's schema pass still behaves. */
export function fileProviderOptions(config: FileProviderConfig): FileProviderOptions {
  return {
    watch: config.watch ?? true,
    debounceMs: config.debounceMs ?? 100,
    recheckMs: config.recheckMs ?? 2000,
    lockTimeoutMs: config.lockTimeoutMs ?? 2000,
    settleMs: config.settleMs ?? 100,
    maxDocumentBytes: config.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    editorSchema: config.editorSchema ?? true,
    schemaModeline: config.schemaModeline ?? false,
    locale: config.locale ?? environmentLocale(),
    history: config.history === false ? false : { keep: config.history?.keep ?? 50, maxAgeDays: config.history?.maxAgeDays ?? 30 },
    secrets: config.secrets ?? 'file',
  }
}
