/** analyzeImpact on a hand-written log and snapshot, through the real engine and simulator. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { addToGroups, analyzeImpact, candidateChain, chainDecider, readAuditLine, readLines, replayRequest, sortedRows, strategicMerge } from './index';
import { discoveryFor, type WebhookResponse } from '../admission';
import { stateOf } from './cluster';
import { hook, mutating } from '../admission/test-helpers';

useEngine();

const ns = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
});
const pod = (name: string, labels: Record<string, string> = {}, namespace = 'apps') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

/** The candidate: Pods must carry a `team` label (Deny), everywhere but kube-system. */
const requireTeam = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'require-team-label' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] },
      validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'pods need a team label' }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'require-team-label' },
    spec: {
      policyName: 'require-team-label',
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } },
    },
  },
];

/** The cluster's chain: images must not use `:latest`. */
const denyLatest = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'deny-latest-tag' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] },
      validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: 'no latest tags' }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'deny-latest-tag' },
    spec: { policyName: 'deny-latest-tag', validationActions: ['Deny'] },
  },
];

const snapshot = [ns('apps'), ns('kube-system'), pod('old-with-team', { team: 'a' }), pod('old-without-team'), ...denyLatest];

let id = 0;
function event(verb: string, ref: Record<string, string>, extra: Record<string, unknown> = {}) {
  const code = (extra.code as number | undefined) ?? (verb === 'create' ? 201 : 200);
  const { code: _, ...rest } = extra;
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `a-${++id}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/${ref.namespace ?? ''}/${ref.resource}`,
    verb,
    user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
    objectRef: { apiVersion: 'v1', ...ref },
    responseStatus: { metadata: {}, code },
    requestReceivedTimestamp: `2026-11-20T10:00:0${id % 10}.000000Z`,
    annotations: { 'authorization.k8s.io/decision': 'allow' },
    ...rest,
  });
}

