/**
 * The CEL scratchpad: type a bare expression, see its value and cost; the
 * scratchpad's share link opens the same in a fresh page, without touching that page's workspace.
 * Also the narrow sidebar: the selected document's actions never cover its name.
 */
import { expect, openApp, savedInIndexedDb, test } from './fixtures';

test('type an expression, see the value; its share link opens the same scratchpad in a new page', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await page.locator('[data-view="scratchpad"]').click();
  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  // The default: a validation against the default test input (a Pod named by the defaults).
  await expect(page.getByTestId('cel-result')).toHaveAttribute('data-ok', 'true', { timeout: 30_000 });
  await page.getByTestId('scratch-context').selectOption('webhook-matchCondition');
  const editor = page.locator('[data-testid="cel-editor"] textarea');
  await editor.focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('request.operation == request.operation && 6 * 7 == 42 ');
  await expect(page.getByTestId('cel-value')).toHaveText('true', { timeout: 30_000 });
  await expect(page.getByTestId('cel-result')).toContainText(/cost \d+/);
  // A messageExpression returns a string: the request's operation, from the test input form.
  await page.getByTestId('scratch-context').selectOption('vap-messageExpression');
  await editor.focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('request.operation + request.name ');
  await expect(page.getByTestId('cel-value')).toHaveText('"CREATEexample"', { timeout: 30_000 });
  await page.getByLabel('name', { exact: true }).fill('web');
  await expect(page.getByTestId('cel-value')).toHaveText('"CREATEweb"', { timeout: 30_000 });

  await page.getByRole('button', { name: 'Share link to this scratchpad' }).click();
  const link = await page.getByTestId('scratch-link').inputValue();
  expect(link).toMatch(/#workspace=[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
  expect(link.startsWith(new URL(baseURL!).href)).toBe(true);

  // A reload loses nothing: the scratchpad is saved beside the workspace (IndexedDB).
  await expect.poll(() => savedInIndexedDb(page, 'scratchpad')).toContain('"name":"web"');
  await page.reload();
  await page.locator('[data-view="scratchpad"]').click();
  await expect(page.getByTestId('scratch-context')).toHaveValue('vap-messageExpression');
  await expect(page.getByTestId('cel-value')).toHaveText('"CREATEweb"', { timeout: 60_000 });

  const context = await browser.newContext();
  const other = await context.newPage();
  await other.goto(link);
  await expect(other.locator('.notices')).toContainText('Opened a shared CEL scratchpad');
  await expect(other.locator('[data-view="scratchpad"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(other.getByTestId('scratch-context')).toHaveValue('vap-messageExpression');
  await expect(other.getByTestId('cel-value')).toHaveText('"CREATEweb"', { timeout: 60_000 });
  // The workspace of the page that opened it is untouched (the sample's five documents).
  await expect(other.locator('.doc-list li')).toHaveCount(5);
  await context.close();
});

test("at 800 px the selected document's actions do not cover its name", async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 700 });
  await openApp(page);
  const li = page.locator('.doc-list li.selected');
  const title = li.locator('.doc-title');
  const actions = li.locator('.doc-actions');
  await expect(actions).toBeVisible();
  const t = (await title.boundingBox())!;
  const a = (await actions.boundingBox())!;
  const overlap = t.x < a.x + a.width && a.x < t.x + t.width && t.y < a.y + a.height && a.y < t.y + t.height;
  expect(overlap).toBe(false);
  // The name is not cut to nothing: at least 100 px of it show.
  expect(t.width).toBeGreaterThan(100);
});
