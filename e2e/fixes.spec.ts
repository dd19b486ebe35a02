/** Quick fixes (lightbulb → preview → apply → undo, and as a Monaco code action) and caBundle inspection at the field. */
import { readFixture } from '../fixtures';
import { axe, expect, openApp, seriousViolations, setYaml, test, withoutSystemGuard, yamlText } from './fixtures';

test("a finding's lightbulb: preview the fix as a diff, apply it, the finding is gone, undo brings it back", async ({ page }) => {
  await openApp(page);
  await withoutSystemGuard(page);
  const ignores = async () => (await yamlText(page)).match(/failurePolicy: Ignore/g)?.length ?? 0;
  const before = await ignores();
  const finding = page.locator('.problems li', { has: page.locator('[data-lint="W03"]') });
  await expect(finding).toHaveCount(1);
  await finding.getByRole('button', { name: /Quick fixes for W03/ }).click();
  await finding.getByRole('button', { name: 'Set failurePolicy: Ignore (fail open)…' }).click();

  const dialog = page.getByTestId('fix-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toHaveText('Set failurePolicy: Ignore (fail open)');
  await expect(dialog).toContainText('requests are admitted without it');
  await expect(dialog.getByTestId('fix-diff').locator('.del')).toContainText('failurePolicy: Fail');
  await expect(dialog.getByTestId('fix-diff').locator('.add')).toContainText('failurePolicy: Ignore');
  await dialog.getByTestId('fix-apply').click();
  await expect(dialog).toBeHidden();

  await expect(page.locator('[data-lint="W03"]')).toHaveCount(0);
  await expect.poll(ignores).toBe(before + 1);

  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.locator('[data-lint="W03"]')).toHaveCount(1);
  await expect.poll(ignores).toBe(before);
});

test('a fix with a parameter from the field lightbulb, and a fix as a code action on the YAML line', async ({ page }) => {
  await openApp(page);
  await withoutSystemGuard(page, (text) => text.replace(/(resources:\n\s*- )pods\n/, "$1'*'\n"));
  // W05 at the field: narrow '*' to what the user types.
  const field = page.locator('.field-messages li', { hasText: 'intercepts every resource' }).first();
  await field.getByRole('button', { name: /Quick fixes for W05/ }).click();
  await field.getByRole('button', { name: 'Narrow the rule to the resources you list…' }).click();
  const dialog = page.getByTestId('fix-dialog');
  await dialog.getByLabel(/Resources/).fill('pods, deployments');
  await dialog.getByLabel(/API groups/).fill('"", apps');
  // the list item was written '*': the new items keep its single quotes
  await expect(dialog.getByTestId('fix-diff').locator('.add')).toContainText(["- 'deployments'"]);
  await dialog.getByTestId('fix-apply').click();
  await expect(page.locator('[data-lint="W05"]')).toHaveCount(0);
  await expect.poll(() => yamlText(page)).toMatch(/- 'deployments'/);

  // W03 as a Monaco code action: the cursor on the marker's line, then Quick Fix (Ctrl/Cmd+.). The
  // markers are set after the edit above is checked again: until then W03's is on its old line.
  const sources = () =>
    page.evaluate(() => {
      const m = window.monaco!;
      const uri = m.editor.getEditors()[0]!.getModel()!.uri;
      return m.editor.getModelMarkers({ resource: uri }).map((x) => x.source?.slice(0, 3) ?? '');
    });
  await expect.poll(sources).not.toContain('W05');
  const line = await page.evaluate(() => {
    const m = window.monaco!;
    const editor = m.editor.getEditors()[0]!;
    const marker = m.editor.getModelMarkers({ resource: editor.getModel()!.uri }).find((x) => x.source?.startsWith('W03'))!;
    editor.focus();
    editor.setPosition({ lineNumber: marker.startLineNumber, column: marker.startColumn + 1 });
    editor.trigger('e2e', 'editor.action.quickFix', null);
    return marker.startLineNumber;
  });
  expect(line).toBeGreaterThan(0);
  await page.getByText('Skip control-plane users and nodes (matchCondition) (W03)').click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('fix-diff').locator('.add')).toContainText(['name: exclude-system-users']);
  await dialog.getByTestId('fix-apply').click();
  await expect(page.locator('[data-lint="W03"]')).toHaveCount(0);
});

test('an expired caBundle: the certificate and its expiry at the field, and a finding', async ({ page }) => {
  await openApp(page);
  const pem = readFixture('ca', 'expired-ca.pem');
  await setYaml(
    page,
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: expired-ca.example.com
webhooks:
- name: expired.hooks.example.com
  clientConfig:
    service: {namespace: hooks, name: hook}
    caBundle: ${Buffer.from(pem).toString('base64')}
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Ignore
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [configmaps]
`,
  );
  const certs = page.getByTestId('ca-certs');
  await expect(certs).toContainText('CN=expired-ca');
  await expect(certs.getByTestId('ca-validity')).toHaveText(/^expired \d+ years? ago \(2021-01-01\)$/);
  await expect(page.locator('[data-lint="C02"]')).toContainText('expired on 2021-01-01');
});

test('the lightbulbs, the open fix list and the preview dialog have no serious accessibility violations', async ({ page }) => {
  test.setTimeout(90_000); // two axe runs over the whole page after an edit: ~50 s on two busy cores
  await openApp(page);
  await withoutSystemGuard(page);
  const finding = page.locator('.problems li', { has: page.locator('[data-lint="W03"]') });
  await finding.getByRole('button', { name: /Quick fixes for W03/ }).click();
  const serious = async () => seriousViolations(await axe(page).exclude('.monaco-editor').analyze());
  expect(await serious()).toEqual([]);
  await finding.getByRole('button', { name: 'Skip control-plane users and nodes (matchCondition)…' }).click();
  await expect(page.getByTestId('fix-dialog')).toBeVisible();
  expect(await serious()).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('fix-dialog')).toBeHidden();
  await expect(page.locator('[data-lint="W03"]')).toHaveCount(1);
});
