/**
 * The apiserver's type checking of a ValidatingAdmissionPolicy in the app: the schema asset is
 * not fetched by the first page load, only once a policy is checked (relative to the page, so
 * under a sub-path too); the warning shows in the problems list with the apiserver's words and
 * where it goes in Kubernetes, and as a warning marker in the CEL editor. The same schemas type
 * `object` for completion and hover in the CEL editor.
 */
import { control, expect, openApp, setYaml, test } from './fixtures';

test.describe.configure({ timeout: 120_000 });

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicass <= 5
`;

const PATH = 'spec.validations[0].expression';

test('a typo in a field: the type-checking warning in the problems list and the CEL editor; the schemas load only then', { tag: '@hosting' }, async ({
  page,
}) => {
  const schemaRequests: string[] = [];
  page.on('request', (r) => {
    if (/schemas-[\d.]+\.json/.test(r.url())) schemaRequests.push(new URL(r.url()).pathname);
  });
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 60_000 });
  expect(schemaRequests).toEqual([]);

  await setYaml(page, POLICY);
  const line = page.locator(`section.problems [data-problem-path="${PATH}"]`).filter({ hasText: 'TypeChecking' });
  await expect(line).toContainText("apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'", { timeout: 60_000 });
  await expect(line.locator('xpath=..')).toContainText('kube-controller-manager writes this into status.typeChecking');
  // fetched once, relative to the page (the sub-path project serves the app under /portal/…)
  expect(schemaRequests).toHaveLength(1);
  expect(schemaRequests[0]).toMatch(/\/cel\/schemas-1\.37\.json$/);

  // the marker in the CEL editor, at the field
  await control(page, PATH).focus();
  await expect(page.locator(`[data-testid="cel-editor"][data-expression-path="${PATH}"] .monaco-editor`)).toBeVisible();
  await expect
    .poll(() =>
      page.evaluate((p) => {
        const m = window.monaco!;
        const editor = m.editor.getEditors().find((e) => e.getDomNode()?.closest(`[data-expression-path="${p}"]`));
        const model = editor?.getModel();
        return model
          ? m.editor
              .getModelMarkers({ resource: model.uri, owner: 'cel-typecheck' })
              .map((x) => ({ column: x.startColumn, endColumn: x.endColumn, severity: x.severity, message: x.message.split('\n')[0] }))
          : [];
      }, PATH),
    )
    .toEqual([{ column: 13, endColumn: 22, severity: 4, message: "undefined field 'replicass'" }]);

  // fixed: the warning goes
  await setYaml(page, POLICY.replace('replicass', 'replicas'));
  await expect(page.locator(`section.problems [data-problem-path="${PATH}"]`).filter({ hasText: 'TypeChecking' })).toHaveCount(0, { timeout: 30_000 });
});

test('completion and hover of object typed by the matched kind (Deployment): the same schemas', async ({ page }) => {
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 60_000 });
  await setYaml(page, POLICY.replace('replicass', 'replicas'));
  await control(page, PATH).focus();
  const host = page.locator(`[data-testid="cel-editor"][data-expression-path="${PATH}"]`);
  await expect(host.locator('.monaco-editor')).toBeVisible();

  // hover on object.spec.replicas: its schema type
  const at = await page.evaluate((p) => {
    const e = window.monaco!.editor.getEditors().find((x) => x.getDomNode()?.closest(`[data-expression-path="${p}"]`))!;
    const pos = e.getScrolledVisiblePosition({ lineNumber: 1, column: 16 })!;
    const box = e.getDomNode()!.getBoundingClientRect();
    return { x: box.left + pos.left + 2, y: box.top + pos.top + pos.height / 2 };
  }, PATH);
  const hover = page.locator('.monaco-hover').filter({ hasText: 'replicas' }).first();
  // a hover asked before the kind's schemas arrived has no type, and Monaco asks again only when
  // the mouse moves again: as a user would, off the word and back until the type shows
  await expect(async () => {
    await page.mouse.move(at.x, at.y + 60);
    await page.mouse.move(at.x, at.y);
    await expect(hover).toContainText('integer', { timeout: 3_000 });
  }).toPass({ timeout: 60_000 });
  await expect(hover).toContainText('apps/v1 Deployment');

  // completion after object.spec.: the Deployment's fields, replicas with its type
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.type('object.spec.', { delay: 5 });
  const suggest = page.locator('.suggest-widget .monaco-list-row');
  await expect(suggest.filter({ hasText: 'replicas' }).first()).toBeVisible({ timeout: 30_000 });
  await expect(suggest.filter({ hasText: 'revisionHistoryLimit' }).first()).toBeVisible();
  await page.keyboard.type('replicas', { delay: 5 });
  await expect(page.locator('.suggest-widget .monaco-list-row.focused')).toContainText('integer');
  await page.keyboard.press('Escape');

  // nested lists: the container's fields
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.type('object.spec.template.spec.containers[0].', { delay: 5 });
  await expect(suggest.filter({ hasText: 'imagePullPolicy' }).first()).toBeVisible({ timeout: 30_000 });
  await page.keyboard.press('Escape');

  // a macro's variable: the receiver's element (Monaco closes the parenthesis it opens)
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.type('object.spec.template.spec.containers.all(c, c.', { delay: 5 });
  await expect(suggest.filter({ hasText: 'imagePullPolicy' }).first()).toBeVisible({ timeout: 30_000 });
  await page.keyboard.press('Escape');
});
