/**
 * Descriptions per locale, typed. schemastery stores whatever `description`
 * gets, and every surface here reads a dict of locales from it (the page, the
 * editor schema, `settings check`; see `locale.ts`), but its typings take a
 * string only. This widens them: any program that imports `dsh-settings`
 * (a type-only import is enough) may write
 * `Schema.string().description({ 'zh-CN': '…', 'en-US': '…' })`.
 */

/** A text per locale (BCP 47 tags, `''` for the untagged one), as a description may give it. */
export type LocalizedText = { readonly [locale: string]: string }

declare global {
  // schemastery declares its schema interface globally; this adds an overload to it.
  interface Schemastery<S, T> {
    /** The help text, one string or one per locale (`{ 'zh-CN': '…', 'en-US': '…' }`); a reader gets its locale's. */
    description(text: string | LocalizedText): Schemastery<S, T>
  }
}
