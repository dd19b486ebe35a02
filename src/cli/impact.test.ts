/** `admission-workbench impact` on files in a temporary directory, through the real engine. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { appsPod, podCreate } from '../impact/test-helpers';
import { parseImpactArgs } from './impact';
import { runCli, type CliIO } from './main';
import { nodeFileSystem } from './node-io';

useEngine();

/** stderr holding only the line that says which engine decided (the native one: npm run test:unit builds it, and it is the default). */
const ENGINE_ONLY = /^admission-workbench impact: CEL engine: native \(\d+ process(es)?\)\n$/;

function io(): CliIO & { out: string; err: string } {
  const r = { out: '', err: '', fs: nodeFileSystem, stdout: (t: string) => void (r.out += t), stderr: (t: string) => void (r.err += t) };
  return r;
}

const dir = mkdtempSync(join(tmpdir(), 'impact-cli-'));
const pod = appsPod;
writeFileSync(
  join(dir, 'snapshot.json'),
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', labels: { 'kubernetes.io/metadata.name': 'apps' } } }, pod('running', {})],
  }),
);
writeFileSync(
  join(dir, 'policy.yaml'),
  `# the candidate
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: require-team }
spec:
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods] }]
  validations:
    - expression: "'team' in object.metadata.labels"
      message: pods need a team label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: require-team }
spec: { policyName: require-team, validationActions: [Deny] }
`,
);
const ev = (i: number, labels: Record<string, string>) => podCreate(i, labels, { user: 'ci-bot', time: `2026-11-20T10:00:0${i}Z` });
const log = `${ev(1, { team: 'a' })}\n${ev(2, {})}\n${ev(3, {})}\n{"kind":"Event","apiVersion":"audit.k8s.io/v1","sta`;
writeFileSync(join(dir, 'audit.log'), log);
writeFileSync(join(dir, 'audit.log.gz'), gzipSync(log));

