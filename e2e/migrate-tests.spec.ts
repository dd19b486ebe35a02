/**
 * The source projects' own tests in the migration flow: a Kyverno ValidatingPolicy opened file by
 * file with its kyverno-test.yaml and resources, a Gatekeeper template opened as a folder with its
 * constraints, suite.yaml and objects, and a pattern ClusterPolicy with its .kyverno-test/ folder.
 * The Migration view's Tests column counts each rule's cases, opens onto them, says which file a
 * test names that is not open; Convert saves them as cases of the converted policies. A library's
 * folders with two ClusterPolicies of one name: each row its own file, tests and produced names.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { axe, expect, openApp, seriousViolations, test } from './fixtures';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const VPOL_DIR = 'kyverno/best-practices-vpol/disallow-latest-tag';
const KYVERNO_FILES = [
  fixture(`${VPOL_DIR}/disallow-latest-tag.yaml`),
  fixture(`${VPOL_DIR}/.kyverno-test/kyverno-test.yaml`),
  fixture(`${VPOL_DIR}/.kyverno-test/resource.yaml`),
];
const GATOR_FOLDER = fixture('gatekeeper/library/general/requiredlabels');
const PATTERN_FOLDER = fixture('kyverno-pattern/best-practices/disallow-default-namespace');
const SAME_NAME_FOLDER = fixture('kyverno-same-name');

const row = (page: Page, source: string, rule?: string): Locator => {
  let rows = page
    .getByTestId('migration-rows')
    .locator('tbody tr')
    .filter({ has: page.locator('td:nth-child(2)').getByText(source, { exact: true }) });
  if (rule) rows = rows.filter({ has: page.locator('td:nth-child(3)').getByText(rule, { exact: true }) });
  return rows;
};
const status = (r: Locator) => r.locator('td:nth-child(1)');
const tests = (r: Locator) => r.getByTestId('migration-tests');
const notice = (page: Page, start: string) => page.locator('.notice').filter({ hasText: start });
const sidebarItem = (page: Page, name: string) => page.getByRole('navigation', { name: 'Documents' }).getByRole('button', { name });

async function migrationView(page: Page) {
  await page.locator('[data-view="migration"]').click();
  return page.getByTestId('migration');
}

/** Serious or critical accessibility violations on the page (the editor aside). */
const serious = async (page: Page): Promise<string[]> => seriousViolations(await axe(page).exclude('.monaco-editor').analyze());

