/**
 * What a new user runs into first: dialogs that hold focus, autosave that never loses an
 * edit silently, non-UTF-8 files refused as the CLI refuses them, an empty workspace and
 * replacing the workspace on import, dark mode, self-dismissing notices beside (not over) the
 * workspace, and no serious accessibility findings in the main views, light and dark.
 */
import type { Page } from '@playwright/test';
import { axe, control, expect, openApp, setYaml, test, VWC, withoutSystemGuard, yamlText } from './fixtures';

const focusedInside = (page: Page, selector: string) => page.evaluate((s) => !!document.activeElement?.closest(s), selector);

// One load of the sample workspace for the checks that each needed only a few clicks (a page load is most of
// a test's CPU). In this order none of them reads what an earlier one changed: the Tab order before any
// notice or dialog, the refused file and the scroll before any edit, the imports (param kind, notices) last.
test('the sample workspace, one load: keyboard, a refused file, scrolling, dialogs, param objects, notices', async ({ page }) => {
  test.setTimeout(120_000); // six checks, the last one waits for notices to dismiss themselves
  await openApp(page);
  await test.step('keyboard only: the header, its Export menu, the documents and the form are reached and left with Tab', async () => {
    const focusedName = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el ? (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() : '';
      });
    await page.locator('body').focus();
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      seen.push(await focusedName());
    }
    // No invisible stop (the hidden file input) between the header's controls.
    expect(seen).toEqual(expect.arrayContaining(['Open files…', 'Paste YAML…', 'New empty workspace', 'Export', 'Share…']));
    expect(seen.indexOf('Paste YAML…')).toBe(seen.indexOf('Open files…') + 1);
    // The Export menu opens with Enter, its items are reached with Tab, Escape closes it and focus goes back.
    const summary = page.getByTestId('export-menu');
    await summary.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Download all' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('button', { name: 'Download all' })).toBeHidden();
    await expect(summary).toBeFocused();
    // On to the documents and the form.
    for (let i = 0; i < 30 && !(await page.evaluate(() => !!document.activeElement?.closest('form.kind-form'))); i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('form.kind-form'))).toBe(true);
  });

  await test.step('a file that is not UTF-8 is refused as the CLI refuses it', async () => {
    const latin1 = Buffer.concat([Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    await page.getByTestId('file-input').setInputFiles({ name: 'latin1.yaml', mimeType: 'application/yaml', buffer: latin1 });
    await expect(page.locator('.notice.error')).toContainText('latin1.yaml: not UTF-8 text: not YAML or JSON. Nothing was imported from it.');
    await expect(page.locator('.doc-list li')).toHaveCount(5);
  });

  await test.step('a form edit scrolls the YAML pane to the line it changed', async () => {
    const visible = () =>
      page.evaluate(() => {
        const editor = window.monaco!.editor.getEditors()[0]!;
        const r = editor.getVisibleRanges()[0]!;
        const lines = editor.getModel()!.getLinesContent();
        return lines.slice(r.startLineNumber - 1, r.endLineNumber).join('\n');
      });
    expect(await visible()).not.toContain('timeoutSeconds: 4');
    const field = control(page, 'webhooks[1].timeoutSeconds');
    await field.fill('4');
    await expect.poll(visible).toContain('timeoutSeconds: 4');
    // Focus stays in the form.
    await expect(field).toBeFocused();
  });

  await test.step('every dialog holds focus, closes on Escape wherever focus is, and gives focus back to its opener', async () => {
    // Paste: Tab and Shift+Tab never leave it; Escape from a button (not only the textarea) closes it.
    const paste = page.getByRole('button', { name: 'Paste YAML…' });
    await paste.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Paste YAML or JSON' });
    await expect(dialog.getByLabel('YAML to import')).toBeFocused();
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press('Tab');
      expect(await focusedInside(page, '[role="dialog"]')).toBe(true);
    }
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await focusedInside(page, '[role="dialog"]')).toBe(true);
    }
    await dialog.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(paste).toBeFocused();
    // The page behind a dialog cannot be clicked or focused.
    await paste.click();
    await expect(page.locator('#root')).toHaveAttribute('inert', '');
    await page.keyboard.press('Escape');
    await expect(page.locator('#root')).not.toHaveAttribute('inert');

    // Share.
    const share = page.getByRole('button', { name: 'Share…' });
    await share.focus();
    await page.keyboard.press('Enter');
    const shareDialog = page.getByRole('dialog', { name: 'Share' });
    await expect(shareDialog).toBeVisible();
    expect(await focusedInside(page, '[role="dialog"]')).toBe(true);
    for (let i = 0; i < 10; i++) await page.keyboard.press('Tab');
    expect(await focusedInside(page, '[role="dialog"]')).toBe(true);
    await page.keyboard.press('Escape');
    await expect(shareDialog).toHaveCount(0);
    await expect(share).toBeFocused();

    // A quick fix's preview.
    await withoutSystemGuard(page);
    const finding = page.locator('.problems li', { has: page.locator('[data-lint="W03"]') });
    await finding.getByRole('button', { name: /Quick fixes for W03/ }).click();
    const fix = finding.getByRole('button', { name: 'Set failurePolicy: Ignore (fail open)…' });
    await fix.focus();
    await page.keyboard.press('Enter');
    const fixDialog = page.getByTestId('fix-dialog');
    await expect(fixDialog).toBeVisible();
    expect(await focusedInside(page, '[data-testid="fix-dialog"]')).toBe(true);
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
    expect(await focusedInside(page, '[data-testid="fix-dialog"]')).toBe(true);
    await page.keyboard.press('Escape');
    await expect(fixDialog).toHaveCount(0);
    // The list of fixes closed as the dialog opened: focus goes back to its lightbulb.
    await expect(finding.getByRole('button', { name: /Quick fixes for W03/ })).toBeFocused();
  });

  await test.step("param objects are documents to edit: a ConfigMap (form and YAML), and an object of a policy's paramKind", async () => {
    await page.locator('.doc-list button', { hasText: 'replica-limit' }).filter({ hasText: 'ConfigMap' }).click();
    const value = page.getByLabel('Data value of maxReplicas');
    await expect(value).toHaveValue('5');
    await value.fill('3');
    await expect.poll(() => yamlText(page)).toMatch(/maxReplicas: ["']3["']/);
    await expect(control(page, 'metadata.namespace')).toHaveValue('default');
    // The YAML is editable too.
    await setYaml(page, (await yamlText(page)).replace(/maxReplicas: ["']3["']/, 'maxReplicas: "4"'));
    await expect(value).toHaveValue('4');
    const readOnly = () => page.evaluate(() => window.monaco!.editor.getEditors()[0]!.getOption(window.monaco!.editor.EditorOption.readOnly));
    expect(await readOnly()).toBe(false);

    // A custom param kind named by a policy's paramKind.
    const crd = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: limits.example.com
spec:
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= params.maxReplicas
---
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: default-limit
maxReplicas: 3
`;
    await page.getByTestId('file-input').setInputFiles({ name: 'crd.yaml', mimeType: 'application/yaml', buffer: Buffer.from(crd) });
    await page.locator('.doc-list button', { hasText: 'default-limit' }).click();
    await expect(control(page, 'metadata.name')).toHaveValue('default-limit');
    await control(page, 'metadata.name').fill('renamed-limit');
    await expect.poll(() => yamlText(page)).toContain('name: renamed-limit');
    expect(await yamlText(page)).toContain('maxReplicas: 3');
    expect(await readOnly()).toBe(false);
  });

  await test.step('notices sit above the workspace, never over it, and dismiss themselves', async () => {
    await page.getByTestId('file-input').setInputFiles({ name: 'mine.yaml', mimeType: 'application/yaml', buffer: Buffer.from(VWC) });
    const notice = page.locator('.notice').first();
    await expect(notice).toBeVisible();
    const n = (await notice.boundingBox())!;
    const main = (await page.locator('.main').boundingBox())!;
    expect(n.y + n.height).toBeLessThanOrEqual(main.y);
    await expect(page.locator('.notice')).toHaveCount(0, { timeout: 20_000 });
  });
});

/** A ConfigMap of about 6 MB (over localStorage's 5 M characters; kept, not checked) and a webhook configuration to rename. */
function bigWorkspace(): string {
  const line = `  k: "${'x'.repeat(1000)}"\n`;
  const data = Array.from({ length: 6000 }, (_, i) => line.replace('k', `key${i}`)).join('');
  return `${VWC}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${data}`;
}

test('a 6 MB workspace is saved (IndexedDB, not localStorage): a rename survives the reload', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').setInputFiles({ name: 'big.yaml', mimeType: 'application/yaml', buffer: Buffer.from(bigWorkspace()) });
  await expect(page.locator('.doc-list li')).toHaveCount(7);
  await page.locator('.doc-list button', { hasText: 'imported.example.com' }).click();
  await control(page, 'metadata.name').fill('renamed-after-import');
  await expect(page.locator('.doc-list')).toContainText('renamed-after-import');
  await expect.poll(() => page.evaluate(() => localStorage.getItem('admission-workbench/workspace/unsaved'))).toBeNull();
  await expect(page.locator('.notice.error')).toHaveCount(0);
  await page.reload();
  await expect(page.locator('.doc-list')).toContainText('renamed-after-import');
  await expect(page.locator('.doc-list li')).toHaveCount(7);
  await expect(page.locator('.notice.error')).toHaveCount(0);
});

test('a failing autosave says so at once, and the reload says the last changes were not saved', async ({ page }) => {
  // The storage refuses writes once the test says so (as a full disk would).
  await page.addInitScript(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (...args: Parameters<typeof put>) {
      if (sessionStorage.getItem('refuse-writes')) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
  await openApp(page);
  await control(page, 'metadata.name').fill('saved-name');
  await expect.poll(() => page.evaluate(() => localStorage.getItem('admission-workbench/workspace/unsaved'))).toBeNull();
  await page.evaluate(() => sessionStorage.setItem('refuse-writes', '1'));
  await control(page, 'metadata.name').fill('lost-name');
  await expect(page.locator('.notice.error')).toContainText(/Autosave failed \(QuotaExceededError\): your changes since .* are only in this tab/);
  // It stays until a write succeeds; the page asks before it is left.
  page.on('dialog', (d) => void d.accept());
  await page.evaluate(() => sessionStorage.removeItem('refuse-writes'));
  await page.reload();
  await expect(page.locator('.doc-list')).toContainText('saved-name');
  await expect(page.locator('.notice.error')).toContainText(
    /Your last changes \(since .*\) were not saved \(QuotaExceededError\): this is the workspace as it was last saved\./,
  );
});

test('a workspace saved in localStorage by an earlier version is moved to IndexedDB', async ({ page }) => {
  const docs = [{ id: 'd1', text: VWC.replace('imported.example.com', 'from-local-storage') }];
  await page.addInitScript(
    (saved) => {
      if (sessionStorage.getItem('seeded')) return;
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem('admission-workbench/workspace/v1', saved);
    },
    JSON.stringify({ version: 1, selectedId: 'd1', docs }),
  );
  await openApp(page);
  await expect(page.locator('.doc-list li')).toHaveCount(1);
  await expect(control(page, 'metadata.name')).toHaveValue('from-local-storage');
  expect(await page.evaluate(() => localStorage.getItem('admission-workbench/workspace/v1'))).toBeNull();
  await page.reload();
  await expect(control(page, 'metadata.name')).toHaveValue('from-local-storage');
});

test('a new empty workspace, and an import that replaces the workspace; both undo', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('new-workspace').click();
  await expect(page.locator('.doc-list li')).toHaveCount(0);
  await expect(page.locator('.content')).toContainText('An empty workspace');
  await page.locator('.notice', { hasText: 'New empty workspace.' }).getByRole('button', { name: 'Undo' }).click();
  await expect(page.locator('.doc-list li')).toHaveCount(5);

  await page.getByTestId('file-input').setInputFiles({ name: 'mine.yaml', mimeType: 'application/yaml', buffer: Buffer.from(VWC) });
  await expect(page.locator('.doc-list li')).toHaveCount(6);
  await page.getByRole('button', { name: 'Replace workspace with these files' }).click();
  await expect(page.locator('.doc-list li')).toHaveCount(1);
  await expect(control(page, 'metadata.name')).toHaveValue('imported.example.com');
  await page.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(page.locator('.doc-list li')).toHaveCount(6);

  // The same from the Paste dialog.
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  await page.getByLabel('YAML to import').fill(VWC.replace('imported.example.com', 'pasted.example.com'));
  await page.getByRole('dialog').getByRole('button', { name: 'Replace workspace' }).click();
  await expect(page.locator('.doc-list li')).toHaveCount(1);
  await expect(control(page, 'metadata.name')).toHaveValue('pasted.example.com');
});

test('dark mode follows the system, the toggle overrides it and is kept; Monaco follows', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const editorBackground = () => page.evaluate(() => getComputedStyle(document.querySelector('.monaco-editor .monaco-editor-background')!).backgroundColor);
  expect(await editorBackground()).toBe('rgb(30, 30, 30)');
  const toggle = page.getByTestId('theme-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await toggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect.poll(editorBackground).toBe('rgb(255, 255, 254)');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

// Light, then dark on the same page (the app follows the system's scheme as it changes): one load, and the
// dark pass visits the views in reverse so that no view is opened twice to get back to it.
test('no serious or critical accessibility findings in the main views, light and dark', async ({ page }) => {
  test.setTimeout(300_000); // twelve axe runs on a shared machine
  await page.emulateMedia({ colorScheme: 'light' });
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const findings: string[] = [];
  const scan = async (view: string) => {
    const results = await axe(page).exclude('.monaco-editor').analyze();
    for (const v of results.violations)
      if (v.impact === 'serious' || v.impact === 'critical')
        findings.push(
          `${view}: ${v.id}: ${v.nodes
            .map((x) => x.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
        );
  };
  const workspaceViews = async (scheme: string) => {
    await scan(`${scheme}: workspace`);
    await page.getByRole('button', { name: 'Paste YAML…' }).click();
    await scan(`${scheme}: paste dialog`);
    await page.keyboard.press('Escape');
    await page.getByTestId('export-menu').click();
    await scan(`${scheme}: export menu`);
    await page.keyboard.press('Escape');
  };
  await workspaceViews('light');
  // the policy's form and its test run: responsive.spec.ts scans them at this width in both
  // schemes (the editors included), so one whole-page pass of that view is enough
  await page.locator('.doc-list button', { hasText: 'replica-limit.example.com' }).click();
  await expect(page.getByTestId('policy-outcome')).toBeVisible({ timeout: 30_000 });
  await page.locator('[data-view="simulate"]').click();
  await expect(page.locator('.content')).not.toContainText('Loading the simulator');
  await scan('light: simulate');
  await page.locator('[data-view="lockout"]').click();
  await expect(page.locator('.content')).not.toContainText('Loading the lockout');
  await scan('light: lockout');
  await page.locator('[data-view="scratchpad"]').click();
  await expect(page.getByTestId('cel-result')).toHaveAttribute('data-ok', 'true', { timeout: 60_000 });
  await scan('light: scratchpad');

  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await scan('dark: scratchpad');
  await page.locator('[data-view="lockout"]').click();
  await expect(page.locator('.content')).not.toContainText('Loading the lockout');
  await scan('dark: lockout');
  await page.locator('[data-view="simulate"]').click();
  await expect(page.locator('.content')).not.toContainText('Loading the simulator');
  await scan('dark: simulate');
  await page.locator('.doc-list button', { hasText: 'policy-guard.example.com' }).click();
  await expect(control(page, 'metadata.name')).toHaveValue('policy-guard.example.com');
  await workspaceViews('dark');
  expect(findings).toEqual([]);
});
