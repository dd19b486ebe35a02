/**
 * The apiserver's type checking of a ValidatingAdmissionPolicy in the app: the schema asset is
 * not fetched by the first page load, only once a policy is checked (relative to the page, so
 * under a sub-path too); the warning shows in the problems list with the apiserver's words and
 * where it goes in Kubernetes, and as a warning marker in the CEL editor.
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

test('a typo in a field: the type-checking warning in the problems list and the CEL editor; the schemas load only then', { tag: '@hosting' }, async ({ page }) => {
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
        return model ? m.editor.getModelMarkers({ resource: model.uri, owner: 'cel-typecheck' }).map((x) => ({ column: x.startColumn, endColumn: x.endColumn, severity: x.severity, message: x.message.split('\n')[0] })) : [];
      }, PATH),
    )
    .toEqual([{ column: 13, endColumn: 22, severity: 4, message: "undefined field 'replicass'" }]);

  // fixed: the warning goes
  await setYaml(page, POLICY.replace('replicass', 'replicas'));
  await expect(page.locator(`section.problems [data-problem-path="${PATH}"]`).filter({ hasText: 'TypeChecking' })).toHaveCount(0, { timeout: 30_000 });
});
