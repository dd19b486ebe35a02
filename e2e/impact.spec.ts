import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Locator, Page } from '@playwright/test';
import { test, expect, openApp } from './fixtures';
import { defaultNamespace, deployment } from './objects';

const snapshot = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [defaultNamespace, deployment('big-already', 8), deployment('small', 2)],
});

const event = (i: number, replicas: number) =>
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `e2e-${i}`,
    stage: 'ResponseComplete',
    requestURI: '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-client-side-apply',
    verb: 'create',
    user: { username: 'alice', groups: ['system:authenticated'] },
    objectRef: { resource: 'deployments', namespace: 'default', name: `web-${i}`, apiGroup: 'apps', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 201 },
    requestObject: deployment(`web-${i}`, replicas),
    responseObject: deployment(`web-${i}`, replicas),
    requestReceivedTimestamp: `2026-11-20T10:0${i}:00.000000Z`,
  });

const log = [event(1, 3), event(2, 10), event(3, 12), event(4, 1)].join('\n') + '\n{"kind":"Event","apiVersion":"audit.k8s.io/v1","trunc';

test('impact: open a snapshot and an audit log, see the headline and the grouped table, open a row in Simulate', { tag: '@hosting' }, async ({ page }) => {
  await openApp(page);
  await page.locator('nav.views button[data-view="impact"]').click();
  await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(snapshot) });
  await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(log) });
  await expect(page.getByRole('list', { name: 'Opened files' })).toContainText('snapshot.json');
  await page.getByRole('button', { name: 'Analyze' }).click();
  const headline = page.getByTestId('impact-headline');
  // the log's last line is cut off: said in the headline, not only under "Not replayed"
  await expect(headline).toHaveText(
    "The candidate would have denied 2 of 4 writes: 2 by ValidatingAdmissionPolicy replica-limit.example.com; 1 of 3 existing objects would be rejected if created now (warning: the audit log's last line is cut off (line 5))",
  );
  await expect(headline).toHaveAttribute('data-verdict', 'bad');
  const rows = page.getByTestId('impact-rows');
  await expect(rows.locator('tbody tr')).toHaveCount(1);
  await expect(rows).toContainText('replica-limit.example.com');
  // by who decided first (one policy over every namespace, user and resource), the finer groups on demand
  await expect(rows.locator('thead th')).toHaveText(['count', 'change', 'decided by', 'where', 'example']);
  await expect(rows.locator('tbody td').nth(3)).toHaveText(/^deployments\.apps by \S+ in \S+$/);
  await page.getByTestId('impact-group-by').selectOption('request');
  await expect(rows.locator('thead th')).toHaveText(['count', 'change', 'decided by', 'namespace', 'user', 'resource', 'example']);
  await expect(rows.locator('tbody tr')).toHaveCount(1);
  await expect(rows).toContainText('replica-limit.example.com');
  await expect(page.getByRole('region', { name: 'Existing objects' })).toContainText('Deployment default/big-already');
  await expect(page.getByRole('region', { name: 'Not replayed' })).toContainText('the last line was cut off');
  await expect(page.locator('.impact-chart svg')).toBeVisible();
  await rows.getByRole('button', { name: 'Open in Simulate' }).click();
  await expect(page.getByTestId('sim-verdict')).toHaveAttribute('data-allowed', 'false');
  await expect(page.getByTestId('sim-status')).toContainText('replica-limit');
  // back in Impact, the table is as it was chosen
  await page.locator('nav.views button[data-view="impact"]').click();
  await expect(page.getByTestId('impact-group-by')).toHaveValue('request');
});

/** kubectl's YAML of `n` ConfigMaps (~160 bytes each). */
const configMaps = (n: number) =>
  `apiVersion: v1\nitems:\n${Array.from({ length: n }, (_, i) => `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: settings-${i}\n    namespace: default\n    labels:\n      app: web-${i % 50}\n  data:\n    mode: fast\n    replicas: "${i % 9}"\n`).join('')}kind: List\nmetadata:\n  resourceVersion: ""\n`;

