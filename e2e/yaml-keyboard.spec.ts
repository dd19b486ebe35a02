/**
 * No keyboard trap in the YAML editor (WCAG 2.1.2), with the keyboard only: Tab
 * indents there, Esc then Tab (or Shift+Tab) leaves it, and Ctrl+M (Monaco's tab-focus mode)
 * makes Tab move focus; both announced.
 */
import type { Page } from '@playwright/test';
import { expect, openApp, test, yamlText } from './fixtures';

test.describe.configure({ timeout: 120_000 });

const inYamlEditor = (page: Page) => page.evaluate(() => !!document.activeElement?.closest('.yaml-editor'));

/** Tab from the top of the page until the focus is in the YAML editor. */
async function tabIntoYaml(page: Page) {
  for (let i = 0; i < 400 && !(await inYamlEditor(page)); i++) await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(true);
}

test('the YAML editor: Tab indents, Esc then Tab leaves, Ctrl+M makes Tab move focus', async ({ page }) => {
  await openApp(page);
  await page.locator('body').focus();
  await tabIntoYaml(page);
  // The way out is in the editor's accessible name, read when it takes focus.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(/Esc then Tab leaves the editor; Ctrl\+M/);

  // Tab is the editor's: it indents and focus stays.
  const before = await yamlText(page);
  await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(true);
  await expect.poll(() => yamlText(page)).not.toBe(before);
  await page.keyboard.press('Shift+Tab');
  expect(await inYamlEditor(page)).toBe(true);

  // Esc arms the way out, announced; Tab then leaves forwards.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('yaml-editor-keys')).toHaveText('Press Tab or Shift+Tab now to leave the editor.');
  await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(false);
  await expect(page.getByTestId('yaml-editor-keys')).toHaveText('');

  // Back in (Shift+Tab from the next control), Tab indents again; Esc then Shift+Tab leaves backwards.
  await page.keyboard.press('Shift+Tab');
  expect(await inYamlEditor(page)).toBe(true);
  const again = await yamlText(page);
  await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(true);
  await expect.poll(() => yamlText(page)).not.toBe(again);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+Tab');
  expect(await inYamlEditor(page)).toBe(false);

  // Esc followed by another key cancels: Tab indents again.
  await tabIntoYaml(page);
  await page.keyboard.press('Escape');
  await page.keyboard.press('End');
  await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(true);

  // Ctrl+M: Monaco's tab-focus mode, announced in its live region; Tab and Shift+Tab move focus.
  await page.keyboard.press('Control+m');
  await expect(page.locator('.monaco-alert')).toContainText(['Pressing Tab will now move focus to the next focusable element']);
  await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(false);
  await page.keyboard.press('Shift+Tab');
  expect(await inYamlEditor(page)).toBe(true);
  await page.keyboard.press('Shift+Tab');
  expect(await inYamlEditor(page)).toBe(false);
  // And Ctrl+M again gives Tab back to the editor.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+m');
  await expect(page.locator('.monaco-alert')).toContainText(['Pressing Tab will now insert the tab character']);
  await page.keyboard.press('Tab');
  expect(await inYamlEditor(page)).toBe(true);
});
