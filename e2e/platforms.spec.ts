/**
 * A target platform: OpenShift picked in the header adds its critical namespaces to the lockout
 * analysis, so a fail-closed webhook that only spares kube-system is a lockout risk there.
 */
import type { Page } from '@playwright/test';
import { expect, openApp, savedInIndexedDb, test } from './fixtures';

const GUARD = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-guard
webhooks:
- name: pods.guard.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    url: https://guard.example.com/validate
  namespaceSelector:
    matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: [kube-system, kube-node-lease]
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
`;

async function paste(page: Page, text: string) {
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  await page.getByLabel('YAML to import').fill(text);
  await page.getByRole('dialog').getByRole('button', { name: 'Import' }).click();
}

test('OpenShift in the picker: the lockout analysis reports openshift-* pods; the choice is kept', async ({ page }) => {
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 30_000 });
  await paste(page, GUARD);
  await page.getByRole('button', { name: 'Lockout', exact: true }).click();
  // the first-visit sample's webhook Services bring self-deadlock rows of their own: only the openshift-* row matters here
  const headline = page.getByTestId('lockout-headline');
  const openshiftRow = page.getByTestId('lockout-finding').filter({ hasText: 'openshift-* Pod create' });
  await expect(headline).toContainText('pods.guard.example.com', { timeout: 30_000 });
  await expect(openshiftRow).toHaveCount(0);

  await page.getByTestId('kubernetes-version').selectOption('openshift-4.19');
  await expect(openshiftRow).toHaveCount(1, { timeout: 30_000 });
  await expect(openshiftRow).toContainText('openshift-ingress');

  await expect.poll(() => savedInIndexedDb(page, 'workspace')).toContain('"platform":"openshift-4.19"');
  await page.reload();
  await expect(page.getByTestId('kubernetes-version')).toHaveValue('openshift-4.19');
});