/** Adds documents to the workspace as a user pastes them. */
async function paste(page: Page, text: string) {
  await page.getByRole('button', { name: 'Paste YAML…' }).click();
  await page.getByLabel('YAML to import').fill(text);
  await page.getByRole('dialog').getByRole('button', { name: 'Import' }).click();
}

const openImpact = (page: Page) => page.locator('nav.views button[data-view="impact"]').click();

const update = (i: number, name: string, replicas: number) =>
  event(i, replicas).replace('"verb":"create"', '"verb":"update"').replace('"code":201', '"code":200').replaceAll(`web-${i}`, name);

/**
 * Records every text the progress bar shows from now on; resolves to a function reading them. A
 * state of the bar may last less than Playwright's polling interval (a small snapshot is read in
 * one), so a test that asks only what it shows now can miss it.
 */
async function recordProgress(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { progressSeen?: string[]; progressObserver?: MutationObserver };
    w.progressObserver?.disconnect();
    const seen: string[] = (w.progressSeen = []);
    const note = () => {
      const text = document.querySelector('.impact-progress')?.textContent;
      if (text && seen.at(-1) !== text) seen.push(text);
    };
    w.progressObserver = new MutationObserver(note);
    w.progressObserver.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
}

/** Removes opened files of the Impact view (the next step opens its own). */
async function removeFiles(page: Page, ...names: string[]) {
  for (const name of names) {
    await page.getByRole('button', { name: `Remove ${name}` }).click();
    await expect(page.getByRole('button', { name: `Remove ${name}` })).toHaveCount(0);
  }
}