// One load for the two open-and-convert flows, one for the two library folders: each step starts from a new
// empty workspace (a page load is a good part of a test's CPU).
test('source tests, one load: a Kyverno ValidatingPolicy and a Gatekeeper folder with their tests, Convert all; a pattern ClusterPolicy, an edit that fails a case, export', {
  tag: '@hosting',
}, async ({ page }) => {
  test.setTimeout(180_000); // four opens, two conversions, the tests run after each open and edit, an axe run, an export: ~65 s on two busy cores
  await openApp(page);
  await test.step('a Kyverno ValidatingPolicy with its kyverno-test.yaml and a Gatekeeper template folder with its suite, each rule tested, Convert all', async () => {
    await page.getByTestId('new-workspace').click();
    // without its resource file first: the test says which file is missing
    await page.getByTestId('file-input').setInputFiles(KYVERNO_FILES.slice(0, 2));
    await expect(sidebarItem(page, 'Test disallow-latest-tag')).toBeVisible();
    let view = await migrationView(page);
    await expect(view.getByTestId('migration-test-problems')).toContainText('kyverno-test.yaml: resource.yaml: file not given');
    await page.getByTestId('file-input').setInputFiles(KYVERNO_FILES.slice(2));
    await expect(notice(page, 'Added 8 document(s) from resource.yaml')).toBeVisible();
    view = await migrationView(page);
    await expect(view.getByTestId('migration-test-problems')).toHaveCount(0);
    // opened documents are shown in the editor: back to the Migration view after each open
    await view.getByTestId('folder-input').setInputFiles(GATOR_FOLDER);
    await expect(notice(page, 'Added 9 document(s) from 9 files')).toBeVisible();
    view = await migrationView(page);

    const VPOL = row(page, 'ValidatingPolicy/disallow-latest-tag');
    const OWNER = row(page, 'K8sRequiredLabels/all-must-have-owner');
    const PIZZA = row(page, 'K8sRequiredLabels/must-have-pizza');
    await expect(view.getByRole('img', { name: '4 exact, 0 different, 0 not convertible' })).toBeVisible();
    for (const r of [VPOL, OWNER, PIZZA]) await expect(status(r)).toHaveText('exact');
    await expect(tests(VPOL).locator('summary')).toHaveText('8 passed');
    await expect(tests(OWNER).locator('summary')).toHaveText('3 passed');
    await expect(tests(PIZZA).locator('summary')).toHaveText('2 passed');
    await expect(row(page, 'ConstraintTemplate/k8srequiredlabels').locator('td:nth-child(6)')).toHaveText('none');
    await expect(view.getByTestId('migration-test-problems')).toHaveCount(0);

    // a count opens onto its cases
    await tests(OWNER).locator('summary').click();
    await expect(tests(OWNER).locator('li')).toHaveText([
      /^passed must-have-owner \/ example-allowed$/,
      /^passed must-have-owner \/ example-disallowed$/,
      /^passed must-have-owner \/ example-disallowed-label-value$/,
    ]);
    expect(await serious(page)).toEqual([]);

    await view.getByTestId('convert-all').click();
    await expect(notice(page, 'Converted 4 rule(s)')).toBeVisible();
    await expect(notice(page, 'Saved 8 case(s)')).toContainText(
      "Saved 8 case(s) of the source tests on the converted policies. Not saved (the policy has several constraints' bindings; the Migration view runs them per constraint): 5.",
    );
    // the tests still pass on the converted set; the view shows every rule
    await expect(tests(VPOL).locator('summary')).toHaveText('8 passed');
    await expect(tests(PIZZA).locator('summary')).toHaveText('2 passed');
  });
  await test.step('a pattern ClusterPolicy with its .kyverno-test/ folder, each rule passing its tests, an edit that fails one, export', async () => {
    await page.getByTestId('new-workspace').click();
    await (await migrationView(page)).getByTestId('folder-input').setInputFiles(PATTERN_FOLDER);
    await expect(sidebarItem(page, 'Test disallow-default-namespace')).toBeVisible();
    const view = await migrationView(page);
    const NS = row(page, 'ClusterPolicy/disallow-default-namespace', 'validate-namespace');
    const CONTROLLERS = row(page, 'ClusterPolicy/disallow-default-namespace', 'validate-podcontroller-namespace');
    await expect(view.getByRole('img', { name: '2 exact, 0 different, 0 not convertible' })).toBeVisible();
    for (const r of [NS, CONTROLLERS]) {
      await expect(status(r)).toHaveText('exact');
      await expect(tests(r).locator('summary')).toHaveText('2 passed');
    }
    await tests(NS).locator('summary').click();
    await expect(tests(NS).locator('li')).toHaveText([
      /^passed disallow-default-namespace\/validate-namespace: Pod badpod01 fail$/,
      /^passed disallow-default-namespace\/validate-namespace: Pod goodpod01 pass$/,
    ]);

    await view.getByTestId('convert-all').click();
    await expect(notice(page, 'Saved 4 case(s)')).toContainText('Saved 4 case(s) of the source tests on the converted policies.');

    // the tests run on every edit: the policy now allows the default namespace, and its case fails by name
    await NS.locator('td:nth-child(2)').getByRole('button').click();
    await expect(page.getByRole('region', { name: 'Form' }).locator('.pane-head h2')).toHaveText('ClusterPolicy');
    const yaml = await page.evaluate(() => window.monaco!.editor.getEditors()[0].getModel()!.getValue());
    expect(yaml).toContain('namespace: "!default"');
    await page.evaluate(() => {
      const editor = window.monaco!.editor.getEditors()[0];
      const model = editor.getModel()!;
      const text = model.getValue();
      const at = text.indexOf('namespace: "!default"');
      const start = model.getPositionAt(at);
      const end = model.getPositionAt(at + 'namespace: "!default"'.length);
      editor.executeEdits('e2e', [
        {
          range: { startLineNumber: start.lineNumber, startColumn: start.column, endLineNumber: end.lineNumber, endColumn: end.column },
          text: 'namespace: "?*"',
        },
      ]);
    });
    await migrationView(page);
    await expect(tests(NS).locator('summary')).toHaveText('1 passed1 failed');
    await expect(tests(NS).locator('li[data-state="failed"]')).toContainText('Pod badpod01 fail');
    // undo brings it back
    await page.keyboard.press('Control+z');
    await expect(tests(NS).locator('summary')).toHaveText('2 passed');

    // export: the converted set as a ZIP
    await page.getByTestId('export-menu').click();
    const [zip] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-migration').click()]);
    expect(zip.suggestedFilename()).toBe('native-admission.zip');
    const bytes = readFileSync((await zip.path())!);
    expect(bytes.includes(Buffer.from('native/validatingadmissionpolicy-cpol-disallow-default-namespace-validate-namespace.yaml'))).toBe(true);
  });
});

