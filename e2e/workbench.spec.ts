import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { control, expect, markers, MULTI, openApp, savedInIndexedDb, setYaml, test, VWC, yamlText } from './fixtures';

// One load for the @hosting checks that need no fresh page of their own (a page load is most of a test's
// CPU), in an order where none reads what an earlier one changed.
test('the sample workspace, one load: first visit, hostile input, a reload, export', { tag: '@hosting' }, async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await openApp(page);
  await test.step('first visit shows a sample workspace with both Monaco workers and no problems', async () => {
    await expect(page.locator('.doc-list li')).toHaveCount(5);
    await expect(control(page, 'metadata.name')).toHaveValue('policy-guard.example.com');
    await expect(page.getByTestId('problem-count')).toHaveText('0 errors, 0 warnings');
    await expect.poll(() => workers.some((u) => /editor\.worker/.test(u))).toBe(true);
    await expect.poll(() => workers.some((u) => /yaml\.worker/.test(u))).toBe(true);
  });

  await test.step('hostile input gets a clear message and loses nothing', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      );
    await page.getByTestId('file-input').setInputFiles({ name: 'bomb.yaml', mimeType: 'application/yaml', buffer: Buffer.from(bomb.join('\n')) });
    await expect(page.locator('.notice.error')).toContainText('bomb.yaml');
    await expect(page.locator('.doc-list li')).toHaveCount(6);
    await expect.poll(() => yamlText(page)).toContain('a: &a');

    // A 50 MB file is refused before it is read, with its size in the message; the page stays usable.
    const huge = join(testInfo.outputDir, 'huge.yaml');
    mkdirSync(testInfo.outputDir, { recursive: true });
    writeFileSync(huge, Buffer.alloc(50 * 1024 * 1024, 'a: b\n'));
    await page.getByTestId('file-input').setInputFiles(huge);
    await expect(page.locator('.notice.error', { hasText: 'huge.yaml' })).toContainText('50.0 MB');
    await expect(page.locator('.doc-list li')).toHaveCount(6);
    await page.locator('.doc-list button', { hasText: 'policy-guard' }).click();
    await control(page, 'metadata.name').fill('still-responsive');
    await expect(control(page, 'metadata.name')).toHaveValue('still-responsive');
  });

  await test.step('the workspace survives a reload; undo and redo work from the keyboard', async () => {
    await control(page, 'metadata.name').fill('renamed.example.com');
    await expect(page.locator('.doc-list')).toContainText('renamed.example.com');
    await expect.poll(() => savedInIndexedDb(page, 'workspace')).toContain('renamed.example.com'); // autosave is debounced
    await page.reload();
    await page.waitForFunction(() => !!window.monaco?.editor.getEditors()[0]?.getModel());
    await expect(control(page, 'metadata.name')).toHaveValue('renamed.example.com');

    await control(page, 'webhooks[0].timeoutSeconds').fill('9');
    await expect.poll(() => yamlText(page)).toContain('timeoutSeconds: 9');
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('ControlOrMeta+z');
    await expect(control(page, 'webhooks[0].timeoutSeconds')).toHaveValue('5');
    await page.keyboard.press('ControlOrMeta+Shift+z');
    await expect(control(page, 'webhooks[0].timeoutSeconds')).toHaveValue('9');
    // Undo from inside the YAML editor uses the same history.
    await page.locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+z');
    await expect(control(page, 'webhooks[0].timeoutSeconds')).toHaveValue('5');
  });

  await test.step('export downloads what was imported and edited, unknown fields included', async () => {
    await setYaml(page, VWC);
    await control(page, 'webhooks[0].timeoutSeconds').fill('3');
    await page.getByTestId('export-menu').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download document' }).click()]);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text).toContain('customField: survives');
    expect(text).toContain('timeoutSeconds: 3');
    expect(text.indexOf('apiVersion')).toBe(0);
    expect(text.indexOf('timeoutSeconds')).toBeLessThan(text.indexOf('admissionReviewVersions'));
  });
});

test('imports a multi-document file; other kinds are kept read-only; HTML in strings stays text', { tag: '@hosting' }, async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').setInputFiles({ name: 'multi.yaml', mimeType: 'application/yaml', buffer: Buffer.from(MULTI) });
  await expect(page.locator('.doc-list li')).toHaveCount(8);
  await expect(control(page, 'metadata.name')).toHaveValue('imported.example.com');
  await expect(page.locator('form input[data-path="metadata.annotations[note]"]').last()).toHaveValue(/<script>alert\(2\)<\/script>/);
  // A ConfigMap is a param object: a form of its own.
  await page.locator('.doc-list button', { hasText: 'params' }).click();
  await expect(page.getByLabel('Data value of maxReplicas')).toHaveValue('5');
  // Other kinds are kept read-only.
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'svc.yaml', mimeType: 'application/yaml', buffer: Buffer.from('apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n') });
  await expect(page.getByText('does not edit Service objects')).toBeVisible();
  await expect(page.locator('.notices')).toContainText('other kinds are kept read-only');
});