// One load of the sample workspace for the runs that read only it and their own files (a page load is most
// of a small test's CPU). Each step removes the files it opened; the log that patches the param is last.
test('impact: the sample workspace, one load: files removed and reopened, wrong inputs, a long run and a large snapshot cancelled, a patched param', async ({
  page,
}) => {
  test.setTimeout(180_000); // six runs, two of them long enough to be cancelled
  await openApp(page);
  await openImpact(page);
  await test.step('after Remove, the same file opens again in either picker', async () => {
    const files = page.getByRole('list', { name: 'Opened files' });
    for (const [input, name] of [
      ['impact-snapshot-input', 'snapshot.json'],
      ['impact-audit-input', 'audit.log'],
    ] as const) {
      const file = { name, mimeType: 'text/plain', buffer: Buffer.from(name === 'audit.log' ? log : snapshot) };
      await page.getByTestId(input).setInputFiles(file);
      await expect(files).toContainText(name);
      // the picker forgets its file once taken: choosing the same file again is a change the page hears
      await expect(page.getByTestId(input)).toHaveValue('');
      await page.getByRole('button', { name: `Remove ${name}` }).click();
      await expect(page.getByRole('button', { name: `Remove ${name}` })).toHaveCount(0);
      await page.getByTestId(input).setInputFiles(file);
      await expect(files).toContainText(name);
      await page.getByRole('button', { name: `Remove ${name}` }).click();
    }
    // the command shown is the README's: every listable kind but Secrets
    await expect(page.getByTestId('impact-snapshot-command')).toContainText("grep -v '^secrets$'");
  });
  await test.step('wrong inputs are input errors, not an all-clear', async () => {
    const headline = page.getByTestId('impact-headline');
    // an HTML page given as the audit log
    await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(snapshot) });
    const html = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body>Sign in to continue</body>\n</html>\n';
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/html', buffer: Buffer.from(html) });
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect(headline).toContainText('Input error: the audit log holds no readable audit event in 4 lines');
    await expect(headline).toContainText('it looks like HTML or XML, not an audit log');
    await expect(headline).toHaveAttribute('data-verdict', 'error');
    // the snapshot and the log swapped
    await page.getByRole('button', { name: 'Remove snapshot.json' }).click();
    await page.getByRole('button', { name: 'Remove audit.log' }).click();
    await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'events.json', mimeType: 'application/json', buffer: Buffer.from(log) });
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'cluster.log', mimeType: 'text/plain', buffer: Buffer.from(snapshot) });
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect(headline).toContainText('Input error: the snapshot holds audit events, not cluster objects');
    await expect(headline).toContainText('the audit log holds no readable audit event in 1 line');
    await expect(headline).toHaveAttribute('data-verdict', 'error');
    await removeFiles(page, 'events.json', 'cluster.log');
  });
  await test.step('the page stays responsive during a long run, and Cancel leaves a partial report', async () => {
    // long enough that it is still running when cancelled, also on a quiet machine (4,000 writes were
    // sometimes all replayed before the Impact view came back): progress is reported every 200 writes
    const long = Array.from({ length: 12_000 }, (_, i) => event(i + 1, (i % 5) * 3)).join('\n') + '\n';
    await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(snapshot) });
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(long) });
    const analyze = page.getByRole('button', { name: 'Analyze' });
    const progress = page.locator('.impact-progress');
    const headline = page.getByTestId('impact-headline');
    await analyze.click();
    await expect(progress).toContainText(/[1-9][\d,]* writes replayed/);
    // the run is off the page: another view opens, and the Impact view comes back to the run going on
    // to its whole report (whether it ends before or after the return is the machine's speed: a fast
    // one replayed all 12,000 writes before this test's clicks came back)
    await page.locator('nav.views button[data-view="simulate"]').click();
    await expect(page.locator('nav.views button[data-view="simulate"]')).toHaveAttribute('aria-pressed', 'true');
    await page.locator('nav.views button[data-view="impact"]').click();
    await expect(headline).toContainText(/denied \d+ of 12000 writes/, { timeout: 120_000 });
    await expect(headline).not.toContainText('cancelled');
    // again on a log four times as long (gzip), and Cancel at the first progress: on a loaded machine
    // the click came after all 12,000 writes of the same log had been replayed
    await removeFiles(page, 'audit.log');
    const longer = Array.from({ length: 48_000 }, (_, i) => event(i + 1, (i % 5) * 3)).join('\n') + '\n';
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log.gz', mimeType: 'application/gzip', buffer: gzipSync(longer) });
    await analyze.click();
    await expect(progress).toContainText(/[1-9][\d,]* writes replayed/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(headline).toContainText('(cancelled: partial report)');
    const [, denied, of] = /denied (\d+) of (\d+) writes/.exec((await headline.textContent()) ?? '') ?? [];
    expect(Number(of)).toBeGreaterThanOrEqual(200);
    expect(Number(of)).toBeLessThan(48_000);
    // a fifth of the writes ask for 12 replicas, above the sample policy's limit
    expect(Number(denied)).toBeGreaterThan(0);
    await expect(page.getByTestId('impact-rows')).toContainText('replica-limit.example.com');
    await expect(page.getByRole('button', { name: 'Analyze' })).toBeEnabled();
    await removeFiles(page, 'snapshot.json', 'audit.log.gz');
  });
  await test.step('a large snapshot shows its reading in the progress bar, then the report', async () => {
    await page
      .getByTestId('impact-snapshot-input')
      .setInputFiles({ name: 'configmaps.yaml', mimeType: 'application/yaml', buffer: Buffer.from(configMaps(16_000)) });
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(log) });
    const shown = await recordProgress(page);
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect.poll(shown).toContainEqual(expect.stringMatching(/reading the snapshot: \d+\.\d MB of 2\.\d MB/));
    // reading 16,000 objects (YAML) and deciding them took over 10 s at load 8–10 on 2 cores
    await expect(page.getByTestId('impact-headline')).toContainText('of 16000 existing objects would be rejected if created now', { timeout: 60_000 });
    await removeFiles(page, 'configmaps.yaml', 'audit.log');
  });
  await test.step('Cancel while the snapshot is read stops there', async () => {
    // ~10 MB: seconds of reading; Cancel comes with the bar's first message
    await page
      .getByTestId('impact-snapshot-input')
      .setInputFiles({ name: 'configmaps.yaml', mimeType: 'application/yaml', buffer: Buffer.from(configMaps(60_000)) });
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(log) });
    await page.getByRole('button', { name: 'Analyze' }).click();
    // at once: the bar says it reads the snapshot from the first frame, and a Cancel before the
    // replay's workers are up is sent with their start
    await expect(page.locator('.impact-progress')).toContainText(/reading the snapshot: \d+\.\d MB of \d+\.\d MB/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('impact-headline')).toHaveText('Cancelled before any write or existing object was judged');
    await removeFiles(page, 'configmaps.yaml', 'audit.log');
  });
  await test.step('a param the log patches decides the writes after it (the decider workers get the new chains)', async () => {
    // the workspace's param (default/replica-limit, maxReplicas 5) raised to 12 halfway through the log
    const limit = (max: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'replica-limit', namespace: 'default' },
      data: { maxReplicas: max },
    });
    const raise = JSON.stringify({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: 'e2e-raise',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/default/configmaps/replica-limit',
      verb: 'patch',
      user: { username: 'admin', groups: ['system:masters'] },
      objectRef: { resource: 'configmaps', namespace: 'default', name: 'replica-limit', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      requestObject: { data: { maxReplicas: '12' } },
      responseObject: limit('12'),
      requestReceivedTimestamp: '2026-11-20T10:02:30.000000Z',
    });
    const withRaise = [event(1, 10), event(2, 10), raise, event(3, 10), event(4, 10)].join('\n');
    await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(snapshot) });
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(withRaise) });
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect(page.getByTestId('impact-headline')).toHaveText(
      'The candidate would have denied 2 of 5 writes: 2 by ValidatingAdmissionPolicy replica-limit.example.com; 1 of 3 existing objects would be rejected if created now',
    );
    await expect(page.getByTestId('impact-rows')).toContainText('replicas must be at most 5');
  });
});

