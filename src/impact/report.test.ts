/**
 * The report as people read it: the headline's counts add up, the chart's axis says when and how
 * wide a bar is, existing objects not judged say so, each change says why, the JSON is the same
 * from the CLI and the Impact view, the assumed answers are read and said, and the snapshot
 * command has one text (README.md's).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { readWebhookAnswers } from '../request';
import {
  analyzeImpact,
  assumedLines,
  denialTimeline,
  headlineOf,
  reasonOf,
  reportJson,
  reportMarkdown,
  SNAPSHOT_COMMAND,
  timelineAxis,
  type Decision,
  type ImpactReport,
  type ImpactSummary,
} from './index';
import { appsPod, podCreate, requireTeam } from './test-helpers';

useEngine();

const pod = appsPod;
const policy = requireTeam();
const event = (i: number, labels: Record<string, string>) =>
  podCreate(i, labels, { user: 'ci-bot', time: `2026-11-26T17:13:${String(5 + i).padStart(2, '0')}Z` });
const log = Array.from({ length: 6 }, (_, i) => event(i, i % 2 ? {} : { team: 'a' })).join('\n');
const snapshot = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } }, pod('running', {})];

const allowed: Decision = { allowed: true, deniedBy: null, warnings: [], audited: [], calls: [], mutated: false };
const denied = (name: string, message: string): Decision => ({
  ...allowed,
  allowed: false,
  deniedBy: { kind: 'ValidatingAdmissionPolicy', name, binding: name, message },
});

describe('the report', () => {
  it('the headline names the three largest deniers and the rest, adding up to the denials', () => {
    const summary = {
      events: 51,
      changes: { 'newly-denied': 51, undetermined: 0 },
      existing: { total: 0, judged: false, changes: {} },
      newlyDeniedBy: [
        { by: 'ValidatingAdmissionPolicy a', count: 30 },
        { by: 'ValidatingAdmissionPolicy b', count: 15 },
        { by: 'ValidatingAdmissionPolicy c', count: 5 },
        { by: 'ValidatingAdmissionPolicy d', count: 1 },
      ],
      inputErrors: [],
      warnings: [],
      cancelled: false,
    } as unknown as Omit<ImpactSummary, 'headline'>;
    expect(headlineOf(summary)).toBe(
      'The candidate would have denied 51 of 51 writes: 30 by ValidatingAdmissionPolicy a, 15 by ValidatingAdmissionPolicy b, 5 by ValidatingAdmissionPolicy c, 1 by 1 other',
    );
    expect(headlineOf({ ...summary, newlyDeniedBy: summary.newlyDeniedBy.slice(0, 2) })).toMatch(/15 by ValidatingAdmissionPolicy b, 6 more$/);
  });

  it('a log none of whose lines is replayed says so, not that nothing was given', async () => {
    const reads = [1, 2].map((i) =>
      JSON.stringify({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: `r${i}`,
        stage: 'ResponseComplete',
        verb: 'get',
        objectRef: { resource: 'pods', namespace: 'apps', name: 'p', apiVersion: 'v1' },
        responseStatus: { code: 200 },
      }),
    );
    const r = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: reads.join('\n'), options: { existing: false } });
    expect(r.summary.headline).toBe("No write replayed: the log's 2 lines are counted under Not replayed, with why");
    // beside the existing objects, it is said too
    const withExisting = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: reads.join('\n') });
    expect(withExisting.summary.headline).toMatch(
      /^No write replayed: the log's 2 lines are counted under Not replayed, with why; .* existing objects would be rejected if created now$/,
    );
    const none = await analyzeImpact({ workspace: policy, options: {} });
    expect(none.summary.headline).toBe('nothing to replay: give an audit log or a cluster snapshot');
  });

  it('the JSON holds the same from the CLI (every event kept) and the Impact view (changed events only, requests kept for Simulate)', async () => {
    const cli = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: log, options: { kubernetesVersion: '1.37' } });
    const view = await analyzeImpact({
      workspace: policy,
      cluster: snapshot,
      audit: log,
      options: { kubernetesVersion: '1.37', keepUnchanged: false, keepRequests: 2000 },
    });
    expect(cli.events).toHaveLength(6);
    expect(Object.keys(view.requests)).toHaveLength(4); // 3 events and the existing pod
    expect(reportJson(view)).toBe(reportJson(cli));
    const json = JSON.parse(reportJson(cli));
    expect([json.eventsKept, json.events.length, json.requests]).toEqual(['changed', 3, undefined]);
    expect(JSON.parse(reportJson(cli, { allEvents: true })).events).toHaveLength(6);
  });

  it('the JSON is JSON.stringify of its keys with an indent of 2, byte for byte, whatever the events hold', async () => {
    const cli = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: log, options: { kubernetesVersion: '1.37' } });
    // a message with a line break, quotes, a tab and characters beyond ASCII: each is escaped, none breaks the indent
    const odd = { ...cli.events[0]!, auditID: 'a "quoted"\n\tid — ünïcode ✓', change: 'newly-denied' as const };
    const plain = (r: ImpactReport, all: boolean) =>
      `${JSON.stringify({ summary: r.summary, eventsKept: all ? 'all' : 'changed', events: all ? r.events : r.events.filter((e) => e.change !== 'unchanged'), existing: r.existing, skipped: r.skipped }, null, 2)}\n`;
    for (const r of [cli, { ...cli, events: [odd, ...cli.events] }, { ...cli, events: [] }, { ...cli, events: [], existing: [] }])
      for (const all of [false, true]) expect(reportJson(r, { allEvents: all })).toBe(plain(r, all));
  });

  it('existing objects not judged (cancelled before them, or not asked for) say so, not 0', async () => {
    const ac = new AbortController();
    const cancelled = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: log, options: { signal: ac.signal, onEvent: () => ac.abort() } });
    expect(cancelled.summary.existing).toMatchObject({ total: 0, judged: false });
    expect(reportMarkdown(cancelled)).toContain('| newly-denied | 0 | not judged |');
    const judged = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: log });
    expect(judged.summary.existing).toMatchObject({ total: 2, judged: true });
    expect(reportMarkdown(judged)).toContain('| newly-denied | 3 | 1 |');
  });

  it('a run cancelled before it began judges neither its inputs nor anything else', async () => {
    // the Impact view's worker reads the snapshot under the run's signal: a Cancel there leaves it cut short
    const ac = new AbortController();
    ac.abort();
    const r = await analyzeImpact({ workspace: policy, cluster: [], audit: log, options: { signal: ac.signal } });
    expect(r.summary).toMatchObject({ cancelled: true, inputErrors: [], events: 0, existing: { judged: false } });
    expect(r.summary.headline).toBe('Cancelled before any write or existing object was judged');
    // not cancelled, the same empty snapshot is an input error
    expect((await analyzeImpact({ workspace: policy, cluster: [], audit: log })).summary.inputErrors).toEqual([
      'the snapshot holds no object (an empty file or List)',
    ]);
  });

  it('a snapshot of objects without apiVersion and kind is an input error; some of them, a warning', async () => {
    const kindless = { metadata: { name: 'x', namespace: 'default' } };
    const none = await analyzeImpact({ workspace: policy, cluster: [kindless], options: {} });
    expect(none.summary.inputErrors).toEqual(['the snapshot holds no Kubernetes object: its one object has no apiVersion and kind']);
    expect(none.summary.headline).toMatch(/^Input error: the snapshot holds no Kubernetes object/);
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } };
    const some = await analyzeImpact({ workspace: policy, cluster: [ns, kindless, kindless], options: {} });
    expect(some.summary.inputErrors).toEqual([]);
    expect(some.summary.warnings).toEqual(['the snapshot: 2 of its objects have no apiVersion and kind and were not read']);
  });

  it('the chart’s bars are round times from a round start, and the axis says the date, the range and a bar’s width', async () => {
    const r = await analyzeImpact({ workspace: policy, audit: log, options: { existing: false } });
    const buckets = denialTimeline(r);
    expect(buckets[0]!.start).toBe(Date.parse('2026-11-26T17:13:05Z'));
    expect(buckets[0]!.width).toBe(1000);
    expect(timelineAxis(buckets)).toEqual({ start: '2026-11-26 17:13:05', end: '17:13:11 UTC', span: '6 s', bar: '1 s' });
    // 96 seconds over 48 bars: 2 s each; a night: 30 min bars, the end's date said again
    const over = (from: string, to: string) =>
      denialTimeline({ events: [], summary: { from: Date.parse(from), to: Date.parse(to) } } as unknown as ImpactReport);
    expect(timelineAxis(over('2026-11-26T17:13:04Z', '2026-11-26T17:14:39Z'))).toEqual({
      start: '2026-11-26 17:13:04',
      end: '17:14:40 UTC',
      span: '1 min 36 s',
      bar: '2 s',
    });
    const night = over('2026-11-26T22:10:00Z', '2026-11-27T09:50:00Z');
    expect(night.length).toBeLessThanOrEqual(49);
    expect(timelineAxis(night)).toEqual({ start: '2026-11-26 22:00', end: '2026-11-27 10:00 UTC', span: '12 h', bar: '15 min' });
  });

  it('says why each change is one', () => {
    const warned = { ...allowed, warnings: ['old', 'new one'] };
    expect(reasonOf('newly-denied', allowed, denied('p', 'no'))).toBe('ValidatingAdmissionPolicy p/p: no');
    expect(reasonOf('no-longer-denied', denied('q', 'was no'), allowed)).toBe("the cluster's chain denied it (ValidatingAdmissionPolicy q/q: was no)");
    expect(reasonOf('newly-warned', { ...allowed, warnings: ['old'] }, warned)).toBe('warns: new one');
    expect(reasonOf('newly-audited', allowed, { ...allowed, audited: ['a/b'] })).toBe('audit annotations a/b');
    expect(reasonOf('newly-mutated', allowed, { ...allowed, mutated: true })).toMatch(/changes the object/);
  });

  it('reads an answers file in the Simulate view’s vocabulary, says every problem, and the report says what it assumed', () => {
    const text = `webhooks:
  a.example.com: deny
  b.example.com: unavailable
  c.example.com: {patch: [{op: add, path: /metadata/labels/x, value: "y"}]}
  d.example.com: {warnings: [careful]}
  e.example.com: allow
`;
    const { answers, problems } = readWebhookAnswers(text);
    expect(problems).toEqual([]);
    expect(answers).toEqual({
      'a.example.com': 'deny',
      'b.example.com': 'unavailable',
      'c.example.com': { patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] },
      'd.example.com': { warnings: ['careful'] },
      'e.example.com': 'allow',
    });
    expect(assumedLines({ kubernetesVersion: '1.36', webhooks: answers, user: { username: 'ci', groups: ['deployers'] } })).toEqual([
      'Kubernetes 1.36',
      'webhook answers: a.example.com deny; b.example.com unavailable (down / timeout); c.example.com allow with a JSON Patch of 1 operation; d.example.com allow with warnings: "careful"; every other webhook allows',
      'existing objects are created by ci (groups deployers)',
    ]);
    expect(readWebhookAnswers('x: maybe\nw: {patch: {op: add}}\nz: deny\n')).toEqual({
      answers: { z: 'deny' },
      problems: [
        'x: "maybe" is not an answer: allow, deny, unavailable, {patch: [JSON Patch operations]} or {warnings: [strings]}',
        'w: a JSON Patch is a list of operations: [{"op": "add", "path": "/metadata/labels/x", "value": "y"}]',
      ],
    });
    expect(readWebhookAnswers('- a\n').problems[0]).toMatch(/^expected a mapping from webhook name to answer/);
    expect(readWebhookAnswers('a: [\n').problems[0]).toMatch(/^line \d+, column \d+: /);
  });

  it('the snapshot command is the README’s, and leaves Secrets out', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    expect(readme).toContain(SNAPSHOT_COMMAND);
    expect(SNAPSHOT_COMMAND).toContain("grep -v '^secrets$'");
  });
});
