/**
 * The admission simulator, the lockout analysis and the one test-input store: a workspace is
 * seeded in localStorage before the page loads (with test data in the two old v1 keys).
 */
import { axe, expect, openApp, savedInIndexedDb, seriousViolations, test } from './fixtures';
import type { Page } from '@playwright/test';

const GUARD = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-guard
webhooks:
- name: pods.guard.example.com
  clientConfig:
    service: {namespace: guard, name: guard, path: /validate}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - name: not-admin
    expression: request.userInfo.username != "system:admin"
`;

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - operations: [CREATE, UPDATE]
      apiGroups: [apps]
      apiVersions: [v1]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= 5
    message: replicas must be at most 5
`;

const BINDING = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
`;

const MC = 'webhooks[0].matchConditions[0].expression';

/** What the old stores held (store/cel-tests.ts and store/policy-tests.ts before the one model). */
const CEL_V1 = {
  version: 1,
  docs: {
    'd-guard': {
      cases: {
        [MC]: [
          {
            id: 'c1',
            name: 'admins are skipped',
            inputs: {
              object: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n',
              oldObject: '',
              params: '',
              namespaceObject: '',
              request: {
                operation: 'CREATE',
                group: '',
                version: 'v1',
                kind: 'Pod',
                resource: 'pods',
                subResource: '',
                name: 'x',
                namespace: 'default',
                username: 'system:admin',
                groups: [],
                dryRun: false,
              },
              authorizer: [],
            },
            expect: { error: false, value: 'false' },
          },
        ],
      },
      open: [],
    },
  },
};
const POLICY_V1 = {
  byDoc: {},
  cases: {
    'd-policy': [
      {
        name: 'too many replicas',
        request: {
          uid: '00000000-0000-0000-0000-000000000000',
          kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
          resource: { group: 'apps', version: 'v1', resource: 'deployments' },
          operation: 'CREATE',
          name: 'web',
          namespace: 'default',
          userInfo: { username: 'jane@example.com', groups: ['system:authenticated'] },
          dryRun: false,
        },
        object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 7 } },
        expect: { outcome: 'deny', message: 'replicas must be at most 5' },
      },
    ],
  },
};

const DEFAULT_DOCS = [
  { id: 'd-guard', text: GUARD },
  { id: 'd-policy', text: POLICY },
  { id: 'd-binding', text: BINDING },
];

async function seed(page: Page, v1: boolean, docs = DEFAULT_DOCS) {
  const workspace = { version: 1, selectedId: docs[0]!.id, docs };
  const items: Record<string, string> = { 'admission-workbench/workspace/v1': JSON.stringify(workspace) };
  if (v1) {
    items['admission-workbench/cel-tests/v1'] = JSON.stringify(CEL_V1);
    items['admission-workbench/policy-tests/v1'] = JSON.stringify(POLICY_V1);
  }
  // Once per test: a reload keeps what the app saved since.
  await page.addInitScript((seeded) => {
    if (sessionStorage.getItem('seeded')) return;
    sessionStorage.setItem('seeded', '1');
    localStorage.clear();
    for (const [k, v] of Object.entries(seeded)) localStorage.setItem(k, v);
  }, items);
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 60_000 });
}

/** The data-path of the focused control (or of its nearest ancestor that has one). */
const focusedPath = (page: Page) => page.evaluate(() => document.activeElement?.closest('[data-path]')?.getAttribute('data-path') ?? null);

test('simulate from a template; an unavailable webhook flips the verdict; a step leads to its field; scenarios are saved', async ({ page }) => {
  await seed(page, false);
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('create-pod');
  const verdict = page.getByTestId('sim-verdict');
  await expect(verdict).toHaveAttribute('data-allowed', 'true', { timeout: 30_000 });
  const step = page.locator('[data-testid="sim-step"][data-name="pods.guard.example.com"]');
  await expect(step.first()).toBeVisible();

  await page.locator('.sim-response[data-webhook="pods.guard.example.com"] select').selectOption('unavailable');
  await expect(verdict).toHaveAttribute('data-allowed', 'false');
  await expect(verdict).toContainText('pods.guard.example.com');
  await expect(page.getByTestId('sim-status')).toContainText('Error from server');
  await expect(step.first()).toHaveAttribute('data-outcome', 'error-rejected');

  // An admin is not sent to the webhook (its matchCondition is false): allowed again.
  await page.locator('.simulate input[data-input="request.username"]').fill('system:admin');
  await expect(verdict).toHaveAttribute('data-allowed', 'true');
  await page.locator('.simulate input[data-input="request.username"]').fill('jane@example.com');
  await expect(verdict).toHaveAttribute('data-allowed', 'false');

  // A saved scenario with the verdict of now.
  await page.getByLabel('Scenario name').fill('pods while the guard is down');
  await page.getByRole('button', { name: 'Save as a scenario' }).click();
  await expect(page.getByTestId('scenarios-summary')).toHaveText('1/1 pass');

  expect(seriousViolations(await axe(page).include('.simulate').analyze())).toEqual([]);

  // The step → the webhook's document, its field focused.
  await step.first().getByRole('button').click();
  await expect(page.getByRole('button', { name: 'Document', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => focusedPath(page)).toMatch(/^webhooks\[0\]/);

  // The workspace changes: the scenario re-runs and now fails (the webhook ignores failures).
  await page.locator('form select[data-path="webhooks[0].failurePolicy"]').selectOption('Ignore');
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await expect(verdict).toHaveAttribute('data-allowed', 'true');
  await expect(page.getByTestId('scenarios-summary')).toHaveText('0/1 pass');
  await expect(page.locator('[data-scenario="pods while the guard is down"]')).toContainText('expected denied, got allowed');

  // Scenarios and the simulator's request survive a reload.
  await page.reload();
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await expect(page.locator('[data-scenario="pods while the guard is down"]')).toBeVisible();
  await expect(page.locator('.sim-response[data-webhook="pods.guard.example.com"] select')).toHaveValue('unavailable');
});

test('a workspace a real apiserver would not store: the result says so first, naming the document', async ({ page }) => {
  await seed(page, false, [
    { id: 'd-guard', text: GUARD.replace('  failurePolicy: Fail', '  failurePolicy: Fail\n  timeoutSeconds: 45') },
    ...DEFAULT_DOCS.slice(1),
  ]);
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('create-pod');
  await expect(page.getByTestId('sim-verdict')).toHaveAttribute('data-allowed', 'true', { timeout: 30_000 });
  const banner = page.getByTestId('sim-unstored');
  await expect(banner).toContainText('A real apiserver would not have stored ValidatingWebhookConfiguration pod-guard (1 error)');
  await expect(banner).not.toContainText('replica-limit');
});

test('saved CEL and policy cases of the old v1 storage keys are migrated', async ({ page }) => {
  await seed(page, true);
  const area = page.locator(`[data-testid="cel-test"][data-expression-path="${MC}"]`);
  await expect(area.getByTestId('cel-cases-summary')).toHaveText('1/1 pass', { timeout: 30_000 });
  await area.locator('.cel-test-toggle').click();
  await expect(area.getByRole('textbox', { name: 'Name of case 1' })).toHaveValue('admins are skipped');

  await page.locator('.doc-list button', { hasText: 'replica-limit' }).first().click();
  const c = page.locator('[data-case="too many replicas"]');
  await expect(c).toBeVisible();
  await expect(c.locator('.badge')).toHaveText('pass', { timeout: 30_000 });
  // The v1 keys were moved to the workspace's IndexedDB store (test inputs' own key) and removed from localStorage.
  await expect.poll(() => savedInIndexedDb(page, 'test-inputs')).toContain('too many replicas');
  expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('tests') || k.includes('test-inputs')))).toEqual([]);
});

test('lockout analysis: the headline and a finding linked to its field; accessible', async ({ page }) => {
  await seed(page, false);
  await page.getByRole('button', { name: 'Lockout', exact: true }).click();
  const headline = page.getByTestId('lockout-headline');
  await expect(headline).toContainText(/pod-guard|pods\.guard\.example\.com/, { timeout: 30_000 });
  const finding = page.getByTestId('lockout-finding').first();
  await expect(finding).toBeVisible();
  expect(seriousViolations(await axe(page).include('.lockout').analyze())).toEqual([]);
  await finding.getByRole('button').click();
  await expect(page.getByRole('button', { name: 'Document', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => focusedPath(page)).toMatch(/^webhooks\[0\]/);
});

const ADD_DEBUG = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-debug
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - operations: [CREATE]
      apiGroups: [""]
      apiVersions: [v1]
      resources: [pods]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'debug': 'true'}}}"
`;
const ADD_DEBUG_BINDING = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: add-debug
spec:
  policyName: add-debug
