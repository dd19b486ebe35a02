/**
 * A CEL engine generation that cannot be fetched: the 1.38 engine (cel-1.38.wasm, fetched when
 * 1.38 is first targeted) blocked. The app says so, naming the release and the reason; its CEL
 * features are unavailable and no object is said to be accepted; 1.37 (cel.wasm) still works.
 */
import { expect, openApp, test } from './fixtures';

test('cel-1.38.wasm blocked: CEL 1.38 unavailable with the reason, nothing claimed as accepted; 1.37 still checks', async ({ page }) => {
  await page.context().route('**/cel-1.38.wasm*', (route) => route.abort('failed'));
  await openApp(page);
  const status = page.getByTestId('cel-status');
  await expect(status).toContainText('ready', { timeout: 30_000 });
  const problems = page.getByRole('region', { name: 'Problems' });
  await expect(problems).toContainText('No problems: a Kubernetes 1.37 apiserver accepts this object.');

  await page.getByTestId('kubernetes-version').selectOption('1.38');
  await expect(status).toHaveText('CEL 1.38: unavailable', { timeout: 30_000 });
  // the reason: the fetch the test blocked (a build without the file would say HTTP 404)
  await expect(status).toHaveAttribute('title', 'CEL for Kubernetes 1.38: CEL engine unavailable: the 1.38 engine: TypeError: Failed to fetch');
  const unchecked = problems.getByTestId('cel-unchecked');
  await expect(unchecked).toContainText('CEL expressions not checked: CEL for Kubernetes 1.38: CEL engine unavailable: the 1.38 engine:');
  await expect(problems).not.toContainText('apiserver accepts this object');

  // the default generation is untouched
  await page.getByTestId('kubernetes-version').selectOption('1.37');
  await expect(status).toHaveText('CEL: ready');
  await expect(problems).toContainText('No problems: a Kubernetes 1.37 apiserver accepts this object.');
  await expect(problems.getByTestId('cel-unchecked')).toHaveCount(0);

  // the upgrade check to 1.38 compares nothing, and says why
  await page.getByTestId('upgrade-open').click();
  const dialog = page.getByRole('dialog', { name: 'What changes from release A to B' });
  await dialog.getByTestId('upgrade-to').selectOption('1.38');
  await dialog.getByTestId('upgrade-run').click();
  await expect(dialog.getByTestId('upgrade-result')).toContainText(
    'Nothing compared: compares nothing without the 1.38 engine: CEL engine unavailable: the 1.38 engine: TypeError: Failed to fetch',
  );
  await expect(dialog.getByTestId('upgrade-summary')).toHaveCount(0);
});

test('1.38 picked: its engine loads and checks at 1.38', async ({ page }) => {
  await openApp(page);
  const status = page.getByTestId('cel-status');
  await expect(status).toHaveText('CEL: ready', { timeout: 30_000 });
  await page.getByTestId('kubernetes-version').selectOption('1.38');
  await expect(status).toHaveText('CEL: ready', { timeout: 60_000 });
  await expect(status).toHaveAttribute('title', 'cel-go and the Kubernetes 1.38 CEL environment, in WebAssembly');
  await expect(page.getByRole('region', { name: 'Problems' })).toContainText('No problems: a Kubernetes 1.38 apiserver accepts this object.');
});
