/**
 * The migration flow end to end: a Kyverno ValidatingPolicy and a Gatekeeper template with its
 * constraint opened from the repository's fixtures, converted in the Migration view (each rule's
 * status, the produced objects opening as documents), Gatekeeper switched to standalone, and the
 * converted set exported as a ZIP and as MIGRATION.md.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { expect, openApp, test } from './fixtures';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const FILES = [
  fixture('kyverno/best-practices-vpol/disallow-latest-tag/disallow-latest-tag.yaml'),
  fixture('gatekeeper/library/general/requiredlabels/template.yaml'),
  fixture('gatekeeper/library/general/requiredlabels/samples/all-must-have-owner/constraint.yaml'),
];

const VPOL = 'ValidatingPolicy/disallow-latest-tag';
const TEMPLATE = 'ConstraintTemplate/k8srequiredlabels';
const CONSTRAINT = 'K8sRequiredLabels/all-must-have-owner';

/** The Migration view's row whose Source cell is `source`. */
const row = (page: Page, source: string): Locator =>
  page
    .getByTestId('migration-rows')
    .locator('tbody tr')
    .filter({ has: page.locator('td:nth-child(2)').getByText(source, { exact: true }) });
const notice = (page: Page, start: string) => page.locator('.notice').filter({ hasText: start });
const status = (r: Locator) => r.locator('td:nth-child(1)');
const produced = (r: Locator) => r.locator('.migration-produced li');

/** The names of a ZIP's entries, read from its local file headers. */
function zipEntries(zip: Buffer): string[] {
  const names: string[] = [];
  for (let at = 0; at + 30 <= zip.length && zip.readUInt32LE(at) === 0x04034b50; ) {
    const compressed = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const extra = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 30, at + 30 + nameLength));
    at += 30 + nameLength + extra + compressed;
  }
  return names;
}

async function exportMigration(page: Page, testId: string) {
  await page.getByTestId('export-menu').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return download;
}