`;
const NO_DEBUG = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-debug
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - operations: [CREATE]
      apiGroups: [""]
      apiVersions: [v1]
      resources: [pods]
  validations:
  - expression: "!has(object.metadata.labels) || !('debug' in object.metadata.labels)"
    message: debug pods are not allowed
`;
const NO_DEBUG_BINDING = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-debug
spec:
  policyName: no-debug
  validationActions: [Deny]
`;

test('M06: a validator that rejects only what a mutation made is named, with links to both', async ({ page }) => {
  await seed(page, false, [
    { id: 'd-add', text: ADD_DEBUG },
    { id: 'd-add-b', text: ADD_DEBUG_BINDING },
    { id: 'd-no', text: NO_DEBUG },
    { id: 'd-no-b', text: NO_DEBUG_BINDING },
  ]);
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('create-pod');
  await expect(page.getByTestId('sim-verdict')).toHaveAttribute('data-allowed', 'false', { timeout: 30_000 });
  const breaks = page.getByTestId('sim-breaks');
  await expect(breaks).toContainText('M06');
  await expect(breaks).toContainText('mutation breaks validation');
  await expect(breaks.locator('button', { hasText: 'add-debug' })).toBeVisible();
  expect(seriousViolations(await axe(page).include('.simulate').analyze())).toEqual([]);
  await breaks.locator('button', { hasText: 'no-debug' }).first().click();
  await expect(page.getByRole('button', { name: 'Document', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => focusedPath(page)).toMatch(/^spec\.validations\[0\]/);
});

test('a step into a later list element opens its document with that field focused (the form renders later elements in the background)', async ({ page }) => {
  const two = `${GUARD.replace('  matchConditions:\n  - name: not-admin\n    expression: request.userInfo.username != "system:admin"\n', '')}- name: pods-audit.guard.example.com
  clientConfig:
    service: {namespace: guard, name: audit, path: /audit}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
`;
  await seed(page, false, [{ id: 'd-guard', text: two }]);
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('create-pod');
  const step = page.locator('[data-testid="sim-step"][data-name="pods-audit.guard.example.com"]');
  await expect(step.first()).toBeVisible({ timeout: 30_000 });
  await step.first().getByRole('button').click();
  await expect(page.getByRole('button', { name: 'Document', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => focusedPath(page)).toMatch(/^webhooks\[1\]/);
});

test('at 1280 px a long audit annotation wraps in the result column: nothing runs off the view', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const injector = GUARD.replace('ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration')
    .replace('name: pod-guard', 'name: sidecar-injector-with-a-long-name')
    .replace('pods.guard.example.com', 'inject.sidecars.platform.example.com');
  await seed(page, false, [...DEFAULT_DOCS, { id: 'd-injector', text: injector }]);
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('create-pod');
  await expect(page.getByTestId('sim-verdict')).toBeVisible({ timeout: 30_000 });
  // the mutating webhook is called: its audit annotation's JSON value is long
  await expect(page.locator('.sim-annotations code').nth(1)).toContainText('"mutated"');
  const overflow = await page.locator('.simulate').evaluate((s) => s.scrollWidth - s.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
