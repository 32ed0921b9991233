import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.{ts,mts,js,mjs}'],
    // Native addons and real filesystem watchers: run files in child processes,
    // and give loaded 2-core machines room on bounded waits.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
