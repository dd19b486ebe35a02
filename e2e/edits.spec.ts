/**
 * Edits that keep the user's file: paste a commented file, edit a field in the
 * form and apply a quick fix; the YAML pane and the downloaded file differ from the input only
 * on the edited lines, and untouched documents export byte-identical. A CEL expression written
 * over several lines keeps its lines when a word of it is typed over, and the sample workspace's
 * first edit is as small as any other. An edit the text refuses (an anchor, an alias) leaves the text and
 * the form showing its value.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { readFixture } from '../fixtures';
import { control, expect, openApp, test, yamlText } from './fixtures';

// cert-manager's webhook configurations, as shipped (comment lines, `admissionReviewVersions: ["v1"]`, quoted labels).
const CERT_MANAGER = readFixture('realworld', '01-cert-manager-webhooks.yaml');
const SERVICE = `--- # the webhook's service: read-only here, exported unchanged
apiVersion: v1
kind: Service
metadata:
  name: cert-manager-webhook
  namespace: cert-manager
spec:
  ports:
  -   name: https
      port: 443
      targetPort: "https"
`;
const INPUT = CERT_MANAGER + SERVICE;
const FIRST = CERT_MANAGER.slice(0, CERT_MANAGER.indexOf('\n---\n') + 1);

/** The lines that differ between two texts with the same number of lines. */
function changedLines(a: string, b: string): string[] {
  const x = a.split('\n');
  const y = b.split('\n');
  expect(y.length).toBe(x.length);
  return y.flatMap((l, i) => (l === x[i] ? [] : [`${x[i]} → ${l}`]));
}

async function paste(page: Page, text: string) {
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('textarea').fill(text);
  await dialog.getByRole('button', { name: /^Import/ }).click();
}

test('a form edit and a quick fix change only their lines, in the YAML pane and the downloaded file', async ({ page }) => {
  await openApp(page);
  await paste(page, INPUT);
  await expect(control(page, 'metadata.name')).toHaveValue('cert-manager-webhook');
  await expect.poll(() => yamlText(page)).toBe(FIRST);

  await control(page, 'webhooks[0].timeoutSeconds').fill('5');
  await expect.poll(() => yamlText(page)).toContain('timeoutSeconds: 5');
  expect(changedLines(FIRST, await yamlText(page))).toEqual(['    timeoutSeconds: 30 →     timeoutSeconds: 5']);

  // The fix dialog previews exactly the line that applying writes.
  const fix = page.locator('.problems li', { has: page.locator('[data-lint="W03"]') }).first();
  await fix.getByRole('button', { name: /Quick fixes for W03/ }).click();
  await fix.getByRole('button', { name: 'Set failurePolicy: Ignore (fail open)…' }).click();
  const dialog = page.getByTestId('fix-dialog');
  await expect(dialog.getByTestId('fix-diff').locator('.del')).toHaveText(['-     failurePolicy: Fail\n']);
  await expect(dialog.getByTestId('fix-diff').locator('.add')).toHaveText(['+     failurePolicy: Ignore\n']);
  await dialog.getByTestId('fix-apply').click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => yamlText(page)).toContain('failurePolicy: Ignore');
  const pane = await yamlText(page);
  expect(changedLines(FIRST, pane)).toEqual(['    timeoutSeconds: 30 →     timeoutSeconds: 5', '    failurePolicy: Fail →     failurePolicy: Ignore']);
  expect(pane).toContain('# Source: https://github.com/cert-manager/cert-manager');
  expect(pane).toContain('admissionReviewVersions: ["v1"]');

  // Download all (in the Export menu): the whole file back, different only on those two lines.
  await page.getByTestId('export-menu').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download all' }).click()]);
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text.endsWith(SERVICE)).toBe(true);
  // after the sample documents and the `---` before the pasted file
  expect(changedLines(INPUT, text.slice(text.indexOf('# Source: https://github.com/cert-manager')))).toEqual([
    '    timeoutSeconds: 30 →     timeoutSeconds: 5',
    '    failurePolicy: Fail →     failurePolicy: Ignore',
  ]);
});