test('migration flow: open Kyverno and Gatekeeper fixtures, convert all, open a produced object, standalone Gatekeeper, export ZIP and MIGRATION.md', {
  tag: '@hosting',
}, async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').setInputFiles(FILES);
  await expect(notice(page, 'Added 3 document(s)')).toContainText('Added 3 document(s) from 3 files');
  const sidebar = page.locator('.sidebar .doc-title');
  for (const name of ['disallow-latest-tag', 'k8srequiredlabels', 'all-must-have-owner']) await expect(sidebar.getByText(name, { exact: true })).toBeVisible();

  await page.locator('[data-view="migration"]').click();
  const view = page.getByTestId('migration');
  // Before converting, the produced objects are listed but not in the workspace yet.
  await expect(produced(row(page, VPOL)).getByRole('button')).toHaveCount(0);
  await view.getByTestId('convert-all').click();
  await expect(notice(page, 'Converted 3 rule(s)')).toContainText('Converted 3 rule(s): 3 exact, 0 different, 0 not convertible. Added 8 document(s)');
  // The view stays, and every produced object is now a document to open.
  await expect(page.locator('[data-view="migration"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(view.locator('.migration-produced li').getByRole('button')).toHaveCount(8);
  await expect(view.getByRole('img', { name: '3 exact, 0 different, 0 not convertible' })).toBeVisible();
  await expect(view.getByTestId('migration-rows').locator('tbody tr')).toHaveCount(3);
  for (const source of [VPOL, TEMPLATE, CONSTRAINT]) await expect(status(row(page, source))).toHaveText('exact');
  await expect(row(page, VPOL).locator('td:nth-child(3)')).toHaveText('disallow-latest-tag');
  await expect(row(page, TEMPLATE).locator('td:nth-child(3)')).toHaveText('k8srequiredlabels');
  await expect(produced(row(page, VPOL))).toHaveText([
    'ValidatingAdmissionPolicy/vpol-disallow-latest-tag',
    'ValidatingAdmissionPolicyBinding/vpol-disallow-latest-tag-binding',
    'ValidatingAdmissionPolicy/vpol-disallow-latest-tag-autogen-cronjobs',
    'ValidatingAdmissionPolicyBinding/vpol-disallow-latest-tag-autogen-cronjobs-binding',
    'ValidatingAdmissionPolicy/vpol-disallow-latest-tag-autogen-defaults',
    'ValidatingAdmissionPolicyBinding/vpol-disallow-latest-tag-autogen-defaults-binding',
  ]);
  await expect(produced(row(page, TEMPLATE))).toHaveText(['ValidatingAdmissionPolicy/gatekeeper-k8srequiredlabels']);
  await expect(produced(row(page, CONSTRAINT))).toHaveText(['ValidatingAdmissionPolicyBinding/gatekeeper-k8srequiredlabels-all-must-have-owner']);

  // A produced object opens as a document: the form shows its kind, the sidebar selects it.
  await produced(row(page, TEMPLATE)).getByRole('button', { name: 'ValidatingAdmissionPolicy/gatekeeper-k8srequiredlabels' }).click();
  await expect(page.getByRole('region', { name: 'Form' }).locator('.pane-head h2')).toHaveText('ValidatingAdmissionPolicy');
  await expect(page.locator('.sidebar [aria-current="true"]')).toContainText('gatekeeper-k8srequiredlabels');

  // Standalone: no Gatekeeper left in the cluster, so no longer exact, and the view says why.
  await page.locator('[data-view="migration"]').click();
  await view.getByTestId('gatekeeper-mode').selectOption('standalone');
  await expect(view.getByRole('img', { name: '1 exact, 2 different, 0 not convertible' })).toBeVisible();
  for (const source of [TEMPLATE, CONSTRAINT]) {
    await expect(status(row(page, source))).toHaveText('different');
    await expect(row(page, source).locator('td:nth-child(4)')).toContainText(
      "standalone: the apiserver alone decides, so Gatekeeper's Config excluded namespaces",
    );
  }
  await expect(status(row(page, VPOL))).toHaveText('exact');
  await expect(produced(row(page, TEMPLATE))).toHaveText([
    'ValidatingAdmissionPolicy/k8srequiredlabels-all-must-have-owner',
    'ValidatingAdmissionPolicyBinding/k8srequiredlabels-all-must-have-owner',
  ]);

  // Export follows the view's mode: the standalone objects, one file each, and the summary.
  const zip = await exportMigration(page, 'export-migration');
  expect(zip.suggestedFilename()).toBe('native-admission.zip');
  expect(zipEntries(readFileSync((await zip.path())!)).sort()).toEqual([
    'MIGRATION.md',
    'native/validatingadmissionpolicy-k8srequiredlabels-all-must-have-owner.yaml',
    'native/validatingadmissionpolicy-vpol-disallow-latest-tag-autogen-cronjobs.yaml',
    'native/validatingadmissionpolicy-vpol-disallow-latest-tag-autogen-defaults.yaml',
    'native/validatingadmissionpolicy-vpol-disallow-latest-tag.yaml',
    'native/validatingadmissionpolicybinding-k8srequiredlabels-all-must-have-owner.yaml',
    'native/validatingadmissionpolicybinding-vpol-disallow-latest-tag-autogen-cronjobs-binding.yaml',
    'native/validatingadmissionpolicybinding-vpol-disallow-latest-tag-autogen-defaults-binding.yaml',
    'native/validatingadmissionpolicybinding-vpol-disallow-latest-tag-binding.yaml',
  ]);
  await expect(notice(page, 'Converted set:')).toContainText('Converted set: 8 object file(s) under native/, and MIGRATION.md (3 rule(s)).');

  const summary = await exportMigration(page, 'export-migration-summary');
  expect(summary.suggestedFilename()).toBe('MIGRATION.md');
  const md = readFileSync((await summary.path())!, 'utf8');
  expect(md).toContain('3 rule(s): **1 exact**, **2 different**, **0 not convertible**');
  expect(md).toContain(`| exact | ${VPOL} | disallow-latest-tag |`);
  expect(md).toContain(`| different | ${TEMPLATE} | k8srequiredlabels | standalone: the apiserver alone decides`);
  expect(md).toContain(`| different | ${CONSTRAINT} | k8srequiredlabels | standalone: the apiserver alone decides`);
});
