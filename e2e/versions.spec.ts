/**
 * The target Kubernetes version: an old manifest is an error in the apiserver's words and
 * converts to v1 in one click; the CEL environment follows the version picked in the header.
 */
import type { Page } from '@playwright/test';
import { axe, control, expect, openApp, savedInIndexedDb, test, yamlText } from './fixtures';

const OLD_VWC = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata:
  name: legacy-chart
webhooks:
- name: legacy.example.com
  clientConfig:
    service:
      namespace: legacy
      name: webhook
      path: /validate
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: [apps]
    apiVersions: [v1]
    resources: [deployments]
`;

const FORMAT_VAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: dns-names.example.com
spec:
  matchConstraints:
    resourceRules:
    - operations: [CREATE]
      apiGroups: [""]
      apiVersions: [v1]
      resources: [configmaps]
  validations:
  - expression: "!format.dns1123Label().validate(object.metadata.name).hasValue()"
    message: names must be DNS labels
`;

async function paste(page: Page, text: string) {
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  await page.getByLabel('YAML to import').fill(text);
  await page.getByRole('dialog').getByRole('button', { name: 'Import' }).click();
}

const problems = (page: Page) => page.getByRole('region', { name: 'Problems' });

test('a v1beta1 webhook configuration: the apiserver error, Convert to v1, a valid v1 object in the form', async ({ page }) => {
  await openApp(page);
  await paste(page, OLD_VWC);

  // Edited like any webhook configuration, with the error at apiVersion in kubectl's words
  await expect(page.getByRole('form', { name: 'ValidatingWebhookConfiguration form' })).toBeVisible();
  await expect(page.getByText('does not edit')).toHaveCount(0);
  await expect(problems(page)).toContainText('no matches for kind "ValidatingWebhookConfiguration" in version "admissionregistration.k8s.io/v1beta1"');
  await expect(problems(page)).toContainText('Kubernetes 1.22 removed');
  await expect(page.getByTestId('problem-count')).toHaveText('1 error, 0 warnings');
  await expect(problems(page)).not.toContainText('No problems');

  await page.getByTestId('convert-to-v1').click();
  await expect.poll(() => yamlText(page)).toContain('apiVersion: admissionregistration.k8s.io/v1\n');
  await expect(page.locator('.notices')).toContainText('failurePolicy: Ignore');
  // the v1beta1 behaviour, now explicit in the form
  await expect(control(page, 'webhooks[0].failurePolicy')).toHaveValue('Ignore');
  await expect(control(page, 'webhooks[0].matchPolicy')).toHaveValue('Exact');
  await expect(control(page, 'webhooks[0].timeoutSeconds')).toHaveValue('30');
  await expect(page.getByTestId('convert-to-v1')).toHaveCount(0);
  // v1 has no Unknown side effects: the one choice left to the user, asked at the field
  await expect(page.getByTestId('problem-count')).toHaveText('1 error, 0 warnings');
  await expect(problems(page).locator('[data-problem-path="webhooks[0].sideEffects"]')).toBeVisible();
  await control(page, 'webhooks[0].sideEffects').selectOption('None');
  await expect(page.getByTestId('problem-count')).toHaveText('0 errors, 0 warnings');
  await expect(problems(page)).toContainText('No problems: a Kubernetes 1.37 apiserver accepts this object.');
  // the YAML pane follows the form a frame or more after the problems do
  await expect.poll(() => yamlText(page)).toContain('sideEffects: None');
});

test('target 1.31: a format. expression is a compile error; the choice is kept with the workspace', async ({ page }) => {
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 30_000 });
  await paste(page, FORMAT_VAP);
  await expect(page.getByRole('form', { name: 'ValidatingAdmissionPolicy form' })).toBeVisible();
  await expect(page.getByTestId('problem-count')).toHaveText('0 errors, 0 warnings');

  const picker = page.getByTestId('kubernetes-version');
  await expect(picker).toHaveValue('1.37');
  const toolbar = await axe(page).include('.toolbar').analyze();
  expect(toolbar.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  await picker.selectOption('1.31');
  const error = problems(page).locator('[data-problem-path="spec.validations[0].expression"]');
  await expect(error).toContainText("undeclared reference to 'format'", { timeout: 15_000 });
  await expect(page.getByTestId('problem-count')).toHaveText('1 error, 0 warnings');

  // kept in the workspace: still 1.31 after a reload
  await expect.poll(() => savedInIndexedDb(page, 'workspace')).toContain('"kubernetesVersion":"1.31"'); // autosave is debounced
  await page.reload();
  await expect(page.getByTestId('kubernetes-version')).toHaveValue('1.31');

  await page.getByTestId('kubernetes-version').selectOption('1.32');
  await expect(page.getByTestId('problem-count')).toHaveText('0 errors, 0 warnings', { timeout: 15_000 });
  await expect(problems(page)).toContainText('No problems: a Kubernetes 1.32 apiserver accepts this object.');
});
