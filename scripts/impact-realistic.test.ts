/**
 * The realistic impact benchmark's inputs (scripts/impact-realistic.mjs): a log with the verbs of
 * the genuine one, copies that do not collide, the cluster-wide changes once and mid-log, a
 * candidate with what the benchmark claims, and — by a real replay (analyzeImpact, --candidate
 * replace) of a small log — at least the 40 % of changed outcomes the benchmark requires.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookResponse } from '../src/admission';
import { analyzeImpact } from '../src/impact';
import {
  changedShare,
  changesTable,
  FIXTURE_EVENTS,
  realisticCandidate,
  realisticLines,
  snapshotAfter,
  snapshotBefore,
  webhookAnswers,
} from './impact-realistic.mjs';

type Event = { verb: string; auditID: string; objectRef: { resource: string; namespace?: string; name?: string }; requestURI: string };

const EVENTS = 600;
const lines = [...realisticLines(EVENTS)];
const events = lines.map((l) => JSON.parse(l) as Event);

describe('the realistic impact log', () => {
  it('has the verbs of the genuine log in its proportions, and copies that do not collide', () => {
    expect(lines).toHaveLength(EVENTS);
    const share = (verb: string) => events.filter((e) => e.verb === verb).length / EVENTS;
    const genuine = (verb: string) => FIXTURE_EVENTS.filter((e) => e.verb === verb).length / FIXTURE_EVENTS.length;
    for (const verb of ['create', 'update', 'patch', 'delete', 'get', 'list']) {
      expect(share(verb), verb).toBeGreaterThan(0);
      expect(Math.abs(share(verb) - genuine(verb)), verb).toBeLessThan(0.05);
    }
    expect(new Set(events.map((e) => e.auditID)).size).toBe(EVENTS);
    // each copy writes its own Namespaces, named in the URI as in the objectRef
    const namespaces = new Set(events.map((e) => e.objectRef.namespace).filter((n) => n?.startsWith('apps-')));
    expect(namespaces.size).toBeGreaterThan(10);
    for (const e of events) if (e.objectRef.namespace) expect(e.requestURI).toContain(`/namespaces/${e.objectRef.namespace}`);
    // the creates of one copy's objects are not another's
    const created = events.filter((e) => e.verb === 'create').map((e) => `${e.objectRef.resource} ${e.objectRef.namespace} ${e.objectRef.name}`);
    const repeated = created.filter((c, i) => created.indexOf(c) !== i);
    expect(new Set(repeated)).toEqual(new Set(['deployments apps-0 batch', ...[...namespaces].map((n) => `deployments ${n} batch`)])); // denied once, then created (as in the genuine log)
  });

  it('changes the candidate’s param and a baseline policy once, in the middle of the log', () => {
    const at = (pred: (e: Event) => boolean) => events.flatMap((e, i) => (pred(e) ? [i] : []));
    const param = at((e) => e.objectRef.namespace === 'policy-params');
    const policy = at((e) => e.objectRef.resource === 'validatingadmissionpolicies');
    expect(param).toHaveLength(1);
    expect(policy).toHaveLength(2); // created, then patched
    for (const i of [...param, ...policy]) expect(Math.abs(i / EVENTS - 0.5)).toBeLessThan(0.1);
  });

  it('has a candidate with params, a mutating policy with its binding, mutating and validating webhooks, each answered', () => {
    const docs = realisticCandidate() as { kind: string; spec?: { paramKind?: unknown }; webhooks?: { name: string }[] }[];
    expect(docs.some((d) => d.kind === 'ValidatingAdmissionPolicy' && d.spec?.paramKind)).toBe(true);
    for (const kind of ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])
      expect(
        docs.some((d) => d.kind === kind),
        kind,
      ).toBe(true);
    const answers = webhookAnswers();
    for (const hook of docs.flatMap((d) => d.webhooks ?? []).filter((w) => w.name !== 'strict.shop.example.com'))
      expect(answers[hook.name], hook.name).toBeDefined();
    expect(snapshotAfter(1000).items).toHaveLength(1000);
  });

  it('changes the outcome of at least 40 % of its writes (a real replay, --candidate replace)', async () => {
    const r = await analyzeImpact({
      workspace: realisticCandidate(),
      cluster: snapshotBefore(EVENTS).items,
      audit: `${lines.join('\n')}\n`,
      options: { candidate: 'replace', webhooks: webhookAnswers() as Record<string, WebhookResponse>, existing: false },
    });
    expect(r.summary.inputErrors).toEqual([]);
    expect(r.summary.events).toBeGreaterThan(EVENTS * 0.9);
    const s = changedShare(r.summary.changes);
    expect(s.decided).toBe(r.summary.events);
    expect(s.share).toBeGreaterThanOrEqual(0.4);
    expect(r.summary.changes.undetermined).toBe(0);
    // the CLI's text table, read back the way the benchmark reads it
    expect(changesTable('newly-denied   3 not judged\nunchanged   5   7\n')).toEqual({
      writes: { 'newly-denied': 3, unchanged: 5 },
      existing: { unchanged: 7 },
    });
  });
});