test('untouched documents export byte-identical; reordering keys is an explicit choice', async ({ page }) => {
  await openApp(page);
  await paste(page, INPUT);
  await expect(control(page, 'metadata.name')).toHaveValue('cert-manager-webhook');
  const docs = page.locator('.doc-list li');
  const before = await docs.count();
  await page.getByTestId('export-menu').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download all' }).click()]);
  const text = readFileSync((await download.path())!, 'utf8');
  expect(before).toBeGreaterThanOrEqual(3);
  // the sample documents first, then the pasted file exactly as pasted
  expect(text.endsWith(`\n---\n${INPUT}`)).toBe(true);

  await page.getByTestId('export-menu').click();
  await page.getByTestId('export-reorder').check();
  const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download document' }).click()]);
  const ordered = readFileSync((await again.path())!, 'utf8');
  expect(ordered.startsWith('apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n')).toBe(true);
  expect(ordered).not.toContain('# Source');
});

// `kubectl get validatingwebhookconfigurations -o yaml`, with the user's comments added: two items.
const LIST = `# kubectl get validatingwebhookconfigurations -o yaml
apiVersion: v1
items:
# the policy webhook
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata:
    name: policy-webhook   # owned by the platform team
  webhooks:
  - name: policy.example.com
    admissionReviewVersions: ["v1"]
    clientConfig:
      service: {name: policy, namespace: policy, port: 443}
    failurePolicy: Ignore
    namespaceSelector:
      matchExpressions:
      - key: kubernetes.io/metadata.name
        operator: NotIn
        values: ["kube-system"]
    rules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
    sideEffects: None
    timeoutSeconds: 10
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata:
    name: audit-webhook
  webhooks:
  - name: audit.example.com
    admissionReviewVersions: ["v1"]
    clientConfig: {url: "https://audit.example.com/validate"}
    failurePolicy: Ignore
    rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["configmaps"]}]
    sideEffects: None
    timeoutSeconds: 10
kind: List
metadata:
  resourceVersion: ""
`;

test('a List (kubectl get -o yaml): each item shows its own text; a form edit of one item changes only that line of the downloaded List', async ({ page }) => {
  await openApp(page);
  await paste(page, LIST);
  await expect(control(page, 'metadata.name')).toHaveValue('policy-webhook');
  // the item's own lines, its indentation under `items:` taken off, its comment kept
  await expect
    .poll(() => yamlText(page))
    .toContain('metadata:\n  name: policy-webhook   # owned by the platform team\nwebhooks:\n- name: policy.example.com\n');

  await page.locator('.doc-list button', { hasText: 'audit-webhook' }).click();
  await expect(control(page, 'metadata.name')).toHaveValue('audit-webhook');
  await control(page, 'webhooks[0].timeoutSeconds').fill('5');
  await expect.poll(() => yamlText(page)).toContain('  timeoutSeconds: 5\n');

  await page.getByTestId('export-menu').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download all' }).click()]);
  const text = readFileSync((await download.path())!, 'utf8');
  // after the sample documents and the `---` before the pasted List
  const list = text.slice(text.indexOf('# kubectl get'));
  expect(changedLines(LIST, list)).toEqual(['    timeoutSeconds: 10 →     timeoutSeconds: 5']);
  expect(list.split('\n').findIndex((l) => l.endsWith('timeoutSeconds: 5'))).toBe(LIST.split('\n').lastIndexOf('    timeoutSeconds: 10'));
});

// Gateway API's safe-upgrades policy, as shipped: its first expression is a double-quoted string folded over five lines.
const GATEWAY = readFixture('realworld', '61-gateway-api-safe-upgrades-vap-standard.yaml');
const GATEWAY_POLICY = GATEWAY.slice(GATEWAY.indexOf('apiVersion:'), GATEWAY.indexOf('\n---\n') + 1);