const SCALE_GUARD = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: scale-guard
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= oldObject.spec.replicas + 2
    message: at most two more replicas at a time
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: scale-guard
spec:
  policyName: scale-guard
  validationActions: [Deny]
`;

const ADD_TEAM = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-team
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [deployments]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: add-team
spec:
  policyName: add-team
`;

// One load for the user's own candidates: the second step adds its policy to the first's workspace (scale-guard
// judges only updates; the second step's log is one create).
test("impact: the user's own candidates, one load: unknown old objects, a stale result, a kind the release does not serve", async ({ page }) => {
  await openApp(page);
  await test.step('writes whose old object is unknown are undetermined; a result is stale once the release changes', async () => {
    await paste(page, SCALE_GUARD);
    await openImpact(page);
    // the snapshot has neither Deployment: the updates' old objects are unknown
    const justNamespace = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [JSON.parse(snapshot).items[0]] });
    await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(justNamespace) });
    const updates = [update(1, 'big-already', 3), update(2, 'small', 2), update(3, 'small', 5)].join('\n');
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(updates) });
    await page.getByRole('button', { name: 'Analyze' }).click();
    const headline = page.getByTestId('impact-headline');
    await expect(headline).toHaveText(
      'The candidate would have denied 1 of 3 writes: 1 by ValidatingAdmissionPolicy scale-guard; 2 writes undetermined: the decision reads what the replay does not know (an old object, a Namespace, the authorizer, an object converted to another version); none of 1 existing objects would be rejected if created now',
    );
    await expect(headline).toHaveAttribute('data-verdict', 'bad');
    const counts = page.locator('table.impact-counts').first();
    await expect(counts.locator('tr.undetermined td').first()).toHaveText('2');
    await expect(page.getByTestId('impact-rows')).toContainText('undetermined (reads what is unknown)');
    await expect(page.getByTestId('impact-stale')).toHaveCount(0);
    // another target release: the result is for the one before
    await page.getByTestId('kubernetes-version').selectOption('1.36');
    await expect(page.getByTestId('impact-stale')).toContainText('Stale: the workspace or the target release changed since this result (Kubernetes 1.37)');
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect(headline).toContainText('2 writes undetermined');
    await expect(page.getByTestId('impact-stale')).toHaveCount(0);
    await removeFiles(page, 'snapshot.json', 'audit.log');
  });
  await test.step('at a release that does not serve a kind of the candidate, the candidate runs without it and the headline says so', async () => {
    await paste(page, ADD_TEAM);
    await page.getByTestId('kubernetes-version').selectOption('1.30');
    await openImpact(page);
    await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(snapshot) });
    await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: Buffer.from(event(1, 1)) });
    await page.getByRole('button', { name: 'Analyze' }).click();
    const headline = page.getByTestId('impact-headline');
    await expect(headline).toContainText('Kubernetes 1.30 does not serve MutatingAdmissionPolicy add-team');
    await expect(headline).toContainText('the candidate runs without it');
    await expect(page.locator('table.impact-counts').first().locator('tr.newly-mutated td').first()).toHaveText('0');
    // at 1.37 it is there: the create is newly mutated
    await page.getByTestId('kubernetes-version').selectOption('1.37');
    await expect(page.getByTestId('impact-stale')).toBeVisible();
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect(headline).not.toContainText('does not serve');
    await expect(page.locator('table.impact-counts').first().locator('tr.newly-mutated td').first()).toHaveText('1');
  });
});

