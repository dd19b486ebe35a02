import { readFileSync } from 'node:fs';
import { expect, openApp, setYaml, test, VWC } from './fixtures';

/** Export → as code: the workspace as Jsonnet and Rust (the release's schema loaded relative to the page), a field Rust cannot hold refused by its path. */
test('export as code: Jsonnet and Rust files of the workspace; an unknown field refuses the typed export, naming it', { tag: '@hosting' }, async ({ page }) => {
  await openApp(page);
  const exportAs = async (language: string) => {
    await page.getByTestId('export-menu').click();
    await page.getByTestId('export-code-language').selectOption(language);
    await page.getByTestId('export-code').click();
  };
  const [jsonnet] = await Promise.all([page.waitForEvent('download'), exportAs('jsonnet')]);
  expect(jsonnet.suggestedFilename()).toBe('manifests.jsonnet');
  expect(readFileSync((await jsonnet.path())!, 'utf8')).toContain('local validatingWebhookConfiguration_policy_guard_example_com = {');
  const [rust] = await Promise.all([page.waitForEvent('download'), exportAs('rust')]);
  expect(rust.suggestedFilename()).toBe('manifests.rs');
  expect(readFileSync((await rust.path())!, 'utf8')).toContain('pub fn manifests_json() -> Vec<serde_json::Value>');

  await setYaml(page, VWC); // the selected document now has `customField`
  await exportAs('rust');
  await expect(page.locator('.notice.error')).toContainText('customField');
});
