import { control, expect, openApp, test } from './fixtures';

// A part of the page whose code does not arrive (the tab lost the site, or a newer version replaced
// the old build's files) says so in its place; the rest of the page stays. Before, React unmounted
// the whole app: a blank page.
test('a part whose code does not arrive says so in its place, and the form and the documents stay', async ({ page, guard }) => {
  await page.route(/\/assets\/PolicyTestPanel-[^/]*\.js$/, (r) => r.abort());
  await openApp(page);
  await page.locator('.doc-list button', { hasText: 'replica-limit.example.com' }).first().click();
  const failed = page.getByTestId('on-demand-failed');
  await expect(failed).toContainText('could not load the test run: its files did not arrive');
  await expect(failed.getByRole('button', { name: 'Reload' })).toBeVisible();
  await expect(control(page, 'metadata.name')).toHaveValue('replica-limit.example.com');
  await page.locator('.doc-list button').first().click();
  await expect(page.locator('form').first()).toBeVisible();
  // the failed download, and React's report of the error it caught, are the console's errors here
  expect(guard.errors.length).toBeGreaterThan(0);
  guard.errors.length = 0;
});
