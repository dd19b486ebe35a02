/** Names a new user met twice for two things, or two names for one: one word per action, the command line's words in the browser. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, openApp, test } from './fixtures';

test('"Duplicate" beside a document duplicates it; the clipboard export says so', async ({ page }) => {
  await openApp(page);
  const docs = page.locator('.doc-list li');
  await expect(docs).toHaveCount(5);
  const duplicate = page.locator('.doc-list li.selected .doc-actions').getByRole('button', { name: 'Duplicate policy-guard.example.com' });
  await expect(duplicate).toHaveText('Duplicate');
  await duplicate.click();
  await expect(docs).toHaveCount(6);
  await page.getByTestId('export-menu').click();
  await expect(page.getByRole('button', { name: 'Copy all to the clipboard' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Copy all', exact: true })).toHaveCount(0);
});

test("the Impact view's candidates are the command line's overlay and replace, in its words", async ({ page }) => {
  await openApp(page);
  await page.locator('[data-view="impact"]').click();
  const candidate = page.getByRole('group', { name: 'Candidate' });
  const overlay = candidate.getByRole('radio', { name: "overlay: the cluster's chain plus the workspace's" });
  const replace = candidate.getByRole('radio', { name: "replace: the workspace's alone" });
  await expect(overlay).toBeChecked();
  await expect(replace).not.toBeChecked();
  // `admission-workbench impact --help`, the --candidate entry: the same words.
  const source = readFileSync(fileURLToPath(new URL('../src/cli/impact.ts', import.meta.url)), 'utf8');
  const entry = /--candidate overlay\|replace\s+([^\n]*(?:\n {20,}[^\n]*)*)/.exec(source)![1]!.replace(/\s+/g, ' ').replace(' (default)', '');
  const labels = await candidate.locator('label').allInnerTexts();
  expect(labels).toHaveLength(2);
  for (const label of labels) expect(entry).toContain(label.trim());
});
