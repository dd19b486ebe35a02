/**
 * The test fixture every spec uses: it fails a test when any request leaves the
 * page's origin, or when the console shows an error. Such a request is also blocked, by the
 * browser's proxy (playwright.config.ts), not by routing every request through the test
 * process: a route on every URL cost a sixth of the suite's CPU and turns the HTTP cache off.
 */
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';

export const test = base.extend<{ guard: { external: string[]; errors: string[] } }>({
  guard: [
    async ({ page, context, baseURL }, use) => {
      const origin = new URL(baseURL!).origin;
      const external: string[] = [];
      const errors: string[] = [];
      const allowed = (url: string) => url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:');
      context.on('request', (r) => {
        if (!allowed(r.url())) external.push(r.url());
      });
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      const guard = { external, errors };
      await use(guard);
      expect(external, 'requests that left the origin').toEqual([]);
      expect(errors, 'console errors').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Open the app and wait for the YAML editor. */
export async function openApp(page: Page) {
  await page.goto('./');
  await page.waitForFunction(() => (window.monaco?.editor.getEditors().length ?? 0) > 0 && !!window.monaco?.editor.getEditors()[0].getModel());
}

/** Add a document of `kind` from its template, as a user does: "+ New…", then the kind. */
export async function newDocument(page: Page, kind: string) {
  await page.locator('#new-doc').click();
  await page.locator(`.new-menu [data-kind="${kind}"]`).click();
}

/** The text of the YAML editor. */
export const yamlText = (page: Page) => page.evaluate(() => window.monaco!.editor.getEditors()[0].getModel()!.getValue());

/** Replace the YAML editor's text as a user edit would. */
export async function setYaml(page: Page, text: string) {
  await page.evaluate((t) => {
    const editor = window.monaco!.editor.getEditors()[0];
    const model = editor.getModel()!;
    editor.executeEdits('e2e', [{ range: model.getFullModelRange(), text: t }]);
  }, text);
}

/** Monaco markers of the current model. */
export const markers = (page: Page) =>
  page.evaluate(() => {
    const m = window.monaco!;
    const model = m.editor.getEditors()[0].getModel()!;
    return m.editor
      .getModelMarkers({ resource: model.uri })
      .map((x) => ({ owner: x.owner, line: x.startLineNumber, message: x.message, severity: x.severity }));
  });

/** The control of a field path in the form. */
export const control = (page: Page, path: string) => page.locator(`form [data-path="${path}"]`).first();

export const VWC = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: imported.example.com
  annotations:
    note: "<img src=x onerror=alert(1)><script>alert(2)</script>"
webhooks:
- name: imported.example.com
  clientConfig:
    service: {namespace: ns, name: svc, path: /validate}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
  sideEffects: None
  admissionReviewVersions: [v1]
  customField: survives
`;

export const MULTI = `${VWC}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: second.example.com
webhooks: []
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: params
data:
  maxReplicas: "5"
`;

/** The sample's pod webhook lets system: users skip it, so W03 is quiet; without that matchCondition it fails closed for them. */
export async function withoutSystemGuard(page: Page, edit = (t: string) => t): Promise<void> {
  const text = await yamlText(page);
  const bare = text.replace(/^[ \t]*matchConditions:\n[ \t]*- name: exclude-system-users\n[ \t]*expression: .*\n/m, '');
  expect(bare).not.toContain('exclude-system-users');
  await setYaml(page, edit(bare));
}

/** What the app saved in its IndexedDB store under `key` (workspace, test-inputs, scratchpad), as text. */
export const savedInIndexedDb = (page: Page, key: string) =>
  page.evaluate(
    (k) =>
      new Promise<string>((resolve) => {
        const open = indexedDB.open('admission-workbench', 1);
        open.onsuccess = () => {
          const get = open.result.transaction('kv', 'readonly').objectStore('kv').get(k);
          get.onsuccess = () => resolve(String(get.result));
        };
      }),
    key,
  );

/**
 * axe on the page, run in the page itself (the app has no frames: the default mode's finishing run in
 * a new blank page adds nothing) and with full results for violations only (the tests read no others):
 * about half the CPU of an analyze() with the defaults, the same violations.
 */
export const axe = (page: Page) => new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] });

/** The serious and critical violations of an axe run, each with its first three targets (a test expects none). */
export const seriousViolations = (results: Awaited<ReturnType<ReturnType<typeof axe>['analyze']>>): string[] =>
  results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
