import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources through the `source` export condition.
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/**/tests/**/*.spec.ts', 'scripts/**/*.spec.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
  },
})
