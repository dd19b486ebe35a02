import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

// Playwright cannot download its browser here: use Debian's. Its headless shell (package
// chromium-headless-shell) is the same engine without the full browser's layers: a third less
// CPU per test than /usr/bin/chromium; the full browser when the shell is not installed.
const executablePath = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p));
// Run the suite against any deployed copy with E2E_BASE_URL=https://portal/…/workbench/
const external = process.env.E2E_BASE_URL;
// E2E_PORT=n serves the build on n and n+1 (default 4173, 4174): two checkouts can run the suite at once.
const port = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: './e2e',
  // limits that catch a hang, not speed checks (npm run bench measures speed): a CI runner's two cores
  // are shared with vitest and its Go oracles (load 7.5–9 at the end of a run where an e2e test failed
  // twice), and a passing check does not wait for them
  timeout: 90_000,
  expect: { timeout: 30_000 },
  workers: 2,
  fullyParallel: true,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  // PLAYWRIGHT_JSON_OUTPUT_FILE=path also writes a JSON report (.ci/run counts tests from it).
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    // recorded for a retried test only (CI retries once): recording every test's trace (DOM snapshots,
    // screencast) cost about a third of the suite's CPU, kept or not
    trace: 'on-first-retry',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath,
      // Nothing leaves the machine: every request but the served app's goes to a closed port (the
      // guard in e2e/fixtures.ts fails the test that made it). Not for a deployed copy.
      proxy: external ? undefined : { server: 'http://127.0.0.1:9', bypass: '127.0.0.1,localhost' },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    },
  },
  projects: external
    ? [{ name: 'external', use: { baseURL: external } }]
    : [
        { name: 'root', use: { baseURL: `http://127.0.0.1:${port}/` } },
        // Under a portal's sub-path, the tests tagged @hosting: what depends on where the app is served (the
        // shell, the YAML and CEL workers, the engine's WebAssembly and its Cache Storage, the type checker's
        // schemas, lazy chunks, file reading and downloads, a reload, share links). Everything else runs at
        // the root only: it does not depend on the path (form ↔ YAML, validation, lints, accessibility…).
        { name: 'subpath', grep: /@hosting/, use: { baseURL: `http://127.0.0.1:${port + 1}/portal/admission/workbench/` } },
      ],
  webServer: external
    ? undefined
    : [
        { command: `node scripts/serve.mjs --port ${port} --base /`, url: `http://127.0.0.1:${port}/`, reuseExistingServer: !process.env.CI },
        {
          command: `node scripts/serve.mjs --port ${port + 1} --base /portal/admission/workbench/`,
          url: `http://127.0.0.1:${port + 1}/portal/admission/workbench/`,
          reuseExistingServer: !process.env.CI,
        },
      ],
});
