import { control, expect, openApp, test, newDocument } from './fixtures';

const outcome = (page: import('@playwright/test').Page) => page.getByTestId('policy-outcome');

test('a ValidatingAdmissionPolicy with a param and a binding, built in the UI, admits and denies in a test run', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  // A new policy and a new binding from the templates (names made unique beside the sample's).
  await newDocument(page, 'ValidatingAdmissionPolicy');
  await expect(control(page, 'metadata.name')).toHaveValue('replica-limit-2.example.com');
  await control(page, 'spec.validations[0].messageExpression').waitFor();
  await newDocument(page, 'ValidatingAdmissionPolicyBinding');
  await expect(control(page, 'metadata.name')).toHaveValue('replica-limit-binding-2.example.com');
  await control(page, 'spec.policyName').fill('replica-limit-2.example.com');
  await expect(page.getByTestId('problem-count')).toHaveText('0 errors, 0 warnings');

  // Back to the policy: its test run uses the binding, and the ConfigMap param from the workspace.
  await page.locator('.doc-list button', { hasText: 'replica-limit-2.example.com' }).click();
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'admit', { timeout: 30_000 });
  await expect(page.locator('.pt-binding')).toContainText('replica-limit-binding-2.example.com');
  // the verdict once, not "applies — applies"
  await expect(page.locator('.pt-binding').first()).toContainText('applies');
  await expect(page.locator('.pt-binding').first()).not.toContainText('applies — applies');

  // Ten replicas are over the param's limit of five: denied, with the messageExpression's message.
  const object = page.getByLabel('object', { exact: true });
  await object.fill((await object.inputValue()).replace('replicas: 3', 'replicas: 10'));
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'deny', { timeout: 30_000 });
  await expect(outcome(page)).toContainText('HTTP 422');
  await expect(page.getByTestId('policy-message')).toContainText('replicas must be at most 5');
  // The default test input carries params: they replace the binding's paramRef, and the run says so loudly.
  const params = page.getByLabel('params', { exact: true });
  const typed = await params.inputValue();
  await expect(page.getByTestId('params-override')).toContainText("The test input's params override this binding's paramRef");
  await expect(page.getByTestId('params-override')).toContainText('Without them: found ConfigMap');
  // Without them, the binding says which params its paramRef found.
  await params.fill('');
  await expect(page.getByTestId('params-used').first()).toContainText('(paramRef name', { timeout: 30_000 });
  await expect(page.getByTestId('params-used').first()).toContainText('found ConfigMap');
  await expect(page.getByTestId('params-override')).toHaveCount(0);
  // Other typed params change the result: admitted, and flagged again.
  await params.fill('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\ndata:\n  maxReplicas: "20"\n');
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'admit', { timeout: 30_000 });
  await expect(page.getByTestId('params-override')).toBeVisible();
  await params.fill(typed);
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'deny', { timeout: 30_000 });

  // Warn instead of Deny: admitted with a warning.
  await page.locator('.doc-list button', { hasText: 'replica-limit-binding-2.example.com' }).click();
  await page.locator('input[type=checkbox][data-path="spec.validationActions"][data-value="Deny"]').uncheck();
  await page.locator('input[type=checkbox][data-path="spec.validationActions"][data-value="Warn"]').check();
  await page.locator('.doc-list button', { hasText: 'replica-limit-2.example.com' }).click();
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'warn', { timeout: 30_000 });
  await expect(page.locator('.pt-result')).toContainText('replicas must be at most 5');
});

test('a policy without a binding does not apply, and says why', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  await newDocument(page, 'ValidatingAdmissionPolicy');
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'skip', { timeout: 30_000 });
  await expect(page.locator('.pt-result')).toContainText('No binding in the workspace names this policy');
});

test('a MutatingAdmissionPolicy with an ApplyConfiguration mutation shows the mutated object and its diff', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  await newDocument(page, 'MutatingAdmissionPolicyBinding');
  await expect(control(page, 'spec.policyName')).toHaveValue('default-owner-label.example.com');
  await newDocument(page, 'MutatingAdmissionPolicy');
  await expect(control(page, 'spec.mutations[0].patchType')).toHaveValue('ApplyConfiguration');
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(outcome(page)).toHaveAttribute('data-mutated', 'true', { timeout: 30_000 });
  const diff = page.getByTestId('policy-diff');
  await expect(diff).toContainText('/metadata/labels/owner');
  await expect(diff).toContainText('alice@example.com');
  await expect(page.getByTestId('policy-reinvocation')).toContainText('idempotent');

  // An object that already has an owner: the match condition is false, nothing changes.
  const object = page.getByLabel('object', { exact: true });
  await object.fill((await object.inputValue()).replace('app: example', 'owner: someone'));
  await expect(outcome(page)).toHaveAttribute('data-mutated', 'false', { timeout: 30_000 });
});

test('saved cases re-run on every change, show pass/fail, and export for kaptest', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  await page.locator('.doc-list button', { hasText: 'replica-limit.example.com' }).first().click();
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'admit', { timeout: 30_000 });
  const object = page.getByLabel('object', { exact: true });
  await object.fill((await object.inputValue()).replace('replicas: 3', 'replicas: 8'));
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'deny', { timeout: 30_000 });
  await page.getByLabel('Case name').fill('too many replicas');
  await page.getByRole('button', { name: 'Save inputs as a case' }).click();
  await expect(page.getByTestId('cases-summary')).toHaveText('1/1 pass', { timeout: 30_000 });

  // Loosen the policy: the saved case now fails.
  await page.locator('.monaco-editor .view-lines').first().waitFor();
  const expression = control(page, 'spec.validations[0].expression');
  await expression.focus();
  await page.evaluate(() => {
    const editor = window.monaco!.editor.getEditors().find((e) => e.getModel()?.uri.path.includes('ValidatingAdmissionPolicy'))!;
    const model = editor.getModel()!;
    editor.executeEdits('e2e', [{ range: model.getFullModelRange(), text: model.getValue().replace('<= int(params.data.maxReplicas)', '<= 100') }]);
  });
  await expect(page.getByTestId('cases-summary')).toHaveText('0/1 pass', { timeout: 30_000 });
  await expect(page.locator('[data-case="too many replicas"]')).toContainText('expected deny, got admit');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export for kaptest' }).click()]);
  // one archive, not three files that only work together
  expect(download.suggestedFilename()).toBe('kaptest-replica-limit.example.com.zip');
});
