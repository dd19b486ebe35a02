/**
 * The third proof of a conversion through the views: Kyverno ClusterPolicies opened, converted in
 * the Migration view, and the audit log a real kube-apiserver wrote while Kyverno's own webhook
 * decided (tools/admission-oracle/testdata/kyverno-audit) replayed with its snapshot: each rule's
 * Traffic cell says how many events agree with Kyverno, and a rule's differing events open in the list.
 */
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { expect, openApp, test } from './fixtures';

const fixture = (name: string) => fileURLToPath(new URL(`../tools/admission-oracle/testdata/kyverno-audit/${name}`, import.meta.url));

const row = (page: Page, source: string): Locator =>
  page
    .getByTestId('migration-rows')
    .locator('tbody tr')
    .filter({ has: page.locator('td:nth-child(2)').getByText(source, { exact: true }) });

test('migration traffic: convert Kyverno policies, replay the audit log Kyverno decided, see each rule agree or differ', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').setInputFiles([fixture('policies.yaml')]);
  await page.locator('[data-view="migration"]').click();
  const view = page.getByTestId('migration');
  await view.getByTestId('convert-all').click();
  await expect(view.getByRole('img', { name: '4 exact, 0 different, 0 not convertible' })).toBeVisible();

  await view.getByTestId('traffic-audit').setInputFiles(fixture('audit.log'));
  await view.getByTestId('traffic-snapshot').setInputFiles(fixture('snapshot-before.json'));
  await view.getByTestId('traffic-replay').click();
  await expect(view.getByTestId('traffic-summary')).toContainText(TRAFFIC_SUMMARY, { timeout: 60_000 });
  for (const [source, cell] of Object.entries(CELLS)) await expect(row(page, source).getByTestId('traffic-cell')).toHaveText(cell);
  const differing = Object.entries(CELLS).find(([, cell]) => !cell.endsWith('none differ'));
  if (differing) {
    await row(page, differing[0]).getByTestId('traffic-differ').click();
    await expect(view.getByTestId('traffic-differences').locator('li')).toHaveText([
      'line 40: CREATE configmaps kyverno/debug by admin: the cluster allowed, natively denied by cpol-no-debug-mode',
    ]);
  }
});

// what the replay of the committed log says (src/impact/conversion.test.ts explains each difference)
const TRAFFIC_SUMMARY = 'audit.log: 37 events replayed; 36 decided as the cluster answered, 1 otherwise.';
const CELLS: Record<string, string> = {
  'ClusterPolicy/require-team-label': '37 of 37 agree, none differ',
  'ClusterPolicy/disallow-latest-tag': '37 of 37 agree, none differ',
  'ClusterPolicy/limit-replicas': '37 of 37 agree, none differ',
  'ClusterPolicy/no-debug-mode': '36 of 37 agree, 1 differ',
};