// One load for the checks that each needed only a few edits. Each works on its own document or field, or
// starts from the sample's text (the best-practice step), so none reads what an earlier one changed.
test('the sample workspace, one load: broken YAML, validation errors, best practice, form and YAML edits, webhooks, deleting', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  const sample = await yamlText(page);
  await test.step('broken YAML shows its error with line and column, keeps the text and the last good form', async () => {
    const good = await yamlText(page);
    const broken = good.replace('webhooks:', 'webhooks: [oops');
    await setYaml(page, broken);
    await expect(page.locator('.banner.error')).toContainText(/does not parse \(line \d+, column \d+\)/);
    await expect(page.locator('.problems')).toContainText('YAML');
    await expect(control(page, 'webhooks[0].name')).toHaveValue('pods.policy-guard.example.com');
    expect(await yamlText(page)).toBe(broken);
    await expect.poll(async () => (await markers(page)).some((m) => m.severity === 8)).toBe(true);
    await setYaml(page, good);
    await expect(page.locator('.banner.error')).toHaveCount(0);
  });

  await test.step('validation errors show at the field, in the problems list and as YAML markers; a click focuses the field', async () => {
    await control(page, 'webhooks[0].timeoutSeconds').fill('45');
    const problem = page.locator('[data-problem-path="webhooks[0].timeoutSeconds"]:not([data-lint])');
    await expect(problem).toContainText('Invalid');
    await expect(page.locator('.field.has-error [data-path="webhooks[0].timeoutSeconds"]')).toBeVisible();
    await expect
      .poll(async () =>
        (await markers(page))
          .filter((m) => m.owner === 'workbench')
          .map((m) => m.message)
          .join('\n'),
      )
      .toContain('timeoutSeconds');
    const line = (await markers(page)).find((m) => m.owner === 'workbench')!.line;
    const text = await yamlText(page);
    expect(text.split('\n')[line - 1]).toContain('timeoutSeconds');
    await page.locator('input[data-path="metadata.name"]').focus();
    await problem.click();
    await expect(control(page, 'webhooks[0].timeoutSeconds')).toBeFocused();
  });

  await test.step('best-practice findings show beside apiserver errors: a fail-closed webhook on every resource', async () => {
    const text = sample; // what a fresh page shows: the earlier steps' edits do not count here
    // without the sample's matchCondition that lets system: users skip the webhook (with it, W03 is quiet)
    const bare = text.replace(/^[ \t]*matchConditions:\n[ \t]*- name: exclude-system-users\n[ \t]*expression: .*\n/m, '');
    await setYaml(page, bare.replace(/(resources:\n\s*- )pods\n/, "$1'*'\n"));
    await expect(page.locator('[data-lint="W05"]')).toBeVisible();
    await expect(page.locator('[data-lint="W03"]')).toContainText('wildcard resources');
    await expect(page.getByTestId('problem-count')).toHaveText('0 errors, 0 warnings');
    await expect(page.locator('.field-messages li.lint').first()).toBeVisible();
  });

  await test.step('a form edit shows in the YAML, a YAML edit shows in the form', async () => {
    const timeout = control(page, 'webhooks[0].timeoutSeconds');
    await timeout.fill('7');
    await expect.poll(() => yamlText(page)).toMatch(/timeoutSeconds: 7\n/);
    await page.locator('form select[data-path="webhooks[0].failurePolicy"]').selectOption('Ignore');
    await expect.poll(() => yamlText(page)).toMatch(/failurePolicy: Ignore\n/);

    const text = await yamlText(page);
    await setYaml(page, text.replace('timeoutSeconds: 7', 'timeoutSeconds: 12'));
    await expect(timeout).toHaveValue('12');

    // Real typing in the editor too.
    await page.locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('\n');
    await page.keyboard.press('Home');
    await page.keyboard.insertText('# typed by hand');
    await expect.poll(() => yamlText(page)).toContain('# typed by hand');
  });

  await test.step('webhooks can be added, reordered and deleted; operations are checkboxes; selectors hide values for Exists', async () => {
    await page.locator('.doc-list button', { hasText: 'sidecar-injector' }).click();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect(page.locator('.list-item[data-path^="webhooks["]:not([data-path*="."])')).toHaveCount(2);
    await page.getByRole('button', { name: 'Move webhook.example.com up' }).click();
    await expect
      .poll(async () => (await yamlText(page)).indexOf('- name: webhook.example.com') < (await yamlText(page)).indexOf('- name: sidecar-injector.example.com'))
      .toBe(true);
    await page.locator('input[type=checkbox][data-path="webhooks[0].rules[0].operations"][data-value="DELETE"]').check();
    await expect.poll(() => yamlText(page)).toMatch(/- DELETE/);
    await page.getByRole('button', { name: 'Delete webhook.example.com' }).click();
    await expect(page.locator('.list-item[data-path^="webhooks["]:not([data-path*="."])')).toHaveCount(1);

    await page.locator('.doc-list button', { hasText: 'policy-guard' }).click();
    const values = page.locator('form [data-path="webhooks[0].namespaceSelector.matchExpressions[0].values"]');
    await expect(values.first()).toBeVisible();
    await page.locator('form select[data-path="webhooks[0].namespaceSelector.matchExpressions[0].operator"]').selectOption('Exists');
    await expect(values).toHaveCount(0);
  });

  await test.step('deleting documents, the selected one included, and undoing it', async () => {
    await page.locator('.doc-list button', { hasText: 'sidecar-injector' }).click();
    await page.locator('.sidebar').getByRole('button', { name: 'Delete sidecar-injector.example.com' }).click();
    await expect(page.locator('.doc-list li')).toHaveCount(4);
    await page.locator('.doc-list button', { hasText: 'policy-guard' }).click();
    await page.locator('.sidebar').getByRole('button', { name: 'Delete policy-guard.example.com' }).click();
    await expect(page.locator('.doc-list li')).toHaveCount(3);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect(page.locator('.doc-list li')).toHaveCount(4);
    await page.locator('.doc-list button', { hasText: 'policy-guard' }).click();
    await expect.poll(() => yamlText(page)).toContain('name: policy-guard.example.com');
  });
});

// The first view's accessibility (axe, the whole page but the editors, light and dark): workspace-ui.spec.ts.
