import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.{ts,mts,js,mjs}'],
    // Native addons and real filesystem watchers: run files in child processes,
    // and give loaded 2-core machines room on bounded waits.
    pool: 'forks',
    // Two at a time even on 2 cores (the default would be one): most files wait
    // on child processes, the disk or watcher events, not on the CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
