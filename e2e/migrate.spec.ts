/**
 * Gatekeeper and Kyverno policies open as documents: their structure is checked as their CRDs
 * would, their form lists their rules, and the Migration view lists every one of them.
 */
import { axe, expect, openApp, seriousViolations, test } from './fixtures';
import type { Page } from '@playwright/test';

const CLUSTER_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-container-sock-mounts
spec:
  validatonFailureAction: Audit
  rules:
  - name: validate-socket-mounts
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      cel:
        expressions:
          - expression: "object.spec.?volumes.orValue([]).all(v, !has(v.hostPath))"
`;

const TEMPLATE = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8srequiredlabels
spec:
  crd:
    spec:
      names:
        kind: K8sRequiredLabels
      validation:
        openAPIV3Schema:
          type: object
          properties:
            labels:
              type: array
              items: {type: string}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
      - engine: K8sNativeValidation
        source:
          validations:
          - expression: "variables.params.labels.all(l, l in object.metadata.labels)"
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sRequiredLabels
metadata:
  name: must-have-owner
spec:
  parameters:
    labels: owner
`;

async function paste(page: Page, text: string) {
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('textarea').fill(text);
  await dialog.getByRole('button', { name: /^Import/ }).click();
}

/** Select a document in the sidebar by its name. */
/** Serious or critical accessibility violations on the page (the editor aside). */
const serious = async (page: Page): Promise<string[]> => seriousViolations(await axe(page).exclude('.monaco-editor').analyze());

const open = (page: Page, name: string) => page.locator('.sidebar .doc-title').getByText(name, { exact: true }).click();

test('a ClusterPolicy and a ConstraintTemplate open with their structure checked, and the Migration view lists them', async ({ page }) => {
  await openApp(page);
  await paste(page, `${CLUSTER_POLICY}---\n${TEMPLATE}`);

  await open(page, 'disallow-container-sock-mounts');
  await expect(page.getByTestId('source-rules')).toContainText('validate-socket-mounts');
  await expect(page.getByTestId('source-rules')).toContainText('validate.cel');
  const problems = page.getByRole('region', { name: 'Problems' });
  await expect(problems).toContainText('unknown field "spec.validatonFailureAction"');
  await expect(page.getByTestId('not-checked')).toHaveCount(0);
  expect(await serious(page)).toEqual([]);

  await open(page, 'k8srequiredlabels');
  await expect(page.getByTestId('source-rules')).toContainText('K8sNativeValidation');
  await expect(problems).toContainText("Gatekeeper's CRD schema accepts it");

  // the constraint's parameters follow the template's schema
  await open(page, 'must-have-owner');
  await expect(page.getByTestId('constraint-template')).toHaveText('ConstraintTemplate/k8srequiredlabels');
  await expect(problems).toContainText('spec.parameters.labels');
  await expect(problems).toContainText('must be of type array, not string');

  await page.locator('[data-view="migration"]').click();
  const view = page.getByTestId('migration');
  for (const ref of ['ClusterPolicy/disallow-container-sock-mounts', 'ConstraintTemplate/k8srequiredlabels']) await expect(view).toContainText(ref);
  expect(await serious(page)).toEqual([]);
});