describe('admission-workbench impact', () => {
  it('reports what the candidate newly denies, and exits 1 at --fail-on newly-denied', async () => {
    const r = io();
    const code = await runCli(['impact', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log.gz'), join(dir, 'policy.yaml')], r);
    expect(r.err).toMatch(ENGINE_ONLY);
    expect(code).toBe(1);
    expect(r.out).toContain(
      'The candidate would have denied 2 of 3 writes: 2 by ValidatingAdmissionPolicy require-team; 1 of 2 existing objects would be rejected if created now',
    );
    expect(r.out).toMatch(/2 {2}newly-denied {2}ValidatingAdmissionPolicy require-team\/require-team {2}ns=apps user=ci-bot pods/);
    expect(r.out).toContain('the last line was cut off');
  });
  it('json and markdown carry the same summary; gzip and plain logs agree', async () => {
    const [a, b] = [io(), io()];
    await runCli(
      ['impact', '--no-existing', '--format', 'json', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log'), join(dir, 'policy.yaml')],
      a,
    );
    await runCli(
      ['impact', '--no-existing', '--format=json', `--cluster=${join(dir, 'snapshot.json')}`, `--audit=${join(dir, 'audit.log.gz')}`, join(dir, 'policy.yaml')],
      b,
    );
    const ja = JSON.parse(a.out);
    expect(ja.summary).toEqual(JSON.parse(b.out).summary);
    // the changed events, as the Impact view's export holds them; --all-events every one
    expect([ja.eventsKept, ja.events.length]).toEqual(['changed', 2]);
    expect(ja.requests).toBeUndefined();
    const all = io();
    await runCli(
      [
        'impact',
        '--no-existing',
        '--format',
        'json',
        '--all-events',
        '--cluster',
        join(dir, 'snapshot.json'),
        '--audit',
        join(dir, 'audit.log'),
        join(dir, 'policy.yaml'),
      ],
      all,
    );
    expect([JSON.parse(all.out).eventsKept, JSON.parse(all.out).events.length]).toEqual(['all', 3]);
    const md = io();
    await runCli(
      ['impact', '--no-existing', '--format', 'markdown', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log'), join(dir, 'policy.yaml')],
      md,
    );
    expect(md.out).toContain('| newly-denied | 2 | not judged |');
  });
  it('--static: the workspace is a static manifest set, run first and named so in the report', async () => {
    const r = io();
    expect(
      await runCli(
        ['impact', '--static', '--no-existing', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log'), join(dir, 'policy.yaml')],
        r,
      ),
    ).toBe(1);
    expect(r.out).toMatch(/2 {2}newly-denied {2}ValidatingAdmissionPolicy require-team\/require-team \(static manifest\) {2}ns=apps/);
    const j = io();
    await runCli(
      [
        'impact',
        '--static',
        '--no-existing',
        '--format',
        'json',
        '--cluster',
        join(dir, 'snapshot.json'),
        '--audit',
        join(dir, 'audit.log'),
        join(dir, 'policy.yaml'),
      ],
      j,
    );
    expect(JSON.parse(j.out).events[0].candidate.deniedBy).toMatchObject({ name: 'require-team', static: true });
    expect(parseImpactArgs(['--audit', 'a', '--static'])).toMatchObject({ static: true });
  });
  it('a cut-off gzip log: the events before the cut are reported, the rest counted as unreadable (no crash)', async () => {
    const whole = gzipSync(`${log.slice(0, log.lastIndexOf('\n'))}\n${log.slice(0, log.lastIndexOf('\n'))}\n`);
    writeFileSync(join(dir, 'cut.log.gz'), whole.subarray(0, whole.length - 10));
    const r = io();
    await runCli(
      ['impact', '--no-existing', '--format', 'json', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'cut.log.gz'), join(dir, 'policy.yaml')],
      r,
    );
    expect(r.err).toMatch(ENGINE_ONLY);
    const j = JSON.parse(r.out);
    expect(j.summary.skipped.unreadable).toBe(1);
    expect(j.summary.events).toBeGreaterThanOrEqual(3);
  });
  it('a snapshot over the old 10 MiB whole-file limit, YAML gzipped in a directory, is streamed', async () => {
    const snap = join(dir, 'snap-dir');
    mkdirSync(snap, { recursive: true });
    const pad = 'x'.repeat(7500);
    const entry = (i: number) =>
      `- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: old-${i}\n    namespace: apps\n    annotations:\n      pad: ${pad}\n  spec:\n    containers:\n    - name: c\n      image: nginx\n`;
    const n = 1500; // ~11 MB of text
    const yaml = `apiVersion: v1\nitems:\n${Array.from({ length: n }, (_, i) => entry(i)).join('')}kind: List\nmetadata:\n  resourceVersion: ""\n`;
    expect(yaml.length).toBeGreaterThan(10 * 1024 * 1024);
    writeFileSync(join(snap, 'pods.yaml.gz'), gzipSync(yaml));
    writeFileSync(join(snap, 'ns.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } }));
    const r = io();
    const code = await runCli(['impact', '--format', 'json', '--cluster', snap, join(dir, 'policy.yaml')], r);
    expect(r.err).toMatch(ENGINE_ONLY);
    expect(code).toBe(1);
    const report = JSON.parse(r.out);
    const pods = report.existing.filter((e: { kind: string }) => e.kind === 'Pod');
    expect(pods).toHaveLength(n);
    expect(pods[n - 1]).toMatchObject({ kind: 'Pod', namespace: 'apps', name: `old-${n - 1}`, change: 'newly-denied' });
  });
  it('a broken item in a snapshot is skipped, said on stderr and in the notes; the other objects are judged', async () => {
    const good = (n: string) =>
      JSON.stringify(
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: n, namespace: 'apps' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        null,
        2,
      );
    writeFileSync(
      join(dir, 'broken.json'),
      `{\n"apiVersion": "v1",\n"items": [\n${good('a')},\n{ "kind": "Pod", "metadata": { "name": }\n},\n${good('b')}\n],\n"kind": "List"\n}\n`,
    );
    const r = io();
    const code = await runCli(['impact', '--format', 'json', '--cluster', join(dir, 'broken.json'), join(dir, 'policy.yaml')], r);
    expect(code).not.toBe(2);
    expect(r.err).toMatch(/broken\.json:\d+: .*\(skipped\)/);
    const report = JSON.parse(r.out);
    expect(report.existing.map((e: { name: string }) => e.name)).toEqual(['a', 'b']);
    // a snapshot read in part: a warning in the headline, not a footnote
    expect(report.summary.warnings[0]).toMatch(/^1 part of the snapshot could not be read and was skipped \(the first: .*broken\.json:\d+/);
    expect(report.summary.headline).toMatch(/\(warning: 1 part of the snapshot could not be read/);
  });
  it('on a terminal, the reading of a large snapshot and the replay say how far they are on stderr', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'apps' } }));
    writeFileSync(join(dir, 'many.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const r = Object.assign(io(), { isTTY: () => true });
    expect(await runCli(['impact', '--cluster', join(dir, 'many.json'), '--audit', join(dir, 'audit.log'), join(dir, 'policy.yaml')], r)).toBe(1);
    expect(r.err).toContain('\rreading the snapshot: 5000 objects\rreading the snapshot: 10000 objects\n');
    expect(r.err).toMatch(/existing: \d+ lines, 3 writes .*10000\/10000 existing/);
  });
  it('replace with no candidate objects: the cluster has no chain, nothing changes, exit 0', async () => {
    const r = io();
    expect(await runCli(['impact', '--candidate', 'replace', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log')], r)).toBe(0);
    expect(r.out).toContain('The candidate would have denied none of 3 writes');
  });
  it('--webhook-answers: the Simulate view answers (a patch, warnings …) from a file; the report says what was assumed', async () => {
    writeFileSync(
      join(dir, 'webhook.yaml'),
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: { name: pod-review }
webhooks:
  - name: review.example.com
    clientConfig: { url: "https://review.example.com/" }
    rules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods] }]
    sideEffects: None
    admissionReviewVersions: [v1]
`,
    );
    writeFileSync(join(dir, 'answers.yaml'), 'review.example.com:\n  warnings: [reviewed by the candidate]\nother.example.com: unavailable\n');
    const base = ['impact', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log'), join(dir, 'webhook.yaml')];
    const r = io();
    expect(
      await runCli([...base, '--webhook-answers', join(dir, 'answers.yaml'), '--fail-on', 'newly-warned', '--user', 'ci', '--group', 'deployers'], r),
    ).toBe(1);
    expect(r.err).toMatch(ENGINE_ONLY);
    expect(r.out).toContain(
      'Assumed: Kubernetes 1.37; webhook answers: review.example.com allow with warnings: "reviewed by the candidate"; other.example.com unavailable (down / timeout); every other webhook allows; existing objects are created by ci (groups deployers, system:authenticated).',
    );
    // an answer for a webhook neither chain has answers nothing: said, not ignored
    expect(r.out.split('\n')[0]).toMatch(/; webhook answers name a webhook neither chain has: other\.example\.com\)$/);
    // who newly warns: the webhook whose assumed answer warns
    expect(r.out).toMatch(
      /3 {2}newly-warned {2}ValidatingWebhookConfiguration pod-review\/review\.example\.com {2}ns=apps user=ci-bot pods {2}\(e\.g\. line 1: warns: reviewed by the candidate\)/,
    );
    expect(r.out).toContain('newly-warned  Pod apps/running: warns: reviewed by the candidate');
    // --webhook wins over the file
    const j = io();
    await runCli([...base, '--webhook-answers', join(dir, 'answers.yaml'), '--webhook', 'review.example.com=deny', '--format', 'json'], j);
    expect(JSON.parse(j.out).summary.assumed.webhooks).toEqual({ 'review.example.com': 'deny', 'other.example.com': 'unavailable' });
    expect(JSON.parse(j.out).summary.changes['newly-denied']).toBe(3);
    // a bad answer says where and stops the run
    writeFileSync(join(dir, 'bad-answers.yaml'), 'review.example.com: maybe\n');
    const bad = io();
    expect(await runCli([...base, '--webhook-answers', join(dir, 'bad-answers.yaml')], bad)).toBe(2);
    expect(bad.err).toContain(
      'bad-answers.yaml: review.example.com: "maybe" is not an answer: allow, deny, unavailable, {patch: [JSON Patch operations]} or {warnings: [strings]}',
    );
    expect(parseImpactArgs(['--audit', 'a', '--group', 'g'])).toEqual({
      error: '--group needs --user (the default user is kubernetes-admin in system:masters)',
    });
  });
  it('existing objects not judged say so, not 0', async () => {
    const r = io();
    await runCli(['impact', '--no-existing', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'audit.log'), join(dir, 'policy.yaml')], r);
    expect(r.out).toMatch(/\nnewly-denied +2 not judged\n/);
  });
  it('usage errors and unreadable input exit 2', async () => {
    const r = io();
    expect(await runCli(['impact'], r)).toBe(2);
    expect(r.err).toContain('nothing to replay');
    const m = io();
    expect(await runCli(['impact', '--audit', join(dir, 'missing.log')], m)).toBe(2);
    expect(m.err).toContain('missing.log');
    expect(parseImpactArgs(['--audit', 'a', '--webhook', 'x.example.com=deny', '--fail-on', 'any-change'])).toMatchObject({
      webhooks: { 'x.example.com': 'deny' },
      failOn: 'any-change',
    });
    expect(parseImpactArgs(['--audit', 'a', '--webhook', 'x'])).toEqual({ error: '--webhook takes NAME=allow|deny|unavailable' });
    expect(parseImpactArgs(['--audit', 'a', '--static-order', 'ByName', '--feature-gates', 'ConditionalAuthorization=true'])).toMatchObject({
      staticOrder: 'ByName',
      featureGates: ['ConditionalAuthorization'],
    });
    expect(parseImpactArgs(['--audit', 'a', '--static-order', 'first'])).toEqual({ error: '--static-order must be one of StaticFirst, StaticLast, ByName' });
    const gates = io();
    expect(await runCli(['impact', '--audit', join(dir, 'audit.log'), '--feature-gates', 'AllAlpha=true'], gates)).toBe(2);
    expect(gates.err).toContain('--feature-gates: "AllAlpha" is not a gate the Workbench models (ConditionalAuthorization)');
    expect(parseImpactArgs(['--audit', 'a', '--workers', '0'])).toMatchObject({ workers: 0 });
    expect(parseImpactArgs(['--audit', 'a', '--engines', '3'])).toMatchObject({ engines: 3 });
    expect(parseImpactArgs(['--audit', 'a', '--engines', '0'])).toEqual({ error: '--engines takes a number of engine processes (1 or more)' });
    expect(parseImpactArgs(['--audit', 'a', '--workers', 'many'])).toEqual({ error: '--workers takes a number (0: decide on the main thread)' });
    expect(parseImpactArgs(['--audit', 'a', '--shards', '4'])).toMatchObject({ shards: 4 });
    expect(parseImpactArgs(['--audit', 'a', '--shards', '-1'])).toEqual({ error: '--shards takes a number (0: replay the log on the main thread)' });
  });

  it('input errors exit 2 and say so in the headline: an HTML page as the log, an empty log, the snapshot and the log swapped', async () => {
    writeFileSync(join(dir, 'page.html'), '<!DOCTYPE html>\n<html><body>Sign in</body></html>\n');
    writeFileSync(join(dir, 'empty.log'), '');
    const html = io();
    expect(await runCli(['impact', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'page.html'), join(dir, 'policy.yaml')], html)).toBe(2);
    expect(html.out).toMatch(/^Input error: the audit log holds no readable audit event in 2 lines .*it looks like HTML/);
    expect(html.err).toContain('the audit log holds no readable audit event');
    const empty = io();
    expect(await runCli(['impact', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'empty.log'), join(dir, 'policy.yaml')], empty)).toBe(2);
    expect(empty.out).toMatch(/^Input error: the audit log is empty\. /);
    const swapped = io();
    expect(
      await runCli(
        ['impact', '--format', 'json', '--cluster', join(dir, 'audit.log'), '--audit', join(dir, 'snapshot.json'), join(dir, 'policy.yaml')],
        swapped,
      ),
    ).toBe(2);
    const j = JSON.parse(swapped.out);
    expect(j.summary.inputErrors).toEqual([
      'the snapshot holds audit events, not cluster objects: it is an audit log (were the snapshot and the log swapped?)',
      expect.stringMatching(/^the audit log holds no readable audit event in 1 line .*were the snapshot and the log swapped\?\)$/),
    ]);
    const gh = io();
    expect(
      await runCli(['impact', '--format', 'github', '--cluster', join(dir, 'audit.log'), '--audit', join(dir, 'snapshot.json'), join(dir, 'policy.yaml')], gh),
    ).toBe(2);
    expect(gh.out).toContain('::error title=admission impact: input error::the snapshot holds audit events');
  });

  it('--kubernetes-version: runs at that release and says what the candidate holds that it does not serve', async () => {
    writeFileSync(
      join(dir, 'map.yaml'),
      `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: { name: add-team }
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods] }]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}' }
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: { name: add-team }
spec: { policyName: add-team }
`,
    );
    const args = (v: string) => [
      'impact',
      '--no-existing',
      '--kubernetes-version',
      v,
      '--cluster',
      join(dir, 'snapshot.json'),
      '--audit',
      join(dir, 'audit.log'),
      join(dir, 'policy.yaml'),
      join(dir, 'map.yaml'),
    ];
    const now = io();
    // 1.37: the MutatingAdmissionPolicy adds the team label before require-team checks it
    expect(await runCli(args('1.37'), now)).toBe(0);
    expect(now.out).toContain('The candidate would have denied none of 3 writes');
    const old = io();
    expect(await runCli(args('1.30'), old)).toBe(1);
    expect(old.out).toMatch(
      /^The candidate would have denied 2 of 3 writes: 2 by ValidatingAdmissionPolicy require-team \(warning: the audit log's last line is cut off \(line 4\); Kubernetes 1\.30 does not serve MutatingAdmissionPolicy add-team \(apiVersion: no matches for kind "MutatingAdmissionPolicy"/,
    );
    expect(old.out).toContain('Assumed: Kubernetes 1.30; ');
  });

  it('writes whose old object is unknown and read are undetermined in every format, and never fail the run', async () => {
    writeFileSync(
      join(dir, 'guard.yaml'),
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: keep-team }
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods] }]
  validations:
    - expression: "object.metadata.labels.team == oldObject.metadata.labels.team"
      message: the team label stays
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: keep-team }
spec: { policyName: keep-team, validationActions: [Deny] }
`,
    );
    const update = (i: number) => ev(i, { team: 'b' }).replace('"verb":"create"', '"verb":"update"').replace('"code":201', '"code":200');
    writeFileSync(join(dir, 'updates.log'), `${update(1)}\n${update(2)}\n`);
    const base = ['impact', '--no-existing', '--cluster', join(dir, 'snapshot.json'), '--audit', join(dir, 'updates.log'), join(dir, 'guard.yaml')];
    const text = io();
    expect(await runCli([...base, '--fail-on', 'any-change'], text)).toBe(0);
    expect(text.out).toContain(
      'The candidate would have denied none of 2 writes; 2 writes undetermined: the decision reads what the replay does not know (an old object, a Namespace, the authorizer, an object converted to another version)',
    );
    expect(text.out).toMatch(/\nundetermined {14}2 not judged\n/);
    expect(text.out).toContain('\nChanges by who decided:\n       2  undetermined  ValidatingAdmissionPolicy keep-team  (pods by ci-bot in apps)  e.g. line 1');
    const json = io();
    await runCli([...base, '--format', 'json'], json);
    expect(JSON.parse(json.out).summary.changes.undetermined).toBe(2);
    const md = io();
    await runCli([...base, '--format', 'markdown'], md);
    expect(md.out).toContain('| undetermined | 2 | not judged |');
    expect(md.out).toContain(
      '## Changes by who decided\n\n| change | decided by | count | where | example |\n|---|---|---:|---|---|\n| undetermined | ValidatingAdmissionPolicy keep-team | 2 | pods by ci-bot in apps | line 1',
    );
    const gh = io();
    expect(await runCli([...base, '--format', 'github'], gh)).toBe(0);
    expect(gh.out).toContain('::warning title=admission impact: undetermined::2 × pods by ci-bot in apps: ValidatingAdmissionPolicy keep-team (');
    // one annotation per policy and change, wherever its writes were (GitHub shows a step's first few)
    writeFileSync(join(dir, 'updates-2ns.log'), `${update(1)}\n${update(2).replaceAll('"namespace":"apps"', '"namespace":"web"')}\n`);
    const spread = io();
    expect(await runCli([...base.slice(0, -2), join(dir, 'updates-2ns.log'), join(dir, 'guard.yaml'), '--format', 'github'], spread)).toBe(0);
    expect(spread.out.match(/^::warning title=admission impact: undetermined::.*$/gm)).toEqual([
      expect.stringMatching(/^::warning title=admission impact: undetermined::2 × pods by ci-bot in 2 namespaces: ValidatingAdmissionPolicy keep-team \(/),
    ]);
  });
});