test('typing over a word of a multi-line CEL expression changes only its line of the YAML', async ({ page }) => {
  await openApp(page);
  await paste(page, GATEWAY_POLICY);
  await expect(control(page, 'metadata.name')).toHaveValue('safe-upgrades.gateway.networking.k8s.io');
  await expect.poll(() => yamlText(page)).toBe(GATEWAY_POLICY);

  // The expression's CEL editor (Monaco takes over from the textarea on focus): the word `standard` selected and typed over.
  const path = 'spec.validations[0].expression';
  await control(page, path).focus();
  await expect(page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"] textarea[data-path="${path}"]`)).toBeFocused();
  await page.evaluate((p) => {
    const editor = window.monaco!.editor.getEditors().find((e) => e.getDomNode()?.closest(`[data-expression-path="${p}"]`))!;
    const model = editor.getModel()!;
    editor.setSelection(model.findMatches('standard', false, false, true, null, false)[0]!.range);
  }, path);
  await page.keyboard.type('stable', { delay: 5 });
  await expect.poll(() => yamlText(page)).toContain("== 'stable' ) || (");
  expect(changedLines(GATEWAY_POLICY, await yamlText(page))).toEqual([
    "        object.metadata.annotations['gateway.networking.k8s.io/channel'] == 'standard' ) || ( → " +
      "        object.metadata.annotations['gateway.networking.k8s.io/channel'] == 'stable' ) || (",
  ]);
});

test("the sample policy's first form edit changes one line: the sample is a text like any other", async ({ page }) => {
  await openApp(page);
  await page.locator('.doc-list button', { hasText: 'replica-limit.example.com' }).first().click();
  await expect(control(page, 'metadata.name')).toHaveValue('replica-limit.example.com');
  const before = await yamlText(page);
  expect(before).toContain('spec:\n  failurePolicy: Fail\n');
  await page.locator('form select[data-path="spec.failurePolicy"]').selectOption('Ignore');
  await expect.poll(() => yamlText(page)).toContain('failurePolicy: Ignore');
  expect(changedLines(before, await yamlText(page))).toEqual(['  failurePolicy: Fail →   failurePolicy: Ignore']);
});

// An anchor its aliases share, and fields inside an alias: form edits of them are refused (the text stays).
const ANCHORS = `# anchors and aliases
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: anchors
webhooks:
- name: a.example.com
  clientConfig: &cc
    url: https://example.com/a
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: &t 5
  matchConditions:
  - name: not-system
    expression: &e "!request.userInfo.username.startsWith('system:')"
- name: b.example.com
  clientConfig: *cc
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: *t
  matchConditions:
  - name: not-system
    expression: *e
`;

test('a refused form edit (an anchor, a field inside an alias) shows the value of the text again at once', async ({ page }) => {
  await openApp(page);
  await paste(page, ANCHORS);
  await expect(control(page, 'metadata.name')).toHaveValue('anchors');
  await expect.poll(() => yamlText(page)).toBe(ANCHORS);
  const notice = page.locator('.notice.error');

  const timeout = control(page, 'webhooks[0].timeoutSeconds');
  await timeout.fill('9');
  await expect(notice).toContainText('alias');
  await expect(timeout).toHaveValue('5');
  const url = control(page, 'webhooks[1].clientConfig.url');
  await expect(url).toHaveValue('https://example.com/a');
  await url.fill('https://example.com/b');
  await expect(url).toHaveValue('https://example.com/a');

  // The CEL editor (Monaco takes over from the textarea on focus) shows the expression again too.
  const path = 'webhooks[0].matchConditions[0].expression';
  await control(page, path).focus();
  await expect(page.locator(`[data-testid="cel-editor"][data-expression-path="${path}"] textarea[data-path="${path}"]`)).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.type(' && true', { delay: 5 });
  const cel = () =>
    page.evaluate(
      (p) =>
        window
          .monaco!.editor.getEditors()
          .find((e) => e.getDomNode()?.closest(`[data-expression-path="${p}"]`))!
          .getModel()!
          .getValue(),
      path,
    );
  await expect.poll(cel).toBe("!request.userInfo.username.startsWith('system:')");

  // An edit the text can take is written; the refused values are still the text's.
  await control(page, 'webhooks[0].name').fill('aa.example.com');
  await expect.poll(() => yamlText(page)).toBe(ANCHORS.replace('name: a.example.com', 'name: aa.example.com'));
  await expect(timeout).toHaveValue('5');
  await expect(url).toHaveValue('https://example.com/a');
});
