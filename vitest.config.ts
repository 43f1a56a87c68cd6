import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: servers started by suites (simulator, stores, moto) must not starve each other.
    maxWorkers: 2,
    reporters: ['default'],
    // Handlers log and emit EMF to stdout in Lambda; tests read metrics through sinks instead.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
    // Builds the policy WASM bundle if it is missing or stale (policy tests load the real bundle),
    // and the compiled CLI that tests spawn.
    globalSetup: ['test/policy/global-setup.ts', 'test/package/global-setup.ts'],
  },
});
