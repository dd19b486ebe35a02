/**
 * The problems list on the core's check pipeline: cross-document findings (G03, G04, P15)
 * follow edits of other documents; kinds that are not checked say so; identical findings
 * are one line that expands.
 */
import { expect, openApp, setYaml, test } from './fixtures';
import type { Page } from '@playwright/test';

const rules = (resources: string) => `    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [${resources}]`;
const VAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-vap
spec:
  matchConstraints:
${rules('services, pods')}
  validations:
  - expression: "true"
`;
const MAP = (resources: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: e2e-map
spec:
  matchConstraints:
${rules(resources)}
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[]"
`;
const MWC = (resources: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: e2e-mwc
webhooks:
- name: e2e.example.com
  clientConfig:
    url: https://e2e.example.com/
  admissionReviewVersions: [v1]
  sideEffects: None
  rules:
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [${resources}]
`;
const BINDING = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-binding
spec:
  policyName: e2e-vap
  validationActions: [Deny]
`;
const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: e2e-config
data:
  a: b
`;

async function importText(page: Page, text: string) {
  await page.getByTestId('file-input').setInputFiles({ name: 'e2e.yaml', mimeType: 'application/yaml', buffer: Buffer.from(text) });
}
const select = (page: Page, name: string) => page.locator('.doc-list button', { hasText: name }).click();
const finding = (page: Page, id: string) => page.locator(`section.problems [data-lint="${id}"]`);

// One load of the sample workspace for the four checks: each imports documents of its own names, and each
// later check reads only its own document's problems (a page load is most of a small test's CPU).
test('problems, one load: findings across documents follow edits; a kind not checked; identical findings grouped; a long list', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  await test.step('G03, G04 and P15 follow edits of other documents', async () => {
    // The sample workspace's mutating webhook covers pods and its MAP configmaps: these use other resources.
    await importText(page, [VAP, MAP('services'), MWC('secrets'), BINDING].join('---\n'));
    await select(page, 'e2e-vap');
    await expect(finding(page, 'G03')).toHaveCount(1);
    await select(page, 'e2e-map');
    await expect(page.locator('section.problems [data-testid="problem-count"]')).toBeVisible();
    await expect(finding(page, 'G04')).toHaveCount(0);
    await select(page, 'e2e-binding');
    await expect(finding(page, 'P15')).toHaveCount(1);

    // The MAP moves to endpoints: the VAP loses G03.
    await select(page, 'e2e-map');
    await setYaml(page, MAP('endpoints'));
    await select(page, 'e2e-vap');
    await expect(finding(page, 'G03')).toHaveCount(0);
    // The mutating webhook starts covering endpoints: the MAP gets G04.
    await select(page, 'e2e-mwc');
    await setYaml(page, MWC('endpoints'));
    await select(page, 'e2e-map');
    await expect(finding(page, 'G04')).toHaveCount(1);
    // The policy narrows to services: its binding loses P15.
    await select(page, 'e2e-vap');
    await setYaml(page, VAP.replace('resources: [services, pods]', 'resources: [services]'));
    await select(page, 'e2e-binding');
    await expect(finding(page, 'P15')).toHaveCount(0);
  });
  await test.step('a kind the Workbench does not check is kept but not checked, never "No problems"', async () => {
    await importText(page, CONFIGMAP);
    await select(page, 'e2e-config');
    await expect(page.getByTestId('not-checked')).toContainText('Kept but not checked');
    await expect(page.locator('section.problems')).not.toContainText('No problems');
  });
  await test.step('identical findings of many webhooks are one line that expands', async () => {
    const hook = (i: number) => `- name: w${i}.e2e.example.com
  clientConfig: {url: "https://e2e.example.com/"}
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  timeoutSeconds: 25
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
`;
    await importText(
      page,
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: e2e-many
webhooks:
${[0, 1, 2, 3, 4].map(hook).join('')}`,
    );
    await select(page, 'e2e-many');
    const group = page.locator('section.problems summary[data-problem-group="W10"]');
    await expect(group).toHaveCount(1);
    await expect(group).toContainText('× 5');
    await expect(group).toContainText('webhooks[*].timeoutSeconds');
    await expect(page.locator('section.problems [data-lint="W10"]').first()).toBeHidden();
    await group.click();
    await expect(page.locator('section.problems [data-lint="W10"]')).toHaveCount(5);
    await page.locator('section.problems [data-lint="W10"]').nth(3).click();
    await expect(page.locator('form [data-path="webhooks[3].timeoutSeconds"]').first()).toBeFocused();
  });
  await test.step('a long list renders the elements near the view; revealing a problem far down focuses its field, scrolling renders more', async () => {
    const hook = (i: number) => `- name: w${i}.e2e.example.com
  clientConfig: {url: "https://e2e.example.com/"}
  admissionReviewVersions: [v1]
  sideEffects: None
  timeoutSeconds: ${i === 1700 ? 45 : 5}
`;
    await importText(
      page,
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: e2e-long
webhooks:
${Array.from({ length: 2000 }, (_, i) => hook(i)).join('')}`,
    );
    await select(page, 'e2e-long');
    const items = page.locator('form .list-item[data-path^="webhooks["]:not([data-path*="."])');
    await expect(page.locator('form section.list[data-path="webhooks"] .count')).toHaveText('2000');
    await expect(items.first()).toHaveAttribute('data-path', 'webhooks[0]');
    // Not 2,000 elements: the blocks near the view.
    expect(await items.count()).toBeLessThan(300);
    await expect(page.locator('form [data-path="webhooks[1700]"]')).toHaveCount(0);
    // The one error, at webhooks[1700], from the problems list: its element is rendered, opened, and the field focused.
    await page.locator('section.problems li', { hasText: 'webhooks[1700].timeoutSeconds' }).locator('button').first().click();
    await expect(page.locator('form input[data-path="webhooks[1700].timeoutSeconds"]')).toBeFocused();
    // Scrolling the form to the middle renders the elements there.
    await page.locator('.form-pane').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    const renderedNear = () =>
      page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLElement>('form .list-item')]
            .map((e) => /^webhooks\[(\d+)\]$/.exec(e.dataset.path ?? '')?.[1])
            .filter((i) => i !== undefined && Number(i) > 600 && Number(i) < 1400).length,
      );
    await expect.poll(renderedNear, { timeout: 15_000 }).toBeGreaterThan(0);
  });
});
