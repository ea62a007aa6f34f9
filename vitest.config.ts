import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources through the `source` export condition.
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/**/tests/**/*.spec.ts', 'scripts/**/*.spec.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    // Type tests (`*.test-d.ts`: `expectTypeOf`, `// @ts-expect-error`) run through tsc in the same run; a type error
    // in one fails its test. Errors elsewhere in the project are `pnpm typecheck`'s to report.
    typecheck: {
      enabled: true,
      include: ['packages/**/tests/**/*.test-d.ts'],
      tsconfig: 'tsconfig.tests.json',
      ignoreSourceErrors: true,
    },
    // Says once per run, not once per spec file, that the browser tests are skipped for want of chromium.
    globalSetup: ['packages/client/settings-page/tests/e2e/harness/announce.ts'],
    // `.ci/run` asks for a JSON report (to print its closing count) without changing the test command.
    reporters: process.env.DSH_TEST_REPORT ? ['default', ['json', { outputFile: process.env.DSH_TEST_REPORT }]] : ['default'],
  },
})
