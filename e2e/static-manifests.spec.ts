/**
 * Static admission manifests: mark a document static, see the manifest loader's problems
 * with the headline, fix them, simulate (the static webhook runs first), export the manifest
 * directory with its AdmissionConfiguration; the workspace-level mark survives a reload.
 */
import { readFileSync } from 'node:fs';
import { readFixture } from '../fixtures';
import { expect, openApp, setYaml, test } from './fixtures';
import type { Page } from '@playwright/test';

const webhook = (name: string, host: string, clientConfig: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: ${host}
  clientConfig: ${clientConfig}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
`;

const API_GUARD = webhook('a-api-guard', 'api.guard.example.com', '{url: "https://api-guard.example.com/validate"}');
const GUARD = webhook('guard', 'pods.guard.example.com', '{service: {namespace: guard, name: guard, path: /validate}}');
const FIXED = webhook('guard.static.k8s.io', 'pods.guard.example.com', '{url: "https://10.0.0.5:8443/validate"}');

async function seed(page: Page) {
  const workspace = {
    version: 1,
    selectedId: 'd-guard',
    docs: [
      { id: 'd-api', text: API_GUARD },
      { id: 'd-guard', text: GUARD },
    ],
  };
  await page.addInitScript((seeded) => {
    if (sessionStorage.getItem('seeded')) return;
    sessionStorage.setItem('seeded', '1');
    localStorage.clear();
    localStorage.setItem('admission-workbench/workspace/v1', seeded);
  }, JSON.stringify(workspace));
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 60_000 });
}

test('mark a document static: loader problems and headline, fixed, simulated first, exported with its AdmissionConfiguration', async ({ page }) => {
  await seed(page);
  await page.locator('.doc-list button', { hasText: 'guard' }).nth(1).click();
  const problems = page.locator('section.problems');
  await expect(page.getByTestId('manifest-headline')).toHaveCount(0);

  await page.getByTestId('doc-static').check();
  await expect(page.getByTestId('manifest-headline')).toContainText('This static manifest set does not load');
  await expect(problems).toContainText('must have a name ending with ".static.k8s.io"');
  await expect(problems).toContainText('clientConfig.service is not supported for static manifests; use clientConfig.url instead');
  await expect(page.locator('.doc-list .static-badge')).toHaveCount(1);

  await setYaml(page, FIXED);
  await expect(page.getByTestId('manifest-headline')).toHaveCount(0);
  await expect(problems).not.toContainText('static manifests');

  // The static webhook runs before the API one, although its name sorts after it.
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('create-pod');
  await expect(page.getByTestId('sim-verdict')).toHaveAttribute('data-allowed', 'true', { timeout: 30_000 });
  const steps = page.locator('[data-testid="sim-step"]');
  await expect(steps.first()).toHaveAttribute('data-name', 'pods.guard.example.com');
  await expect(steps.first()).toHaveAttribute('data-static', 'true');
  await expect(steps.nth(1)).toHaveAttribute('data-name', 'api.guard.example.com');

  // The manifest directory: one directory per plugin and the AdmissionConfiguration, in one ZIP.
  await page.getByTestId('export-menu').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-manifests').click()]);
  expect(download.suggestedFilename()).toBe('static-manifests.zip');
  const zip = readFileSync((await download.path())!, 'latin1');
  expect(zip).toContain('validating-webhooks/guard.static.k8s.io.yaml');
  expect(zip).toContain('admission-configuration.yaml');
  expect(zip).toContain('staticManifestsDir: /etc/kubernetes/admission-manifests/validating-webhooks');
  expect(zip).not.toContain('a-api-guard');
});

test('the whole workspace as a static set survives a reload; the lockout report names the static guard', async ({ page }) => {
  await seed(page);
  await page.getByTestId('workspace-static').check();
  await expect(page.locator('.doc-list .static-badge')).toHaveCount(2);
  await page.reload();
  await expect(page.getByTestId('workspace-static')).toBeChecked();
  await expect(page.getByTestId('doc-static')).toBeChecked();
  await expect(page.getByTestId('doc-static')).toBeDisabled();
  await page.getByRole('button', { name: 'Lockout', exact: true }).click();
  await expect(page.getByTestId('lockout-headline')).toContainText('which the API cannot delete', { timeout: 30_000 });
  await expect(page.getByTestId('lockout-static').first()).toBeVisible();
});

const CERT_MANAGER = Buffer.from(readFixture('realworld', '01-cert-manager-webhooks.yaml'));

test('a set that does not load is not exported unless the user says export anyway; the selected name keeps its width beside the badges', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').setInputFiles({ name: '01-cert-manager-webhooks.yaml', mimeType: 'application/yaml', buffer: CERT_MANAGER });
  await expect(page.locator('.doc-list li')).toHaveCount(7);
  await page.getByTestId('workspace-static').check();
  const certManager = page.locator('.doc-list li', { hasText: 'cert-manager-webhook' }).first();
  await certManager.locator('.doc-button').click();
  await expect(page.getByTestId('manifest-headline')).toContainText('This static manifest set does not load');

  // Selected, with its STATIC badge, its error count and its actions: the whole name shows.
  await expect(certManager.locator('.static-badge')).toBeVisible();
  await expect(certManager.locator('.count.error')).toBeVisible();
  await expect(certManager.locator('.doc-actions')).toBeVisible();
  const title = certManager.locator('.doc-title');
  await expect(title).toHaveText('cert-manager-webhook');
  expect(await title.evaluate((t) => t.scrollWidth <= t.clientWidth)).toBe(true);

  // Export: refused with the reason, nothing downloaded; Cancel keeps it so.
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.getByTestId('export-menu').click();
  await page.getByTestId('export-manifests').click();
  const dialog = page.getByRole('alertdialog', { name: 'This static manifest set does not load' });
  await expect(dialog).toContainText('will not start');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(downloads).toBe(0);

  // Export anyway, said out loud: the ZIP comes.
  await page.getByTestId('export-menu').click();
  await page.getByTestId('export-manifests').click();
  await expect(dialog.getByTestId('export-anyway')).toHaveText('Export anyway (the apiserver will not start)');
  const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('export-anyway').click()]);
  expect(download.suggestedFilename()).toBe('static-manifests.zip');
  expect(readFileSync((await download.path())!, 'latin1')).toContain('validating-webhooks/cert-manager-webhook.yaml');
  await expect(page.locator('.notice').last()).toContainText('a kube-apiserver started with it will not start');
});
