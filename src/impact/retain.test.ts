/**
 * The replay forgets an object after the last event that reads it (src/impact/retain.ts): the
 * scan's reading of each line, its answers on a small log, and the same report with it as
 * without it on the log a real kube-apiserver wrote (tools/admission-oracle/testdata/audit);
 * and a report that keeps no event (the Impact view streams them all to the page).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { WebhookResponse } from '../admission';
import { analyzeImpact, readAuditLine, readLines, type AuditWrite } from './index';
import { str } from '../base/json';
import { hash53, laterReads, retains, verbAndRef, type LaterReads } from './retain';
import { withoutStoredObject } from './events';

const pod = (name: string, image = 'nginx') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'a' },
  spec: { containers: [{ name: 'c', image }] },
});

/** An event as the apiserver writes it: verb and objectRef before the objects. */
const event = (verb: string, name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `${verb}-${name}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/a/pods/${name}`,
    verb,
    user: { username: 'alice', groups: ['system:authenticated'] },
    objectRef: { resource: 'pods', namespace: 'a', name, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: verb === 'create' ? 201 : 200 },
    ...(verb === 'delete' ? {} : { requestObject: pod(name), responseObject: pod(name) }),
    ...extra,
  });

const writeOf = (text: string, line: number): AuditWrite => {
  const r = readAuditLine(text, line, true);
  if (r?.kind !== 'write') throw new Error(`line ${line} is no write`);
  return r.event;
};

describe('verbAndRef', () => {
  it('reads the verb and objectRef before the objects, and a line in another order or with the same keys inside as the parsed line says', () => {
    expect(verbAndRef(event('patch', 'web'))).toEqual({ verb: 'patch', ref: { resource: 'pods', namespace: 'a', name: 'web', apiVersion: 'v1' } });
    // a SubjectAccessReview's own `verb` inside requestObject, after the event's
    const sar = JSON.stringify({
      kind: 'Event',
      verb: 'create',
      objectRef: { resource: 'subjectaccessreviews', apiGroup: 'authorization.k8s.io' },
      requestObject: { spec: { resourceAttributes: { verb: 'delete' } } },
    });
    expect(verbAndRef(sar)?.verb).toBe('create');
    // the objects first: parsed whole
    const reversed = JSON.stringify({
      requestObject: { verb: 'delete', objectRef: { name: 'inner' } },
      verb: 'update',
      objectRef: { resource: 'pods', name: 'outer' },
    });
    expect(verbAndRef(reversed)).toEqual({ verb: 'update', ref: { resource: 'pods', name: 'outer' } });
    // a responseObject before the requestObject ends the head too: its keys are not the event's
    expect(verbAndRef(JSON.stringify({ kind: 'Event', responseObject: { verb: 'delete', objectRef: { name: 'inner' } }, requestObject: {} }))).toBeUndefined();
    expect(verbAndRef('{"kind":"Event","verb":"upd')).toBeUndefined();
    expect(verbAndRef('{"kind":"Event","verb":"get"}')).toBeUndefined();
  });
});

describe('laterReads', () => {
  it('keeps an object only while a later update, patch or delete reads it', async () => {
    const log = [
      event('create', 'a1'),
      event('patch', 'a1'),
      event('create', 'b1'),
      event('get', 'b1'),
      event('delete', 'a1'),
      event('create', 'c1'),
      event('update', 'c1', { responseStatus: { code: 409 } }),
    ];
    const reads = await laterReads(log.join('\n') + '\n');
    const retain = (ev: AuditWrite) => retains(reads, ev);
    // a1: patched on line 2, deleted on line 5; b1: only read (a get is not replayed); c1: updated on line 7 (failed: still read)
    expect(log.map((l, i) => (l.includes('"verb":"get"') ? null : retain(writeOf(l, i + 1))))).toEqual([true, true, false, null, false, true, false]);
    // an object created without a name (generateName) is always kept
    const unnamed = writeOf(event('create', 'x'), 1);
    expect(retain({ ...unnamed, objectRef: { ...unnamed.objectRef, name: '' } })).toBe(true);
  });
});

