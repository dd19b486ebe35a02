import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['src/**/*.test.ts'], environment: 'node', benchmark: { include: ['src/**/*.bench.ts'] } },
});
