import type { Browser, Page } from '@playwright/test';
import { expect, openApp, test, newDocument } from './fixtures';

/** Kind and name of each document in the sidebar (the selected one also shows its actions: left out). */
const titles = async (page: Page) => (await page.locator('.doc-list li').allInnerTexts()).map((t) => t.split('\n').slice(0, 2).join(' '));

/** A fresh browser context (empty storage) that, like the fixture, blocks any request leaving the origin. */
async function freshPage(browser: Browser, origin: string): Promise<{ page: Page; external: string[]; errors: string[] }> {
  const context = await browser.newContext();
  const external: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    external.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, external, errors };
}

let workspaceFile = '';

async function makeLink(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Share…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share' });
  await expect(dialog).toContainText('never send the fragment to the server');
  const url = dialog.getByTestId('share-url');
  await expect(url).toHaveValue(/#workspace=[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
  const link = await url.inputValue();
  await expect(dialog.getByTestId('share-length')).toHaveText(`${link.length.toLocaleString('en')} characters`);
  await expect(dialog.getByTestId('share-too-long')).toHaveCount(0);
  const download = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Download workspace file' }).click();
  workspaceFile = await (await download).path();
  await dialog.getByRole('button', { name: 'Close' }).click();
  return link;
}

// One load of the sharing tab for both checks: the long link is made after the first step's share (the big
// ConfigMap would have made that link too long).
test('share, one load: the link in fresh contexts, a tampered one; a link over 32 KB', { tag: '@hosting' }, async ({ page, browser, baseURL }) => {
  test.setTimeout(90_000); // five page loads in three contexts, two share dialogs
  await openApp(page);
  await test.step('share the workspace, open the link in a fresh context: the same documents; a tampered link changes nothing', async () => {
    await newDocument(page, 'ValidatingAdmissionPolicy');
    await expect(page.locator('.doc-list li')).toHaveCount(6);
    const before = await titles(page);
    const link = await makeLink(page);
    expect(link.startsWith(new URL(baseURL!).href)).toBe(true);

    const origin = new URL(baseURL!).origin;
    const other = await freshPage(browser, origin);
    await other.page.goto(link);
    await expect(other.page.locator('.notices')).toContainText('Opened a shared workspace: 6 document(s).');
    await expect(other.page.locator('.doc-list li')).toHaveCount(6);
    expect(await titles(other.page)).toEqual(before);
    // The fragment is consumed: a reload does not import again.
    expect(new URL(other.page.url()).hash).toBe('');

    // A tampered link (one character of the data changed) is refused, nothing changes.
    const i = link.length - 10;
    const tampered = link.slice(0, i) + (link[i] === 'A' ? 'B' : 'A') + link.slice(i + 1);
    const third = await freshPage(browser, origin);
    await third.page.goto(tampered);
    await expect(third.page.locator('.notices')).toContainText('The share link could not be opened; nothing was changed. The link is broken');
    await expect(third.page.locator('.doc-list li')).toHaveCount(5);
    // The downloaded workspace file opens with Open files… and gives the same documents.
    await third.page.getByTestId('file-input').setInputFiles(workspaceFile);
    await expect(third.page.locator('.notices')).toContainText('6 document(s)');
    expect(await titles(third.page)).toEqual(before);

    // With work of its own, the tab asks first; keeping it changes nothing.
    await newDocument(other.page, 'MutatingAdmissionPolicy');
    await expect(other.page.locator('.doc-list li')).toHaveCount(7);
    await other.page.goto(link);
    const prompt = other.page.getByRole('alertdialog', { name: 'Open the shared workspace?' });
    await expect(prompt).toContainText('replaces the 7 document(s)');
    await prompt.getByRole('button', { name: 'Keep my workspace' }).click();
    await expect(other.page.locator('.doc-list li')).toHaveCount(7);
    // A truncated link in the same tab: an error, still 7 documents.
    await other.page.goto(link.slice(0, -40));
    await expect(other.page.locator('.notices')).toContainText('The link is broken');
    await expect(other.page.locator('.doc-list li')).toHaveCount(7);

    for (const p of [other, third]) {
      expect(p.external).toEqual([]);
      expect(p.errors).toEqual([]);
      await p.page.context().close();
    }
  });
  await test.step('a link over 32 KB says it may be too long and offers the workspace file', async () => {
    const noise = Array.from(
      { length: 1500 },
      (_, i) => `  k${i}: "${((i * 2654435761) % 4294967296).toString(36)}${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}"`,
    ).join('\n');
    await page.getByTestId('file-input').setInputFiles({
      name: 'big.yaml',
      mimeType: 'application/yaml',
      buffer: Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${noise}\n`),
    });
    // the sample, the policy the first step added and big.yaml
    await expect(page.locator('.doc-list li')).toHaveCount(7);
    await page.getByRole('button', { name: 'Share…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share' });
    await expect(dialog.getByTestId('share-url')).toHaveValue(/#workspace=/);
    await expect(dialog.getByTestId('share-too-long')).toContainText('over 32 KB: some chat tools and mail clients cut links that long');
    expect((await dialog.getByTestId('share-url').inputValue()).length).toBeGreaterThan(32 * 1024);
    await expect(dialog.getByRole('button', { name: 'Download workspace file' })).toBeEnabled();
  });
});