describe('laterReads on bytes', () => {
  /** What the scan answers by definition: every line decoded and read by verbAndRef. */
  async function reference(text: string): Promise<Map<number, number>> {
    const last = new Map<number, number>();
    for await (const l of readLines(text)) {
      const read = verbAndRef(l.text);
      if (read && ['update', 'patch', 'delete'].includes(read.verb))
        last.set(hash53(`${str(read.ref.apiGroup)}/${str(read.ref.resource)}/${str(read.ref.namespace)}/${str(read.ref.name)}`), l.line);
    }
    return last;
  }
  const chunked = (b: Uint8Array, size: number): Uint8Array[] =>
    Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size));

  it('finds what decoding every line finds, however the bytes are cut, gzip or not', async () => {
    const lines = [
      event('create', 'a1'),
      event('update', 'a1'),
      // a nested object (and its own verb) before the event's verb: read whole
      JSON.stringify({ requestObject: { verb: 'create' }, kind: 'Event', verb: 'patch', objectRef: { resource: 'pods', namespace: 'a', name: 'nested' } }),
      // the event's verb is create, a SubjectAccessReview's delete inside: no read
      JSON.stringify({
        kind: 'Event',
        verb: 'create',
        user: { username: 'u' },
        objectRef: { resource: 'subjectaccessreviews' },
        requestObject: { spec: { resourceAttributes: { verb: 'delete' } } },
      }),
      // spaces after the colons (another writer): read whole
      '{"kind": "Event", "verb": "delete", "objectRef": {"resource": "pods", "namespace": "a", "name": "spaced"}}',
      // an escaped quote in the verb, non-ASCII text, a carriage return, blank and broken lines
      '{"kind":"Event","verb":"up\\"date","objectRef":{"resource":"pods","namespace":"a","name":"odd"}}',
      event('delete', 'grüße', { annotations: { note: 'Ünïcödé ✓' } }) + '\r',
      '',
      'not json',
      event('patch', 'a1'),
      event('delete', 'b2').slice(0, 90),
    ];
    const text = lines.join('\n');
    const want = await reference(text);
    expect([...want.values()].sort((a, b) => a - b)).toEqual([3, 5, 7, 10]); // a1's last read is line 10
    const bytes = new TextEncoder().encode(text);
    expect(await laterReads(text)).toEqual(want);
    for (const size of [1, 2, 3, 7, 64, 333, bytes.length]) {
      expect(await laterReads(chunked(bytes, size))).toEqual(want);
      expect(await laterReads(chunked(gzipSync(bytes), size))).toEqual(want);
    }
  });
});

