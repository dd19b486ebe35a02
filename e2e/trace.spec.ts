import { control, expect, openApp, test, newDocument } from './fixtures';
import type { Page } from '@playwright/test';

const outcome = (page: Page) => page.getByTestId('policy-outcome');

/** Focus an expression (the textarea hands over to Monaco) and replace its text. */
async function retype(page: Page, path: string, text: string) {
  await control(page, path).focus();
  await expect(page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"] textarea[data-path="${path}"]`)).toBeFocused();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

test('a policy test run shows sub-expression values, greys what did not run, and lists every failing validation', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await newDocument(page, 'ValidatingAdmissionPolicy');
  await control(page, 'spec.validations[0].messageExpression').waitFor();
  await newDocument(page, 'ValidatingAdmissionPolicyBinding');
  await control(page, 'spec.policyName').fill('replica-limit-2.example.com');
  await page.locator('.doc-list button', { hasText: 'replica-limit-2.example.com' }).click();
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'admit', { timeout: 30_000 });

  const object = page.getByLabel('object', { exact: true });
  await object.fill((await object.inputValue()).replace('replicas: 3', 'replicas: 10'));
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'deny', { timeout: 30_000 });

  // The validation's values inline: 10 replicas, the param's "5", and the comparison false.
  const traced = page.getByTestId('traced-expression').first();
  await expect(traced.locator('[data-testid="trace-value"][data-source="object.spec.replicas"]')).toHaveText('10');
  await expect(traced.locator('[data-testid="trace-value"][data-source="params.data.maxReplicas"]')).toHaveText('"5"');
  await expect(traced.locator('[data-testid="trace-value"][data-source="int(params.data.maxReplicas)"]')).toHaveText('5');

  // && after a false operand: the rest did not run, greyed.
  await retype(page, 'spec.validations[0].expression', "object.spec.replicas <= int(params.data.maxReplicas) && object.metadata.name != ''");
  await expect(page.getByTestId('traced-expression').first().getByTestId('trace-notrun')).toHaveText("object.metadata.name != ''", { timeout: 30_000 });

  // A second failing validation: both reasons, the first is the one reported.
  // (the first click may only take the focus out of the editor)
  await expect(async () => {
    await page.getByRole('button', { name: '+ Add validation' }).click();
    await expect(page.locator('form [data-path="spec.validations[1].expression"]').first()).toBeAttached({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await retype(page, 'spec.validations[1].expression', 'object.spec.replicas < 3');
  const denials = page.getByTestId('policy-denials');
  await expect(denials.locator('li')).toHaveCount(2, { timeout: 30_000 });
  await expect(denials.locator('li[data-reported="true"]')).toContainText('replicas must be at most 5');
  await expect(denials.locator('li[data-reported="false"]')).toContainText('object.spec.replicas < 3');
});

test('the CEL editor shows the Test run values inline', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await newDocument(page, 'ValidatingAdmissionPolicy');
  const path = 'spec.validations[0].expression';
  await control(page, path).waitFor();
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await retype(page, path, "object.spec.replicas > 100 && object.metadata.name == 'x'");
  const area = page.locator(`[data-testid="cel-test"][data-expression-path="${path}"]`);
  await area.locator('.cel-test-toggle').click();
  const editor = page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"]`);
  await expect(editor.locator('.cel-trace-value').first()).toBeVisible({ timeout: 30_000 });
  await expect(editor.locator('.cel-trace-notrun').first()).toBeVisible();
});

test("the CEL editor's inline values are in the test run's order: an operand's value before its enclosing expression's", async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await newDocument(page, 'ValidatingAdmissionPolicy');
  const path = 'spec.validations[0].expression';
  await control(page, path).waitFor();
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await control(page, path).focus();
  const editor = page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"]`);
  await expect(editor.locator('.monaco-editor')).toBeVisible();
  await page.locator(`[data-testid="cel-test"][data-expression-path="${path}"] .cel-test-toggle`).click();
  await expect(editor.locator('.cel-trace-value')).toHaveCount(4, { timeout: 30_000 });
  // int(…) and the whole comparison end at the same place: int's 5 first, then the comparison's value.
  const line = (await editor.locator('.view-line').first().textContent())!.replace(/\u00a0/g, ' ');
  expect(line).toMatch(/^object\.spec\.replicas \d+ <= int\(params\.data\.maxReplicas "5"\) 5 (true|false)$/);
});
