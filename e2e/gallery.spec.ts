/** The policy gallery: opened from "+ New…", an entry becomes documents whose saved cases run and pass in the policy's test panel. */
import { axe, control, expect, openApp, test } from './fixtures';

test('a gallery entry opens as a policy, its bindings and params, and its saved cases pass', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  await page.locator('#new-doc').click();
  await page.getByTestId('new-from-gallery').click();
  const gallery = page.getByTestId('gallery');
  await expect(gallery).toBeVisible();
  await expect(gallery.getByRole('heading', { name: 'Policy gallery' })).toBeVisible();
  const entry = gallery.locator('[data-gallery-entry="replica-limit-params"]');
  await expect(entry.getByRole('link')).toHaveAttribute('href', 'https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/');
  const results = await axe(page).include('[data-testid="gallery"]').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await entry.getByRole('button', { name: 'Open Replica limit from a parameter resource' }).click();
  await expect(gallery).toBeHidden();
  // policy, two bindings and two ReplicaLimit params; the policy is selected
  for (const name of [
    'replicalimit-policy.example.com',
    'replicalimit-binding-test.example.com',
    'replicalimit-binding-nontest',
    'replica-limit-test.example.com',
    'replica-limit-prod.example.com',
  ])
    await expect(page.locator('.doc-list button', { hasText: name }).first()).toBeVisible();
  await expect(control(page, 'metadata.name')).toHaveValue('replicalimit-policy.example.com');
  await expect(page.getByTestId('problem-count')).toHaveText(/^0 errors/);

  await expect(page.locator('[data-testid="cel-status"]')).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(page.getByTestId('cases-summary')).toHaveText('4/4 pass', { timeout: 30_000 });
  await expect(page.locator('.pt-case-list li.pass')).toHaveCount(4);

  // One undo step takes the whole entry away again.
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.locator('.doc-list button', { hasText: 'replicalimit-policy.example.com' })).toHaveCount(0);
});

test('the gallery closes with Escape and gives focus back to the menu', async ({ page }) => {
  await openApp(page);
  await page.locator('#new-doc').click();
  await page.getByTestId('new-from-gallery').click();
  await expect(page.getByTestId('gallery')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('gallery')).toHaveCount(0);
  await expect(page.locator('#new-doc')).toBeFocused();
});

test('"+ New…" acts on Enter, never on an arrow key', async ({ page }) => {
  await openApp(page);
  const docs = page.locator('.doc-list li');
  await expect(docs).toHaveCount(5);
  await page.locator('#new-doc').focus();
  // Closed: the arrows do nothing (a select would have added a document per press).
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await expect(docs).toHaveCount(5);
  // Open: the arrows move between the entries, down to the gallery and back, and add nothing.
  await page.keyboard.press('Enter');
  const menu = page.locator('.new-menu .menu-panel');
  await expect(menu).toBeVisible();
  for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('new-from-gallery')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(menu.locator('[data-kind="MutatingWebhookConfiguration"]')).toBeFocused();
  await expect(docs).toHaveCount(5);
  await expect(page.getByTestId('gallery')).toHaveCount(0);
  // Enter chooses: one document, selected, and the menu closes.
  await page.keyboard.press('Enter');
  await expect(docs).toHaveCount(6);
  await expect(menu).toBeHidden();
  await expect(page.locator('.doc-list li.selected .kind')).toHaveText('MWC');
});