describe('withoutStoredObject', () => {
  const reads: LaterReads = new Map();
  const timed = (verb: string, name: string, extra: Record<string, unknown> = {}) =>
    event(verb, name, { requestReceivedTimestamp: '2026-11-20T10:00:00.000000Z', stageTimestamp: '2026-11-20T10:00:00.100000Z', ...extra });

  it("leaves a create's stored object unread when no later line reads it, and nothing else", async () => {
    const create = timed('create', 'p1');
    const cut = withoutStoredObject(create, 1, reads)!;
    expect(JSON.parse(cut)).toEqual({ ...JSON.parse(create), responseObject: null });
    // read later, an update, a Namespace, no requestObject before it: read whole
    expect(withoutStoredObject(create, 1, await laterReads([create, timed('delete', 'p1')].join('\n')))).toBeUndefined();
    expect(withoutStoredObject(timed('update', 'p1'), 1, reads)).toBeUndefined();
    const namespace = JSON.stringify({
      kind: 'Event',
      verb: 'create',
      objectRef: { resource: 'namespaces', name: 'n', apiVersion: 'v1' },
      requestObject: {},
      responseObject: {},
      requestReceivedTimestamp: 't',
    });
    expect(withoutStoredObject(namespace, 1, reads)).toBeUndefined();
    const responseFirst = JSON.stringify({
      kind: 'Event',
      verb: 'create',
      objectRef: { resource: 'pods', name: 'x' },
      responseObject: {},
      requestObject: {},
      requestReceivedTimestamp: 't',
    });
    expect(withoutStoredObject(responseFirst, 1, reads)).toBeUndefined();
  });

  it('a cut in the wrong place (the timestamp key only inside the stored object) is refused by JSON.parse, and the line is replayed whole', async () => {
    const { requestReceivedTimestamp: _, ...inner } = JSON.parse(
      timed('create', 'p2', { responseObject: { ...pod('p2'), data: { a: '1', requestReceivedTimestamp: 'x' } } }),
    ) as Record<string, unknown>;
    const odd = JSON.stringify(inner);
    const cut = withoutStoredObject(odd, 1, reads);
    expect(typeof cut).toBe('string');
    expect(() => JSON.parse(cut!)).toThrow();
    const log = [odd, timed('create', 'p3')].join('\n');
    const run = (retainState?: LaterReads) =>
      analyzeImpact({ workspace: [], audit: log, options: { existing: false, ...(retainState ? { retainState } : {}) } });
    expect(await run(await laterReads(log))).toEqual(await run());
  });
});

describe('analyzeImpact with retainState', () => {
  useEngine();
  const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
  const log = readFileSync(join(dir, 'audit.log'), 'utf8');
  const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
  const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };

  it("reports the real apiserver's log as without it, forgetting the objects no later event reads", async () => {
    const retainState = await laterReads(log);
    // lines whose object no later line reads: the replay forgets those objects
    const forgotten = log.split('\n').filter((l, i) => {
      const read = readAuditLine(l, i + 1, true);
      return read?.kind === 'write' && !retains(retainState, read.event);
    }).length;
    const run = (extra: object) =>
      analyzeImpact({
        workspace: candidate.objects,
        cluster: snapshot,
        audit: log,
        options: { kubernetesVersion: '1.37', webhooks: candidate.webhooks, existing: false, ...extra },
      });
    const [kept, lean] = [await run({}), await run({ retainState })];
    expect(forgotten).toBeGreaterThan(0);
    expect(lean.events.some((e) => e.oldObject === 'log')).toBe(true);
    expect(lean).toEqual(kept);
  });

  it('reads a log given as a function twice, the first time for the objects later events read; once with retainState given', async () => {
    let reads = 0;
    const source = () => {
      reads++;
      return [Buffer.from(log)];
    };
    const run = (audit: typeof source | string, extra: object = {}) =>
      analyzeImpact({
        workspace: candidate.objects,
        cluster: snapshot,
        audit,
        options: { kubernetesVersion: '1.37', webhooks: candidate.webhooks, existing: false, ...extra },
      });
    const plain = await run(log);
    expect(await run(source)).toEqual(plain);
    expect(reads).toBe(2);
    expect(await run(source, { retainState: await laterReads(log) })).toEqual(plain);
    expect(reads).toBe(3);
  });

  it('keeps no event with keepUnchanged and keepChanged false: onEvent streams them all', async () => {
    const run = (extra: object) =>
      analyzeImpact({
        workspace: candidate.objects,
        cluster: snapshot,
        audit: log,
        options: { kubernetesVersion: '1.37', webhooks: candidate.webhooks, existing: false, ...extra },
      });
    const all = await run({});
    const streamed: unknown[] = [];
    const none = await run({ keepUnchanged: false, keepChanged: false, onEvent: (e: unknown) => streamed.push(e) });
    expect(all.events.some((e) => e.change !== 'unchanged')).toBe(true);
    expect(none.events).toEqual([]);
    expect(streamed).toEqual(all.events);
    expect(none.summary).toEqual(all.summary);
  });
});
