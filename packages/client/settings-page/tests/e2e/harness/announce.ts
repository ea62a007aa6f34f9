/**
 * Vitest global setup: runs once per test run, so a machine without chromium
 * hears exactly one loud line about the skipped browser tests, however many
 * spec files hold them.
 */
import { browserSupport, skipLine } from './chromium.ts'

/** Print the skip line when chromium is missing and the run did not require it. */
export default function announceBrowser(): void {
  const support = browserSupport()
  if (support.path === undefined && !support.required) console.warn(skipLine(support.reason))
}