/** The log a real kube-apiserver 1.37.2 wrote, its snapshot, and a candidate it decided (tools/admission-oracle/testdata/audit). */
const oracle = join(import.meta.dirname, '..', 'tools', 'admission-oracle', 'testdata', 'audit');
const fixture = (name: string) => readFileSync(join(oracle, name));

test('impact: every changed row of a real apiserver log, opened in Simulate, gets the row’s verdict', async ({ page }) => {
  test.setTimeout(180_000);
  const candidate = JSON.parse(fixture('candidate.json').toString()) as { objects: { kind: string }[]; webhooks: Record<string, unknown> };
  // the candidate's params ConfigMap only in the snapshot: Simulate must get it from the report
  const params = candidate.objects.filter((o) => o.kind === 'ConfigMap');
  const docs = candidate.objects.filter((o) => o.kind !== 'ConfigMap').map((o, i) => ({ id: `c${i}`, text: JSON.stringify(o, null, 2) }));
  await page.addInitScript(
    (workspace) => {
      if (sessionStorage.getItem('seeded')) return;
      sessionStorage.setItem('seeded', '1');
      localStorage.clear();
      localStorage.setItem('admission-workbench/workspace/v1', workspace);
    },
    JSON.stringify({ version: 1, selectedId: docs[0]!.id, docs }),
  );
  await openApp(page);
  await page.locator('nav.views button[data-view="impact"]').click();
  await page.getByTestId('impact-snapshot-input').setInputFiles([
    { name: 'snapshot.json', mimeType: 'application/json', buffer: fixture('snapshot.json') },
    { name: 'params.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: params })) },
  ]);
  await page.getByTestId('impact-audit-input').setInputFiles({ name: 'audit.log', mimeType: 'text/plain', buffer: fixture('audit.log') });
  // the answers the real apiserver's webhooks gave: the baseline's denies, the candidate's as candidate.json says
  await page.getByTestId('impact-assumptions').locator('summary').click();
  const answers = { webhooks: { 'frozen.shop.example.com': 'deny', ...candidate.webhooks } };
  await page
    .getByTestId('impact-answers-input')
    .setInputFiles({ name: 'answers.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(answers)) });
  await expect(page.locator('.sim-response[data-webhook="images.shop.example.com"] select')).toHaveValue('deny');
  await expect(page.locator('.sim-response[data-webhook="frozen.shop.example.com"] select')).toHaveValue('deny');
  await page.getByRole('button', { name: 'Analyze' }).click();
  await expect(page.getByTestId('impact-headline')).toContainText('The candidate would have denied');
  await expect(page.getByTestId('impact-assumed')).toContainText(
    'frozen.shop.example.com deny; images.shop.example.com deny; review.shop.example.com allow with warnings',
  );

  /** Opens one row in Simulate and checks its verdict against the row's change, who decided and the example's message. */
  const check = async (row: Locator, what: { change: string; by: string; message: string }) => {
    await row.getByRole('button', { name: 'Open in Simulate' }).click();
    const verdict = page.getByTestId('sim-verdict');
    await expect(page.getByTestId('sim-cluster')).toBeVisible();
    if (what.change === 'newly denied') {
      await expect(verdict).toHaveAttribute('data-allowed', 'false');
      const name = ((await verdict.textContent()) ?? '').replace(/^Denied by /, '').replace(/ · .*$/, '');
      expect(what.by, `${what.message}: Simulate says ${await verdict.textContent()}`).toContain(name);
      await expect(page.getByTestId('sim-status')).toContainText(what.message);
      if (what.by.startsWith('ValidatingAdmissionPolicy')) await expect(page.getByTestId('sim-step-expression').first()).toBeVisible();
    } else if (what.change.startsWith('undetermined')) {
      // the old object is unknown: Simulate runs without it, as the replay did, and reaches the candidate's decision (a message: denied)
      await expect(verdict, `${what.change} ${what.message}`).toHaveAttribute('data-allowed', what.message ? 'false' : 'true');
    } else {
      await expect(verdict, `${what.change} ${what.message}`).toHaveAttribute('data-allowed', 'true');
      if (what.change === 'newly warned') await expect(page.getByTestId('sim-status')).toContainText(what.message.replace(/^warns: /, '').split('; ')[0]!);
    }
    await page.locator('nav.views button[data-view="impact"]').click();
  };

  const rows = page.getByTestId('impact-rows').locator('tbody tr');
  const n = await rows.count();
  expect(n).toBeGreaterThanOrEqual(5);
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    // back from Simulate, the table draws its rows in a later render
    await expect(rows).toHaveCount(n);
    const row = rows.nth(i);
    const cells = await row.locator('td').allTextContents();
    const message = ((await row.locator('.impact-message').textContent()) ?? '').replace(/^line \d+: /, '');
    seen.add(cells[1]!);
    await check(row, { change: cells[1]!, by: cells[2]!, message });
  }
  expect([...seen].sort()).toEqual(['newly audited', 'newly denied', 'newly warned', 'no longer denied', 'undetermined (reads what is unknown)']);
  // the filters narrow what the rows count: by who decided, a namespace's rows count its writes only
  await page.getByPlaceholder('policy, namespace, user, resource').fill('default');
  const whereCells = await rows.locator('td:nth-child(4)').allTextContents();
  expect(whereCells.length).toBeGreaterThan(0);
  for (const w of whereCells) expect(w).toMatch(/ in default$/);
  await page.getByPlaceholder('policy, namespace, user, resource').fill('');
  // the existing objects that change open too, with why
  const existing = page.getByRole('region', { name: 'Existing objects' }).locator('li');
  const m = await existing.count();
  expect(m).toBeGreaterThan(0);
  for (let i = 0; i < m; i++) {
    await expect(existing).toHaveCount(m);
    const li = existing.nth(i);
    const change = (await li.locator('b').textContent()) ?? '';
    const reason = ((await li.locator('.impact-message').textContent()) ?? '').replace(/^ — /, '');
    const [by, message] = change === 'newly denied' ? [reason.slice(0, reason.indexOf(': ')), reason.slice(reason.indexOf(': ') + 2)] : ['', reason];
    expect(reason).not.toBe('');
    await check(li, { change, by, message });
  }
});
