/**
 * The log's replay split by namespace over shards (shard.ts) reports what one thread reports:
 * the same events, skipped lines, kept requests and summary, on the real apiserver's log and on a
 * log built to cross shards (Namespaces relabelled, old objects, cluster-scoped objects created
 * by generateName). The shards run in this thread behind structuredClone, which is what a worker
 * thread's messages do to the setup, the lines and the outcomes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { WebhookResponse } from '../admission';
import { analyzeImpact, chainDecider, laterReads, localShard, routeOf, shardServer, type ImpactInput, type OpenShard } from './index';

useEngine();

/** A shard in this thread: setup, batches and answers cloned as a thread's messages are; `dieAfter` batches, it fails. */
const inThread =
  (dieAfter = Infinity): OpenShard =>
  (setup, { answer, failed }) => {
    const serve = shardServer(structuredClone(setup), chainDecider, (a) => setTimeout(() => answer(structuredClone(a))));
    let batches = 0;
    return {
      send(batch) {
        const copy = structuredClone(batch);
        setTimeout(() => (++batches > dieAfter ? failed('its thread exited (1)') : serve(copy)));
      },
      close() {},
    };
  };

const shards = (n: number, dieAfter?: number[]) => Array.from({ length: n }, (_, i) => inThread(dieAfter?.[i]));

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
const realLog = readFileSync(join(dir, 'audit.log'), 'utf8');
const realSnapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
const realCandidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };

const ns = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
});
const cm = (name: string, namespace: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });
const role = (name: string, verbs: string[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
});

/**
 * The candidate: ConfigMaps keep their `owner` key (oldObject), in namespaces labelled
 * `guarded=true` (namespaceSelector), and ClusterRoles never grant delete.
 */
const candidate = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'keep-owner' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['configmaps'] }] },
      validations: [
        {
          expression:
            "request.operation == 'DELETE' ? !has(oldObject.data) || !('owner' in oldObject.data) : !has(oldObject.data) || !('owner' in oldObject.data) || (has(object.data) && 'owner' in object.data)",
          message: 'the owner key stays',
        },
      ],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'keep-owner' },
    spec: { policyName: 'keep-owner', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { guarded: 'true' } } } },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'no-delete-grants' },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['rbac.authorization.k8s.io'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['clusterroles'] }],
      },
      validations: [
        { expression: "object.rules.all(r, !('delete' in r.verbs)) || oldObject.rules.exists(r, 'delete' in r.verbs)", message: 'no new delete grants' },
      ],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'no-delete-grants' },
    spec: { policyName: 'no-delete-grants', validationActions: ['Deny'] },
  },
];

let id = 0;
function event(verb: string, ref: Record<string, string>, extra: Record<string, unknown> = {}): string {
  const group = ref.apiGroup ? `/apis/${ref.apiGroup}/v1` : '/api/v1';
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `s-${++id}`,
    stage: 'ResponseComplete',
    requestURI: `${group}${ref.namespace ? `/namespaces/${ref.namespace}` : ''}/${ref.resource}${ref.name ? `/${ref.name}` : ''}`,
    verb,
    user: { username: `user-${id % 3}`, groups: ['system:authenticated'] },
    objectRef: { apiVersion: 'v1', ...ref },
    responseStatus: { metadata: {}, code: verb === 'create' ? 201 : 200 },
    requestReceivedTimestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, id)).toISOString(),
    ...extra,
  });
}