const log = [
  event(
    'create',
    { resource: 'pods', namespace: 'apps', name: 'web' },
    { requestObject: pod('web', { team: 'a' }), responseObject: pod('web', { team: 'a' }) },
  ),
  event('create', { resource: 'pods', namespace: 'apps', name: 'no-label' }, { requestObject: pod('no-label'), responseObject: pod('no-label') }),
  event(
    'create',
    { resource: 'pods', namespace: 'kube-system', name: 'sys' },
    { requestObject: pod('sys', {}, 'kube-system'), responseObject: pod('sys', {}, 'kube-system') },
  ),
  // a patch the cluster's chain refused (no responseObject): the object is the old one, patched
  event(
    'patch',
    { resource: 'pods', namespace: 'apps', name: 'web' },
    {
      code: 403,
      requestObject: { spec: { containers: [{ name: 'app', image: 'nginx:latest' }] } },
      responseStatus: {
        code: 403,
        message: "pods \"web\" is forbidden: ValidatingAdmissionPolicy 'deny-latest-tag' with binding 'deny-latest-tag' denied request: no latest tags",
      },
    },
  ),
  event(
    'delete',
    { resource: 'pods', namespace: 'apps', name: 'web' },
    { requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' } },
  ),
  event('get', { resource: 'pods', namespace: 'apps', name: 'web' }),
  event(
    'create',
    { resource: 'pods', namespace: 'apps', name: 'nope' },
    { code: 403, annotations: { 'authorization.k8s.io/decision': 'forbid' }, requestObject: pod('nope') },
  ),
  JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', stage: 'RequestReceived', verb: 'create', objectRef: { resource: 'pods' } }),
  JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1beta1', stage: 'ResponseComplete' }),
  'not json at all',
  event('create', { resource: 'pods', namespace: 'apps', name: 'cut' }, { requestObject: pod('cut') }).slice(0, 80),
].join('\n');

describe('analyzeImpact', () => {
  it('replays each write through the baseline and the candidate, and counts what it skips', async () => {
    const r = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: log, options: { existing: false } });
    const byName = Object.fromEntries(r.events.map((e) => [`${e.request.operation} ${e.request.name}`, e]));
    expect(Object.keys(byName)).toEqual(['CREATE web', 'CREATE no-label', 'CREATE sys', 'UPDATE web', 'DELETE web']);
    expect(byName['CREATE web']!.change).toBe('unchanged');
    expect(byName['CREATE no-label']!.change).toBe('newly-denied');
    expect(byName['CREATE no-label']!.candidate.deniedBy).toMatchObject({
      kind: 'ValidatingAdmissionPolicy',
      name: 'require-team-label',
      binding: 'require-team-label',
    });
    expect(byName['CREATE sys']!.change).toBe('unchanged'); // kube-system is excluded by the binding
    // the refused patch: old object from the log (the create), patched; both chains deny it
    const patched = byName['UPDATE web']!;
    expect(patched.oldObject).toBe('log');
    expect(patched.baseline.allowed).toBe(false);
    expect(patched.baseline.deniedBy?.name).toBe('deny-latest-tag');
    expect(patched.live.code).toBe(403);
    expect(patched.notes?.[0]).toMatch(/strategic merge patch/);
    expect(byName['DELETE web']!.oldObject).toBe('log');
    expect(r.summary.skipped).toEqual({ read: 1, 'before-admission': 1, stage: 1, 'other-api-version': 1, 'not-json': 1, truncated: 1 });
    expect(r.summary.changes['newly-denied']).toBe(1);
    expect(r.summary.newlyDeniedBy).toEqual([{ by: 'ValidatingAdmissionPolicy require-team-label', count: 1 }]);
    expect(r.summary.baselineDisagrees).toBe(0);
    expect(r.summary.notes).toEqual([]);
    // the lines that are no audit.k8s.io/v1 event: a warning in the headline, not only a count at the bottom
    expect(r.summary.warnings).toEqual([
      '3 of 11 lines of the audit log could not be read (the first: line 9, an audit Event of another API version than audit.k8s.io/v1)',
    ]);
    expect(r.summary.headline).toBe(
      'The candidate would have denied 1 of 5 writes: 1 by ValidatingAdmissionPolicy require-team-label (warning: 3 of 11 lines of the audit log could not be read (the first: line 9, an audit Event of another API version than audit.k8s.io/v1))',
    );
  });

  it('takes decisions back in log order when several are in flight and answered out of order (as worker threads do)', async () => {
    const one = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: log });
    let asked = 0;
    const seen: string[] = [];
    const scrambled = await analyzeImpact({
      workspace: requireTeam,
      cluster: snapshot,
      audit: log,
      options: {
        inFlight: 4,
        onEvent: (e) => seen.push(e.auditID),
        // the real decider, its answers held back so that later requests finish first
        decider: (spec) => {
          const decide = chainDecider(spec);
          return async (request, ns) => {
            const wait = 3 - (asked++ % 3);
            const pair = await decide(request, ns);
            for (let i = 0; i < wait * 3; i++) await new Promise((r) => setTimeout(r, 0));
            return pair;
          };
        },
      },
    });
    expect(asked).toBe(one.events.length + one.existing.length);
    expect(scrambled).toEqual(one);
    expect(seen).toEqual(one.events.map((e) => e.auditID));
  });

  it('judges existing objects as a CREATE of the object now', async () => {
    const r = await analyzeImpact({ workspace: requireTeam, cluster: snapshot });
    const pods = r.existing.filter((e) => e.kind === 'Pod');
    expect(pods.map((p) => [p.name, p.change])).toEqual([
      ['old-with-team', 'unchanged'],
      ['old-without-team', 'newly-denied'],
    ]);
    expect(r.summary.headline).toBe('1 of 4 existing objects would be rejected if created now');
  });

  it('reports every denial when several policies deny one request, and the one the client sees', async () => {
    const latestNoTeam = event(
      'create',
      { resource: 'pods', namespace: 'apps', name: 'both' },
      { requestObject: { ...pod('both'), spec: { containers: [{ name: 'a', image: 'x:latest' }] } } },
    );
    const r = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: latestNoTeam, options: { existing: false } });
    const c = r.events[0]!.candidate;
    expect(c.allowed).toBe(false);
    expect(c.denials?.map((d) => d.name).sort()).toEqual(['deny-latest-tag', 'require-team-label']);
    expect(c.denials?.map((d) => d.name)).toContain(c.deniedBy!.name);
  });

  it('a write a new mutating webhook patches is newly mutated, one it only calls newly audited (each call adds its audit annotation)', async () => {
    const inject = mutating('inject', hook('inject.example.com'));
    const create = event('create', { resource: 'pods', namespace: 'apps', name: 'web' }, { requestObject: pod('web'), responseObject: pod('web') });
    const run = async (answer: WebhookResponse) =>
      (await analyzeImpact({ workspace: [inject], cluster: snapshot, audit: create, options: { existing: false, webhooks: { 'inject.example.com': answer } } }))
        .events[0]!;
    const patched = await run({ patch: [{ op: 'add', path: '/metadata/labels', value: { injected: 'true' } }] });
    expect(patched.candidate).toMatchObject({
      mutated: true,
      mutatedBy: ['MutatingWebhookConfiguration inject/inject.example.com'],
      audited: ['mutation.webhook.admission.k8s.io/round_0_index_0'],
    });
    expect(patched.change).toBe('newly-mutated');
    // the report's row names who changed the object
    expect(sortedRows(addToGroups(new Map(), [patched]))[0]).toMatchObject({
      change: 'newly-mutated',
      by: 'MutatingWebhookConfiguration inject/inject.example.com',
    });
    const called = await run('allow');
    expect(called.candidate).toMatchObject({ mutated: false, audited: ['mutation.webhook.admission.k8s.io/round_0_index_0'] });
    expect(called.change).toBe('newly-audited');
  });

  it('reads gzip and chunked input the same as text, and stops on cancel with a partial report', async () => {
    const text = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: log, options: { existing: false } });
    const gz = gzipSync(Buffer.from(log));
    async function* pieces() {
      for (let i = 0; i < gz.length; i += 7) yield new Uint8Array(gz.subarray(i, i + 7));
    }
    const zipped = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: pieces(), options: { existing: false } });
    expect(zipped.summary).toEqual(text.summary);
    const ac = new AbortController();
    const partial = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: log, options: { signal: ac.signal, onEvent: () => ac.abort() } });
    expect(partial.events).toHaveLength(1);
    expect(partial.summary.cancelled).toBe(true);
    expect(partial.summary.headline).toMatch(/cancelled: partial report/);
  });

  it('a gzip stream cut off or corrupt: the lines before it are replayed, and the rest is counted as unreadable', async () => {
    const whole = await analyzeImpact({ workspace: requireTeam, cluster: snapshot, audit: log, options: { existing: false } });
    const gz = gzipSync(Buffer.from(log));
    const cut = await analyzeImpact({
      workspace: requireTeam,
      cluster: snapshot,
      audit: new Uint8Array(gz.subarray(0, gz.length - 12)),
      options: { existing: false },
    });
    expect(cut.summary.skipped.unreadable).toBe(1);
    expect(cut.skipped.find((s) => s.reason === 'unreadable')?.detail).toBeTruthy();
    expect(cut.summary.events).toBeGreaterThan(0);
    expect(cut.summary.events).toBeLessThanOrEqual(whole.summary.events);
    const corrupt = await analyzeImpact({
      workspace: requireTeam,
      cluster: snapshot,
      audit: new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      options: { existing: false },
    });
    expect(corrupt.summary).toMatchObject({ events: 0, lines: 0, skipped: { unreadable: 1 } });
  });

  it('says what missing inputs leave unknown, and keeps at most 1,000 skipped lines while counting all', async () => {
    const reads = Array.from({ length: 1500 }, () => event('get', { resource: 'pods', namespace: 'apps', name: 'x' })).join('\n');
    const update = event(
      'update',
      { resource: 'pods', namespace: 'apps', name: 'never-seen' },
      { requestObject: pod('never-seen'), responseObject: pod('never-seen') },
    );
    const r = await analyzeImpact({ workspace: requireTeam, cluster: [pod('a')], audit: `${reads}\n${update}` });
    expect(r.summary.skipped).toEqual({ read: 1500 });
    expect(r.skipped).toHaveLength(1000);
    expect(r.events[0]!.oldObject).toBe('unknown');
    expect(r.summary.notes).toEqual([
      'the snapshot has no Namespaces: namespaceSelector and namespaceObject saw each namespace the log does not write with only its kubernetes.io/metadata.name label (a decision that reads its other labels is undetermined)',
      '1 update or delete requests had no old object in the log or the snapshot (oldObject: unknown); none of their decisions reads oldObject or its labels',
    ]);
  });

  it('replace: the workspace alone is the candidate', () => {
    expect(candidateChain(denyLatest, requireTeam, 'replace').map((o) => (o as { metadata: { name: string } }).metadata.name)).toEqual([
      'require-team-label',
      'require-team-label',
    ]);
    expect(candidateChain(denyLatest, requireTeam).length).toBe(4);
  });
});

