import { defineConfig } from '@playwright/test';

// Playwright cannot download its browser here: use Debian's chromium.
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Run the suite against any deployed copy with E2E_BASE_URL=https://portal/…/workbench/
const external = process.env.E2E_BASE_URL;

export default defineConfig({
  testDir: './e2e',
  timeout: 45_000,
  expect: { timeout: 10_000 },
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  // PLAYWRIGHT_JSON_OUTPUT_FILE=path also writes a JSON report (.ci/run counts tests from it).
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    trace: 'retain-on-failure',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath,
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
        { name: 'root', use: { baseURL: 'http://127.0.0.1:4173/' } },
        { name: 'subpath', use: { baseURL: 'http://127.0.0.1:4174/portal/admission/workbench/' } },
      ],
  webServer: external
    ? undefined
    : [
        { command: 'node scripts/serve.mjs --port 4173 --base /', url: 'http://127.0.0.1:4173/', reuseExistingServer: !process.env.CI },
        {
          command: 'node scripts/serve.mjs --port 4174 --base /portal/admission/workbench/',
          url: 'http://127.0.0.1:4174/portal/admission/workbench/',
          reuseExistingServer: !process.env.CI,
        },
      ],
});
