/**
 * Texts given per locale (`{ 'zh-CN': '…', 'en-US': '…' }`, as schemastery
 * descriptions often are): which one a reader of a given locale gets. Every
 * surface (the page's form model, the editor schema) picks through here, so
 * they all show the same text.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The locales to try for a reader of `locale`, best first: the locale itself,
 * its language alone, English (`en-US`, then `en`), then the untagged text
 * (`''`). `zh-CN` gives `zh-CN, zh, en-US, en, ''`.
 */
export function localeChain(locale: string): string[] {
  const language = locale.split('-')[0] ?? ''
  return [...new Set([locale, language, 'en-US', 'en'].filter(Boolean)), '']
}

/**
 * The text for a reader of `locale`: a plain string as it is; from a dict by
 * locale, the first of {@link localeChain} it has, else its first text. Empty
 * texts count as absent. `undefined` when there is no text at all.
 */
export function localizedText(value: unknown, locale: string): string | undefined {
  if (typeof value === 'string') return value || undefined
  if (!isRecord(value)) return undefined
  for (const tag of localeChain(locale)) {
    const text = value[tag]
    if (typeof text === 'string' && text) return text
  }
  return Object.values(value).find((text): text is string => typeof text === 'string' && text !== '')
}

/**
 * The locale of the environment as a BCP 47 tag: `LC_ALL`, `LC_MESSAGES` or
 * `LANG` (`zh_CN.UTF-8` reads `zh-CN`), else what `Intl` reports, else `en-US`.
 * `C` and `POSIX` read as `en-US`.
 */
export function environmentLocale(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const) {
    const raw = env[name]?.split('.')[0]?.split('@')[0]
    if (!raw) continue
    if (raw === 'C' || raw === 'POSIX') return 'en-US'
    const tag = raw.replace('_', '-')
    if (/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(tag)) return tag
  }
  try {
    return Intl.DateTimeFormat().resolvedOptions().locale || 'en-US'
  } catch {
    return 'en-US'
  }
}
