/**
 * A Rego-only Gatekeeper template is not convertible: the Migration view shows its Rego, read-only,
 * beside a button that starts a ValidatingAdmissionPolicy named after the template for the CEL.
 */
import { axe, expect, openApp, test } from './fixtures';

const TEMPLATE = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8sdenyall
spec:
  crd:
    spec:
      names:
        kind: K8sDenyAll
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package k8sdenyall

        violation[{"msg": msg}] {
          msg := "denied"
        }
`;

test("a Rego-only template's row shows its Rego and starts a policy for the CEL by hand", async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('textarea').fill(TEMPLATE);
  await dialog.getByRole('button', { name: /^Import/ }).click();

  await page.locator('[data-view="migration"]').click();
  const rows = page.getByTestId('migration-rows');
  await expect(rows).toContainText('only Rego code');
  const pane = page.getByTestId('migration-rego');
  await pane.getByText('Show the Rego and start the CEL by hand').click();
  const rego = pane.getByRole('group', { name: 'Rego of k8sdenyall (read-only)' });
  await expect(rego).toContainText('package k8sdenyall');
  await expect(rego).toContainText('msg := "denied"');
  const results = await axe(page).exclude('.monaco-editor').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await page.getByTestId('new-vap-from-template').click();
  // the new policy is opened in the document view, its validations still to be written
  const current = page.locator('.sidebar [aria-current="true"]');
  await expect(current.locator('.kind')).toHaveText('VAP');
  await expect(current.locator('.doc-title')).toHaveText('k8sdenyall');
  await expect(page.locator('.monaco-editor').first()).toContainText('validations: []');
});