describe('reading the log', () => {
  it('splits lines across chunks, CRLF included, and marks an unterminated last line', async () => {
    const out = [];
    for await (const l of readLines(['a\r', '\nb', 'c\n', 'd'])) out.push(l);
    expect(out).toEqual([
      { line: 1, text: 'a', terminated: true },
      { line: 2, text: 'bc', terminated: true },
      { line: 3, text: 'd', terminated: false },
    ]);
  });
  it('skips a line longer than the limit without keeping it', async () => {
    const out = [];
    for await (const l of readLines(['x'.repeat(10), 'y'.repeat(10), '\nok\n'], 15)) out.push(l);
    expect(out).toEqual([
      { line: 1, text: '', terminated: true, tooLong: 20 },
      { line: 2, text: 'ok', terminated: true },
    ]);
  });
  it('a Namespace patch carries its own name as namespace; on create it has none', () => {
    const patch = readAuditLine(
      event(
        'patch',
        { resource: 'namespaces', namespace: 'team-a', name: 'team-a' },
        { requestObject: { metadata: { labels: { x: 'y' } } }, responseObject: ns('team-a', { x: 'y' }) },
      ),
      1,
    );
    const create = readAuditLine(event('create', { resource: 'namespaces', name: 'team-b' }, { requestObject: ns('team-b'), responseObject: ns('team-b') }), 2);
    if (patch?.kind !== 'write' || create?.kind !== 'write') throw new Error('not writes');
    const state = stateOf([ns('team-a')]);
    const d = discoveryFor([]);
    const p = replayRequest(patch.event, state, d);
    expect(p.request).toMatchObject({ operation: 'UPDATE', namespace: 'team-a', name: 'team-a', kind: { kind: 'Namespace' } });
    // a patch's admission options are PatchOptions (what the conditions enforcer's 403 names the verb by)
    expect(p.request.options).toEqual({ kind: 'PatchOptions', apiVersion: 'meta.k8s.io/v1' });
    expect(p.oldObject).toBe('snapshot');
    const c = replayRequest(create.event, state, d);
    expect(c.request.namespace).toBe('');
    expect(c.oldObject).toBe('none');
  });
  it('a create by generateName is remembered under the name the apiserver gave it: a later patch has its old object', () => {
    const generated = { ...pod('web-7x2k9', { team: 'a' }), metadata: { name: 'web-7x2k9', generateName: 'web-', namespace: 'apps', labels: { team: 'a' } } };
    const create = readAuditLine(
      event(
        'create',
        { resource: 'pods', namespace: 'apps' },
        { requestObject: { ...generated, metadata: { generateName: 'web-', namespace: 'apps' } }, responseObject: generated },
      ),
      1,
    );
    const patch = readAuditLine(
      event(
        'patch',
        { resource: 'pods', namespace: 'apps', name: 'web-7x2k9' },
        { requestObject: { metadata: { labels: { team: 'b' } } }, responseObject: pod('web-7x2k9', { team: 'b' }) },
      ),
      2,
    );
    if (create?.kind !== 'write' || patch?.kind !== 'write') throw new Error('not writes');
    const state = stateOf([]);
    const d = discoveryFor([]);
    expect(replayRequest(create.event, state, d).request.name).toBe('');
    const p = replayRequest(patch.event, state, d);
    expect(p.oldObject).toBe('log');
    expect(p.request.oldObject).toEqual(generated);
  });
  it('a patch with no responseObject is applied to the old object; the note says why there was none: refused, or logged at Request level', () => {
    const d = discoveryFor([]);
    const notesOf = (code: number) => {
      const l = readAuditLine(
        event('patch', { resource: 'pods', namespace: 'apps', name: 'web' }, { requestObject: { metadata: { labels: { team: 'b' } } }, code }),
        1,
      );
      if (l?.kind !== 'write') throw new Error('not a write');
      const r = replayRequest(l.event, stateOf([ns('apps'), pod('web', { team: 'a' })]), d);
      expect(r.object).toBe('patched');
      expect(r.request.object).toMatchObject({ metadata: { labels: { team: 'b' } } });
      return r.notes;
    };
    expect(notesOf(200)).toEqual([
      'the event holds no responseObject (Request level), so the object is the old object with the patch applied (read as a strategic merge patch)',
    ]);
    expect(notesOf(403)).toEqual([
      'the live chain refused the patch, so the object is the old object with the patch applied (read as a strategic merge patch)',
    ]);
  });
  it('a scale write: its old object is the old Scale, which the replay does not hold; a scale patch with no stored object is not replayed', () => {
    const state = stateOf([ns('apps'), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'apps' }, spec: { replicas: 2 } }]);
    const d = discoveryFor([]);
    const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'd', namespace: 'apps' }, spec: { replicas: 10 } };
    const ref = { resource: 'deployments', apiGroup: 'apps', namespace: 'apps', name: 'd', subresource: 'scale' };
    const update = readAuditLine(event('update', ref, { requestObject: scale, responseObject: scale }), 1);
    if (update?.kind !== 'write') throw new Error('not a write');
    const r = replayRequest(update.event, state, d);
    expect(r.oldObject).toBe('unknown');
    expect(r.request.oldObject).toBeUndefined();
    expect(r.request.object).toEqual(scale);
    expect(r.notes).toContain('the old object of a scale write is of its own kind, which the replay does not hold');
    // a patch at Request level (no responseObject), or refused: its object would be the Deployment patched, not a Scale
    for (const extra of [
      { requestObject: { spec: { replicas: 10 } } },
      { requestObject: { spec: { replicas: 10 } }, responseObject: { kind: 'Status' }, code: 403 },
    ])
      expect(readAuditLine(event('patch', ref, extra), 2)).toMatchObject({ kind: 'skip', reason: 'subresource-object', detail: 'scale' });
    // a status patch's object is the Deployment: replayed from the old one
    expect(readAuditLine(event('patch', { ...ref, subresource: 'status' }, { requestObject: { status: { replicas: 1 } } }), 3)).toMatchObject({
      kind: 'write',
    });
  });
  it('impersonation: admission sees the impersonated user; an exec is a CONNECT with PodExecOptions', () => {
    const l = readAuditLine(
      JSON.stringify({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Request',
        auditID: 'x',
        stage: 'ResponseComplete',
        requestURI: '/api/v1/namespaces/apps/pods/web/exec?command=sh&command=-c&container=app&stdin=true&tty=true',
        verb: 'create',
        user: { username: 'admin' },
        impersonatedUser: { username: 'bob', groups: ['dev'] },
        objectRef: { resource: 'pods', namespace: 'apps', name: 'web', apiVersion: 'v1', subresource: 'exec' },
        responseStatus: { code: 101 },
      }),
      1,
    );
    if (l?.kind !== 'write') throw new Error('not a write');
    const r = replayRequest(l.event, stateOf([]), discoveryFor([]));
    expect(r.request).toMatchObject({ operation: 'CONNECT', subResource: 'exec', userInfo: { username: 'bob', groups: ['dev'] } });
    expect(r.request.object).toEqual({ kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, tty: true, container: 'app', command: ['sh', '-c'] });
  });
  it('strategic merge patch merges containers by name and deletes with null', () => {
    const before = {
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '2' },
        ],
      },
      metadata: { labels: { x: '1', y: '2' } },
    };
    expect(strategicMerge(before, { spec: { containers: [{ name: 'b', image: '3' }] }, metadata: { labels: { x: null } } })).toEqual({
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '3' },
        ],
      },
      metadata: { labels: { y: '2' } },
    });
  });
});

describe('analyzeImpact at the target release', () => {
  it('a TokenReview reaches a candidate webhook for * at 1.36, not at 1.37 (the release reaches the simulator)', async () => {
    const tokenReview = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'abc' } };
    const audit = event(
      'create',
      { apiGroup: 'authentication.k8s.io', resource: 'tokenreviews' },
      {
        requestURI: '/apis/authentication.k8s.io/v1/tokenreviews',
        requestObject: tokenReview,
        responseObject: { ...tokenReview, status: { authenticated: true } },
      },
    );
    const everything = { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] };
    const candidate = [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'all' },
        webhooks: [
          {
            name: 'all.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: { url: 'https://all.example.com' },
            rules: [everything],
          },
        ],
      },
    ];
    const change = async (kubernetesVersion: '1.36' | '1.37') =>
      (
        await analyzeImpact({
          workspace: candidate,
          cluster: [],
          audit,
          options: { kubernetesVersion, webhooks: { 'all.example.com': 'deny' }, existing: false },
        })
      ).events.map((e) => e.change);
    expect(await change('1.36')).toEqual(['newly-denied']);
    expect(await change('1.37')).toEqual(['unchanged']);
  });
});
