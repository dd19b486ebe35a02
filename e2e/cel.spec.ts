/**
 * The CEL editor and evaluation against test inputs, with the real engine (cel-go +
 * k8s.io/apiserver in WebAssembly, in its worker).
 */
import type { Page } from '@playwright/test';
import { control, expect, openApp, test } from './fixtures';

const MC = 'webhooks[0].matchConditions[0].expression';

async function openWithCel(page: Page) {
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 30_000 });
}

/** The Test area of an expression. */
const testArea = (page: Page, path: string) => page.locator(`[data-testid="cel-test"][data-expression-path="${path}"]`);

async function openTest(page: Page, path: string) {
  const area = testArea(page, path);
  const toggle = area.locator('.cel-test-toggle');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  return area;
}

/** Focus an expression: the textarea hands over to Monaco. */
async function focusExpression(page: Page, path: string) {
  await control(page, path).focus();
  await expect(page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"] .monaco-editor`)).toBeVisible();
  await expect(page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"] textarea[data-path="${path}"]`)).toBeFocused();
}

/** Replace the text of the focused CEL editor by typing. */
async function retype(page: Page, text: string) {
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text, { delay: 5 });
}

const celMarkers = (page: Page, path: string) =>
  page.evaluate((p) => {
    const m = window.monaco!;
    const editor = m.editor.getEditors().find((e) => e.getDomNode()?.closest(`[data-expression-path="${p}"]`));
    const model = editor?.getModel();
    if (!model) return [];
    return m.editor.getModelMarkers({ resource: model.uri, owner: 'cel' }).map((x) => ({ line: x.startLineNumber, column: x.startColumn, endColumn: x.endColumn, message: x.message }));
  }, path);

test('evaluates an expression against the test inputs; a changed input changes the result', async ({ page }) => {
  await openWithCel(page);
  const area = await openTest(page, MC);
  const result = area.getByTestId('cel-result');
  await expect(result).toContainText('true');
  await expect(result).toContainText('bool');
  await expect(result).toContainText(/cost \d+ · [\d.]+ ms/);
  const username = area.locator('input[data-input="request.username"]');
  await username.fill('system:serviceaccount:kube-system:foo');
  await expect(area.getByTestId('cel-value')).toHaveText('false');
  // The input YAML is parsed; an error is shown and the text kept.
  const object = area.locator('textarea[data-input="object"]');
  await object.fill('metadata: [oops');
  await expect(area.locator('.cel-input-error')).toContainText('line 1');
  await expect(object).toHaveValue('metadata: [oops');
});
