/**
 * The app at a phone's, a tablet's and a desktop's width, light and dark: axe finds nothing
 * serious or critical anywhere on the page (the editors included); at phone width the page is
 * one column no wider than the screen, the document list is a drawer, and the YAML editor is there.
 */
import { axe, expect, openApp, test } from './fixtures';
import type { Page } from '@playwright/test';

const PHONE = 640;

/** Serious and critical axe findings on the whole page, one line each. */
async function seriousFindings(page: Page, where: string): Promise<string[]> {
  const results = await axe(page).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${where}: ${v.id}: ${v.nodes
          .map((n) => `${n.target.join(' ')} ${n.any[0]?.message ?? ''}`)
          .slice(0, 3)
          .join(', ')}`,
    );
}

/** Choose a document from the list (at phone width through the drawer, which closes again). */
async function choose(page: Page, name: string, phone: boolean) {
  if (phone) await page.getByTestId('drawer-toggle').click();
  await page.locator('.doc-list button', { hasText: name }).click();
  if (phone) await expect(page.locator('.sidebar')).toBeHidden();
}

// Light, then dark on the same page (the app follows the system's scheme as it changes): one load per width.
for (const width of [400, 800, 1440])
  test(`no serious or critical accessibility finding at ${width} px, light and dark, editors included`, async ({ page }) => {
    test.setTimeout(120_000);
    const phone = width <= PHONE;
    await page.setViewportSize({ width, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await openApp(page);
    await expect(page.getByTestId('cel-status')).toHaveText('CEL: ready', { timeout: 60_000 });
    // A policy: the form with its CEL editors and test run, and the YAML editor.
    await choose(page, 'replica-limit.example.com', phone);
    await expect(page.getByTestId('policy-outcome')).toBeVisible({ timeout: 30_000 });
    const findings: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
      await page.locator('form [data-path="spec.validations[0].expression"]').first().focus();
      await expect(page.locator('[data-testid="cel-editor"] .monaco-editor').first()).toBeVisible();
      findings.push(...(await seriousFindings(page, `${scheme}: policy`)));
      if (phone) {
        await page.getByTestId('drawer-toggle').click();
        await expect(page.locator('.sidebar')).toBeVisible();
        findings.push(...(await seriousFindings(page, `${scheme}: document drawer`)));
        await page.keyboard.press('Escape');
        await expect(page.locator('.sidebar')).toBeHidden();
      }
    }
    expect(findings).toEqual([]);
  });

test('at 400 px: one column no wider than the screen, the documents in a drawer, whole words, the YAML editor full width', async ({ page }) => {
  await page.setViewportSize({ width: 400, height: 800 });
  await openApp(page);
  const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
  expect(await pageWidth()).toBeLessThanOrEqual(400);

  // Every control of the header and every view's tab is on the screen, none cut.
  for (const control of await page.locator('.toolbar button:visible, .toolbar summary:visible, .toolbar select:visible, .views button:visible').all()) {
    const box = (await control.boundingBox())!;
    expect(box.x, (await control.textContent()) ?? '').toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, (await control.textContent()) ?? '').toBeLessThanOrEqual(400);
  }

  // The list is a drawer: closed, then over the page; Escape closes it and gives focus back.
  const sidebar = page.locator('.sidebar');
  const toggle = page.getByTestId('drawer-toggle');
  await expect(sidebar).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(sidebar).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  expect((await sidebar.boundingBox())!.width).toBeLessThanOrEqual(360);
  await expect(page.locator('.doc-list li.selected .doc-button')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(sidebar).toBeHidden();
  await expect(toggle).toBeFocused();
  // Choosing a document closes it.
  await toggle.click();
  await page.locator('.doc-list button', { hasText: 'sidecar-injector.example.com' }).click();
  await expect(sidebar).toBeHidden();
  await expect(page.locator('form [data-path="metadata.name"]').first()).toHaveValue('sidecar-injector.example.com');

  // The kind's name breaks between words if at all, never inside one: each of its words is on one line.
  const title = page.locator('.pane-head h2');
  await expect(title).toHaveText('MutatingWebhookConfiguration');
  const wordsOnOneLine = await title.evaluate((h) =>
    Array.from(h.childNodes)
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .every((n) => {
        const range = document.createRange();
        range.selectNodeContents(n);
        return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size === 1;
      }),
  );
  expect(wordsOnOneLine).toBe(true);

  // The YAML editor: under the form, the screen's width.
  const editor = page.locator('.yaml-pane .monaco-editor');
  await editor.scrollIntoViewIfNeeded();
  await expect(editor).toBeInViewport();
  const box = (await editor.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(400);
  expect(box.width).toBeGreaterThan(350);
  expect(box.height).toBeGreaterThan(300);
  expect(await pageWidth()).toBeLessThanOrEqual(400);
});

test('at 900 px: the form or the YAML, switched; a problem clicked shows the form at its field', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 800 });
  await openApp(page);
  const form = page.locator('.form-pane');
  const yaml = page.locator('.yaml-pane');
  await expect(form).toBeVisible();
  await expect(yaml).toBeHidden();
  await page.getByTestId('show-yaml').click();
  await expect(page.getByTestId('show-yaml')).toHaveAttribute('aria-pressed', 'true');
  await expect(form).toBeHidden();
  // the editor fills the pane, near the top of the page, not under the form's whole length
  const editor = yaml.locator('.monaco-editor');
  await expect(editor).toBeInViewport();
  expect((await editor.boundingBox())!.height).toBeGreaterThan(200);
  // a problem's link leads to its field in the form (the sample's first document has findings)
  const problem = page.locator('section.problems li button').first();
  await expect(problem).toBeVisible();
  await problem.click();
  await expect(form).toBeVisible();
  await expect(page.getByTestId('show-form')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('show-form').click();
  await expect(yaml).toBeHidden();
});
