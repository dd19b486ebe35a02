/**
 * Traces wherever a run shows an expression (a matchCondition, a messageExpression, a Simulate
 * step) and the coverage of a policy's saved cases (gutter marks on the YAML lines, the summary).
 */
import type { Page } from '@playwright/test';
import { control, expect, openApp, setYaml, test } from './fixtures';

const outcome = (page: Page) => page.getByTestId('policy-outcome');

/** The sample's replica-limit policy with a matchCondition whose `||` short-circuits and a messageExpression whose `?:` has an untaken branch. */
const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit.example.com
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  matchConditions:
  - name: not-system
    expression: "!object.metadata.name.startsWith('system-') || object.metadata.name == 'system-ok'"
  validations:
  - expression: object.spec.replicas <= int(params.data.maxReplicas)
    messageExpression: "object.spec.replicas > 100 ? 'far too many' : 'replicas must be at most ' + params.data.maxReplicas"
    reason: Invalid
`;

async function openPolicy(page: Page) {
  await openApp(page);
  await page.locator('.doc-list button', { hasText: 'replica-limit.example.com' }).first().click();
  await control(page, 'spec.validations[0].expression').waitFor();
  await setYaml(page, POLICY);
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'admit', { timeout: 30_000 });
}

// One load and policy for both: the first step only reads the test run's values.
test("the policy's test run, one load: values and greyed parts in a matchCondition and a messageExpression; the saved cases' coverage", async ({ page }) => {
  test.setTimeout(180_000);
  await openPolicy(page);
  await test.step('a policy test run shows values and greyed parts in a matchCondition and a messageExpression', async () => {
    const condition = page.getByTestId('pt-match-condition');
    await expect(condition.locator('[data-testid="trace-value"][data-source="object.metadata.name.startsWith(\'system-\')"]')).toHaveText('false');
    await expect(condition.getByTestId('trace-notrun')).toHaveText("object.metadata.name == 'system-ok'");
    const message = page.getByTestId('pt-message-expression');
    await expect(message.locator('[data-testid="trace-value"][data-source="object.spec.replicas"]').first()).toHaveText('3');
    await expect(message.getByTestId('trace-notrun')).toHaveText("'far too many'");
  });
  await test.step('running the saved cases marks the YAML lines of the expressions and sums up the coverage', async () => {
    await page.getByLabel('Case name').fill('small');
    await page.getByRole('button', { name: 'Save inputs as a case' }).click();
    const object = page.getByLabel('object', { exact: true });
    await object.fill((await object.inputValue()).replace('replicas: 3', 'replicas: 8'));
    await expect(outcome(page)).toHaveAttribute('data-outcome', 'deny', { timeout: 30_000 });
    await page.getByLabel('Case name').fill('too many');
    await page.getByRole('button', { name: 'Save inputs as a case' }).click();
    await expect(page.getByTestId('cases-summary')).toHaveText('2/2 pass', { timeout: 30_000 });
    // By hand: the validation is true (small) and false (too many); the matchCondition's left operand
    // is true in both, its right one never runs; the message's condition is false in both: 2 of 6.
    await expect(page.getByTestId('coverage-summary')).toContainText('1 of 1 validation fails in some case; 2 of 6 branches (33 %)', { timeout: 30_000 });
    await expect(page.getByTestId('coverage-finding')).toHaveCount(0);
    // The gutter: the matchCondition's line partly covered, the validation's line covered.
    const marks = await page.evaluate(() => {
      const editor = window.monaco!.editor.getEditors().find((e) => e.getModel()?.uri.path.includes('ValidatingAdmissionPolicy'))!;
      const model = editor.getModel()!;
      return model
        .getAllDecorations()
        .filter((d) => d.options.linesDecorationsClassName?.includes('cov-mark'))
        .map((d) => [model.getLineContent(d.range.startLineNumber).trim().slice(0, 20), d.options.linesDecorationsClassName!.replace('cov-mark ', '')]);
    });
    expect(marks).toEqual([
      ['expression: "!object', 'cov-partly'],
      ['- expression: object', 'cov-covered'],
      ['messageExpression: "', 'cov-partly'],
    ]);
    await expect(page.locator('.yaml-editor .cov-mark.cov-partly').first()).toBeVisible();
  });
});

test('a Simulate step shows its policy expressions with their values', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Request template').selectOption('update-deployment-replicas');
  await expect(page.getByTestId('sim-verdict')).toHaveAttribute('data-allowed', 'true', { timeout: 30_000 });
  const step = page.locator('[data-testid="sim-step"][data-name="replica-limit.example.com"]').first();
  await step.locator('.sim-expressions summary').click();
  const validation = step.locator('[data-testid="sim-expression"][data-field="spec.validations[0].expression"]');
  await expect(validation.locator('[data-testid="trace-value"][data-source="object.spec.replicas"]')).toHaveText('5');
  await expect(validation.locator('[data-testid="trace-value"][data-source="int(params.data.maxReplicas)"]')).toHaveText('5');
});
