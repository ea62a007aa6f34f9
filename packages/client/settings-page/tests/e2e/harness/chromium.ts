/** Whether chromium is here, for the run's global setup: see `dsh-testing/browser`. */
export { browserSupport, findChromium, INSTALL_HINT, missingBrowserMessage, skipLine, type BrowserSupport } from 'dsh-testing/browser'
