/**
 * "What changes from release A to B" in the header: the workspace's documents and saved cases
 * checked at both releases (the CLI's upgrade check, src/cli/upgrade.ts), with each release's
 * engine. `orValue([])` on a list that is not optional gives the list up to 1.36 and a
 * "no such overload" error from 1.37 (the policy fails closed: its cases now see a denial);
 * a backquoted field name does not parse before 1.37.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, openApp, test } from './fixtures';

// the CLI test's fixture (src/cli/upgrade.test.ts): its documents and cases as one workspace file, targeting 1.36
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'fixtures', 'upgrade');
const WORKSPACE = {
  ...JSON.parse(readFileSync(join(FIXTURE, 'workspace.json'), 'utf8')),
  kubernetesVersion: '1.36',
  documents: readFileSync(join(FIXTURE, 'policies.yaml'), 'utf8')
    .split(/^---\n/m)
    .map((text) => ({ text })),
};

async function openWorkspace(page: Page) {
  page.on('dialog', (d) => void d.accept());
  await page.getByTestId('file-input').setInputFiles({ name: 'upgrade.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(WORKSPACE)) });
  await expect(page.locator('.doc-list li')).toHaveCount(3);
  await expect(page.getByTestId('kubernetes-version')).toHaveValue('1.36');
}

test('1.36 → 1.37: the orValue cases fail at 1.37 (worse, listed first, linked to their policy), the backquote error is gone', async ({ page }) => {
  await openApp(page);
  await openWorkspace(page);
  await page.getByTestId('upgrade-open').click();
  const dialog = page.getByRole('dialog', { name: 'What changes from release A to B' });
  await expect(dialog.getByTestId('upgrade-from')).toHaveValue('1.36');
  await expect(dialog.getByTestId('upgrade-to')).toHaveValue('1.37');
  await dialog.getByTestId('upgrade-run').click();
  await expect(dialog.getByTestId('upgrade-summary')).toHaveText(
    '1.36 → 1.37: 2 appear, 1 gone, 0 changed, 2 worse; saved cases: 2/2 pass at 1.36, 0/2 at 1.37',
    { timeout: 30_000 },
  );
  const lines = dialog.getByTestId('upgrade-changes').locator('li');
  await expect(lines).toHaveCount(3);
  // what got worse first: the verdicts, in the 1.37 engine's words
  await expect(lines.nth(0)).toHaveAttribute('data-worse', 'true');
  await expect(lines.nth(0)).toContainText('appears in 1.37 (worse)');
  await expect(lines.nth(0)).toContainText('no such overload');
  await expect(lines.nth(1)).toContainText('SYS_ADMIN is denied');
  await expect(lines.nth(2)).toHaveAttribute('data-change', 'gone');
  await expect(lines.nth(2)).toContainText("unsupported syntax: '`'");
  await expect(lines.nth(2).getByTestId('upgrade-change-link')).toHaveText('my-label · spec.validations[0].expression');
  // a case's change links to the policy it tests
  await lines.nth(0).getByTestId('upgrade-change-link').click();
  await expect(dialog).toHaveCount(0);
  await expect(page.locator('.doc-list li.selected')).toContainText('no-sys-admin');
});
