import { defineConfig } from 'vitest/config';

// VITEST_JSON=path also writes a JSON report (.ci/run counts tests from it).
const json = process.env.VITEST_JSON;

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'tools/**/*.test.ts'],
    environment: 'node',
    benchmark: { include: ['src/**/*.bench.ts'] },
    reporters: json ? ['default', 'json'] : ['default'],
    outputFile: json ? { json } : undefined,
  },
});