test('source tests, one load: a gator case the apiserver decides differently; two ClusterPolicies of one name in two folders of a library', async ({
  page,
}) => {
  test.setTimeout(180_000); // two folder opens (one of 15 files), the tests run after each, an axe run: ~35 s on two busy cores
  await openApp(page);
  await test.step('a gator case the apiserver decides differently (a Pod with only ephemeral containers) is shown as such, with why', async () => {
    await page.getByTestId('new-workspace').click();
    await (await migrationView(page)).getByTestId('folder-input').setInputFiles(fixture('gatekeeper/library/pod-security-policy/read-only-root-filesystem'));
    await expect(sidebarItem(page, 'Suite read-only-root-filesystem')).toBeVisible();
    // the library's three samples reuse the constraint's name: three rows, the suite's first test on one of them
    const rows = row(page, 'K8sPSPReadOnlyRootFilesystem/psp-readonlyrootfilesystem');
    // the files arrive one by one and the last selects its document (as in the next step): back to
    // the Migration view once all are in (on busy cores the view was once left with no rows)
    await expect(async () => {
      await migrationView(page);
      await expect(rows).toHaveCount(3, { timeout: 1000 });
    }).toPass();
    const view = await migrationView(page);
    const r = rows.filter({ hasText: 'decided differently' });
    await expect(tests(r).locator('summary .tests-count')).toHaveText(['4 passed', '1 decided differently']);
    await tests(r).locator('summary').click();
    const differs = tests(r).locator('li[data-state="differs"]');
    await expect(differs).toContainText('require-read-only-root-filesystem / disallowed-ephemeral');
    await expect(differs).toContainText(
      'The source tool decides otherwise: the apiserver decodes the object with spec.containers: null (absent in the file, which `gator verify` reviews as written).',
    );
    await expect(view.getByTestId('migration-test-problems')).toHaveCount(0);
    expect(await serious(page)).toEqual([]);
  });
  await test.step('two ClusterPolicies of one name in two folders of a library, each row its own file, tests and produced names, said on both', async () => {
    await page.getByTestId('new-workspace').click();
    await (await migrationView(page)).getByTestId('folder-input').setInputFiles(SAME_NAME_FOLDER);
    const first = row(page, 'ClusterPolicy/restrict-annotations', 'check-ingress');
    const second = row(page, 'ClusterPolicy/restrict-annotations', 'block-flux-v1');
    // the files arrive one by one and the last selects its document: back to the Migration view once all are in
    await expect(async () => {
      await migrationView(page);
      await expect(row(page, 'ValidatingPolicy/restrict-annotations')).toHaveCount(1, { timeout: 1000 });
    }).toPass();
    await expect(first.locator('td:nth-child(2)')).toContainText('kyverno-same-name/nginx-ingress-cel/restrict-annotations/restrict-annotations.yaml');
    await expect(second.locator('td:nth-child(2)')).toContainText('kyverno-same-name/other-cel/restrict-annotations/restrict-annotations.yaml');
    await expect(first.locator('td:nth-child(4)')).toContainText('is in the input 2 times');
    await expect(second.locator('td:nth-child(4)')).toContainText("this is the 2nd, its objects' names with -2 after the policy's name");
    await expect(second.locator('td:nth-child(5)')).toContainText('ValidatingAdmissionPolicy/cpol-restrict-annotations-2');
    await expect(tests(first).locator('summary')).toHaveText('7 passed');
    await expect(tests(second).locator('summary')).toHaveText('3 passed');
    await expect(tests(row(page, 'ValidatingPolicy/restrict-annotations')).locator('summary')).toHaveText('3 passed');
    // the row opens its own document, not the first of that name
    await second.locator('td:nth-child(2)').getByRole('button').click();
    // the YAML editor mounts after the form (here it once was not there yet): polled until it is
    await expect.poll(() => page.evaluate(() => window.monaco?.editor.getEditors()[0]?.getModel()?.getValue() ?? '')).toContain('block-flux-v1');
  });
});
