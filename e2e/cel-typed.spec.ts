/**
 * The CEL editor types a policy's `object` by the schemas of the kinds its matchConstraints
 * can match (the type checker's schemas, loaded on first use): completion after `object.spec.`
 * lists the Deployment's fields with their types, hover on a field path shows its type.
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
  - expression: object.spec.replicas <= 5
`;

const PATH = 'spec.validations[0].expression';

test('completion and hover of object typed by the matched kind (Deployment)', async ({ page }) => {
  await openApp(page);
  await expect(page.getByTestId('cel-status')).toContainText('ready', { timeout: 60_000 });
  await setYaml(page, POLICY);
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
  await page.mouse.move(at.x, at.y);
  const hover = page.locator('.monaco-hover').filter({ hasText: 'replicas' }).first();
  await expect(hover).toContainText('integer', { timeout: 30_000 });
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
});