/** Namespaces team-0 … team-7: guarded from the start, or labelled guarded by the log halfway. */
function crossingLog(): { cluster: unknown[]; log: string } {
  const cluster: unknown[] = [];
  const lines: string[] = [];
  for (let t = 0; t < 8; t++) {
    const name = `team-${t}`;
    cluster.push(ns(name, t % 2 ? { guarded: 'true' } : {}), cm('settings', name, { owner: `t${t}` }));
  }
  cluster.push(role('reader', ['get']));
  for (let i = 0; i < 80; i++) {
    const t = i % 8;
    const namespace = `team-${t}`;
    if (i === 40)
      // every even team's Namespace becomes guarded: later requests in it must see the label
      for (let u = 0; u < 8; u += 2) {
        const team = `team-${u}`;
        lines.push(
          event(
            'patch',
            { resource: 'namespaces', namespace: team, name: team },
            { requestObject: { metadata: { labels: { guarded: 'true' } } }, responseObject: ns(team, { guarded: 'true' }) },
          ),
        );
        lines.push(
          event(
            'update',
            { resource: 'configmaps', namespace: team, name: 'settings' },
            { requestObject: cm('settings', team, {}), responseObject: cm('settings', team, {}) },
          ),
        );
      }
    const name = `cm-${i % 16}`;
    // created, then updated without its owner key, then deleted: old objects from the log and the snapshot
    if (i < 16)
      lines.push(
        event(
          'create',
          { resource: 'configmaps', namespace, name },
          { requestObject: cm(name, namespace, { owner: 'x' }), responseObject: cm(name, namespace, { owner: 'x' }) },
        ),
      );
    else if (i < 64)
      lines.push(
        event(
          'update',
          { resource: 'configmaps', namespace, name },
          { requestObject: cm(name, namespace, { v: String(i) }), responseObject: cm(name, namespace, { v: String(i) }) },
        ),
      );
    else
      lines.push(
        event(
          'delete',
          { resource: 'configmaps', namespace, name: i % 2 ? 'settings' : name },
          { requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' } },
        ),
      );
    // a ClusterRole by generateName, then granted delete: its old object is the create's (routed by the name the apiserver gave)
    if (i % 20 === 5) {
      const given = `gen-${i}`;
      lines.push(
        event(
          'create',
          { resource: 'clusterroles', apiGroup: 'rbac.authorization.k8s.io' },
          { requestObject: { ...role('', ['get']), metadata: { generateName: 'gen-' } }, responseObject: role(given, ['get']) },
        ),
      );
      lines.push(
        event(
          'update',
          { resource: 'clusterroles', apiGroup: 'rbac.authorization.k8s.io', name: given },
          { requestObject: role(given, ['get', 'delete']), responseObject: role(given, ['get', 'delete']) },
        ),
      );
    }
  }
  lines.push(
    event(
      'update',
      { resource: 'clusterroles', apiGroup: 'rbac.authorization.k8s.io', name: 'reader' },
      { requestObject: role('reader', ['delete']), responseObject: role('reader', ['delete']) },
    ),
  );
  lines.push('not json', '', event('create', { resource: 'configmaps', namespace: 'team-1', name: 'cut' }).slice(0, 60));
  return { cluster, log: lines.join('\n') };
}

/** The log as chunks of a line each (the last one unterminated, as in the text). */
const chunksByLine = (log: string): string[] => log.split('\n').map((l, i, all) => (i < all.length - 1 ? `${l}\n` : l));

const run = (input: ImpactInput, extra: object = {}) => analyzeImpact({ ...input, options: { ...input.options, ...extra } });

describe('routeOf', () => {
  it('routes an object by namespace and name (a generateName create by the name it was given), a cluster-scoped one by name, a Namespace to every shard', () => {
    expect(routeOf(event('update', { resource: 'configmaps', namespace: 'a', name: 'x' }))).toEqual({ key: 'a/x' });
    const generated = { ...cm('web-7x2k9', 'a', {}), metadata: { name: 'web-7x2k9', generateName: 'web-', namespace: 'a' } };
    expect(routeOf(event('create', { resource: 'configmaps', namespace: 'a' }, { requestObject: cm('', 'a', {}), responseObject: generated }))).toEqual({
      key: 'a/web-7x2k9',
    });
    expect(routeOf(event('create', { resource: 'namespaces', name: 'a' }))).toEqual({ key: 'a', every: true });
    expect(routeOf(event('patch', { resource: 'namespaces', namespace: 'a', name: 'a' }))).toEqual({ key: 'a', every: true });
    expect(routeOf(event('update', { resource: 'clusterroles', apiGroup: 'rbac.authorization.k8s.io', name: 'r' }))).toEqual({ key: 'r' });
    expect(routeOf(event('create', { resource: 'clusterroles', apiGroup: 'rbac.authorization.k8s.io' }, { responseObject: role('gen-1', []) }))).toEqual({
      key: 'gen-1',
    });
    // the stored object's metadata not as the apiserver writes it (name not first): the line parsed
    expect(
      routeOf(
        event(
          'create',
          { resource: 'configmaps', namespace: 'a' },
          { responseObject: { metadata: { generateName: 'w-', name: 'w-1' }, data: { metadata: 'x' } } },
        ),
      ),
    ).toEqual({ key: 'a/w-1' });
    // a failed create by generateName stored nothing: any shard
    expect(routeOf(event('create', { resource: 'configmaps', namespace: 'a' }, { requestObject: cm('', 'a', {}) }))).toEqual({ key: 'a/' });
    expect(routeOf('not json')).toEqual({ key: '' });
  });
});

describe('analyzeImpact over shards', () => {
  it("reports the real apiserver's log as one thread does, with 1, 2 and 3 shards", async () => {
    const input: ImpactInput = {
      workspace: realCandidate.objects,
      cluster: realSnapshot,
      audit: realLog,
      options: { kubernetesVersion: '1.37', webhooks: realCandidate.webhooks, keepRequests: 4 },
    };
    const one = await run(input);
    expect(one.events.length).toBeGreaterThan(20);
    // up to 4 changed events' requests, and as many changed existing objects'
    expect(Object.keys(one.requests).filter((k) => !k.startsWith('existing '))).toHaveLength(4);
    expect(Object.keys(one.requests).filter((k) => k.startsWith('existing ')).length).toBeGreaterThan(0);
    for (const n of [1, 2, 3]) expect(await run(input, { shards: shards(n) })).toEqual(one);
    // one shard on this thread beside the others (the CLI's), and this thread's alone
    for (const n of [1, 2]) expect(await run(input, { shards: [...shards(n - 1), localShard()] })).toEqual(one);
  });

  it('reports a log whose objects, Namespaces and generated names cross shards as one thread does, retained state or not', async () => {
    const { cluster, log } = crossingLog();
    const input: ImpactInput = { workspace: candidate, cluster, audit: log, options: { existing: false, keepRequests: 3 } };
    const one = await run(input);
    // the cases the log is built for are there: old objects from the log and the snapshot, a relabelled Namespace's denial, the generated ClusterRoles
    expect(new Set(one.events.map((e) => e.oldObject))).toEqual(new Set(['none', 'log', 'snapshot', 'unknown']));
    expect(one.events.filter((e) => e.request.resource.startsWith('clusterroles') && e.request.operation === 'UPDATE').map((e) => e.oldObject)).toEqual([
      'log',
      'log',
      'log',
      'log',
      'snapshot',
    ]);
    expect(one.summary.newlyDeniedBy.map((b) => b.by).sort()).toEqual(['ValidatingAdmissionPolicy keep-owner', 'ValidatingAdmissionPolicy no-delete-grants']);
    const relabelled = one.events.filter((e) => e.request.name === 'settings' && e.request.operation === 'UPDATE');
    expect(relabelled.map((e) => [e.request.namespace, e.change])).toEqual(['team-0', 'team-2', 'team-4', 'team-6'].map((t) => [t, 'newly-denied']));
    expect(one.summary.skipped).toEqual({ 'not-json': 1, truncated: 1 });
    const retainState = await laterReads(log);
    // the log whole (one batch of lines) and line by line (a batch each: many in flight)
    const byLine = { ...input, audit: chunksByLine(log) };
    for (const n of [2, 3, 5]) {
      expect(await run(input, { shards: shards(n) })).toEqual(one);
      expect(await run(byLine, { shards: shards(n), retainState })).toEqual(one);
      expect(await run(byLine, { shards: [...shards(n - 1), localShard()], retainState })).toEqual(one);
    }
  });

  it('a log of one namespace is spread over the shards by object', async () => {
    const lines = Array.from({ length: 60 }, (_, i) =>
      event(
        'create',
        { resource: 'configmaps', namespace: 'only', name: `c${i}` },
        { requestObject: cm(`c${i}`, 'only', {}), responseObject: cm(`c${i}`, 'only', {}) },
      ),
    );
    const received = [0, 0, 0];
    const counting =
      (i: number): OpenShard =>
      (setup, events) => {
        const link = inThread()(setup, events);
        return { send: (b) => ((received[i]! += b.lines.length), link.send(b)), close: link.close };
      };
    const input: ImpactInput = { workspace: candidate, cluster: [ns('only')], audit: lines.join('\n'), options: { existing: false } };
    expect(await run(input, { shards: [0, 1, 2].map(counting) })).toEqual(await run(input));
    expect(received.every((n) => n >= 10)).toBe(true);
  });

  it('a shard that stops ends the replay with the report so far, said in its notes', async () => {
    const { cluster, log } = crossingLog();
    const lines = chunksByLine(log);
    const r = await run({ workspace: candidate, cluster, audit: lines, options: { existing: false } }, { shards: shards(2, [Infinity, 10]) });
    expect(r.summary.cancelled).toBe(true);
    expect(r.events.length).toBeGreaterThan(10);
    expect(r.events.length).toBeLessThan(lines.length - 3);
    expect(r.summary.notes.at(-1)).toMatch(/^the replay stopped at line \d+: a replay shard stopped: its thread exited \(1\)$/);
    expect(r.summary.headline).toMatch(/\(cancelled: partial report\)$/);
  });

  it('Cancel stops reading: the report so far', async () => {
    const { cluster, log } = crossingLog();
    const controller = new AbortController();
    controller.abort();
    const r = await run({ workspace: candidate, cluster, audit: log, options: { existing: false } }, { shards: shards(2), signal: controller.signal });
    expect(r.summary.cancelled).toBe(true);
    expect(r.events).toEqual([]);
    expect(r.summary.headline).toBe('Cancelled before any write or existing object was judged');
  });
});
