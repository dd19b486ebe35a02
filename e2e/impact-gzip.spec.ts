/**
 * Audit logs as they come off a cluster: a gzip file of several members (`cat a.gz b.gz`, rotated
 * logs joined), and several files opened together, one gzip and one plain. The browser's
 * DecompressionStream stops at a gzip member's end, where Node's reads on: only a browser test
 * sees that the whole log is replayed.
 */
import { gzipSync } from 'node:zlib';
import { test, expect, openApp } from './fixtures';
import { defaultNamespace, deployment } from './objects';

const snapshot = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [defaultNamespace],
});

/** Creates of Deployments with 0–8 replicas: the sample workspace's replica limit (5) denies a third of them. */
const lines = Array.from({ length: 300 }, (_, i) =>
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `gz-${i}`,
    stage: 'ResponseComplete',
    requestURI: '/apis/apps/v1/namespaces/default/deployments',
    verb: 'create',
    user: { username: 'alice', groups: ['system:authenticated'] },
    objectRef: { resource: 'deployments', namespace: 'default', name: `web-${i}`, apiGroup: 'apps', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 201 },
    requestObject: deployment(`web-${i}`, i % 9),
    responseObject: deployment(`web-${i}`, i % 9),
    requestReceivedTimestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString(),
  }),
);
const first = `${lines.slice(0, 170).join('\n')}\n`;
const second = `${lines.slice(170).join('\n')}\n`;
const WHOLE =
  'The candidate would have denied 99 of 300 writes: 99 by ValidatingAdmissionPolicy replica-limit.example.com; none of 1 existing objects would be rejected if created now';

test('impact: a gzip log of two members, and a gzip file beside a plain one, are replayed whole', async ({ page }) => {
  await openApp(page);
  await page.locator('nav.views button[data-view="impact"]').click();
  await page.getByTestId('impact-snapshot-input').setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(snapshot) });
  const headline = page.getByTestId('impact-headline');
  const files = page.getByRole('list', { name: 'Opened files' });
  const run = async (audit: { name: string; buffer: Buffer }[]) => {
    await page.getByTestId('impact-audit-input').setInputFiles(audit.map((f) => ({ ...f, mimeType: 'application/octet-stream' })));
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect(headline).toHaveText(WHOLE);
    for (const f of audit) await page.getByRole('button', { name: `Remove ${f.name}` }).click();
    await expect(files).not.toContainText('audit');
  };
  await test.step('the plain log', () => run([{ name: 'audit.log', buffer: Buffer.from(first + second) }]));
  await test.step('one file, two gzip members', () => run([{ name: 'audit.log.gz', buffer: Buffer.concat([gzipSync(first), gzipSync(second)]) }]));
  await test.step('two files: a rotated gzip one, then the plain current one', () =>
    run([
      { name: 'audit-1.log.gz', buffer: gzipSync(first) },
      { name: 'audit.log', buffer: Buffer.from(second) },
    ]));
});
