/**
 * The report's table built in batches as the events come (the Impact view's replay worker) is the
 * table of all events at once; the chart's writes of a report that kept only the changed events
 * come from the writes per second.
 */
import { describe, expect, it } from 'vitest';
import type { EventImpact, ImpactReport } from './analyze';
import type { Change, Decision } from './decide';
import { addToGroups, byDecider, denialTimeline, firstOfEachDecider, groupEvents, pickRows, sortedRows, spreadOf, type EventGroups } from './group';

const allowed: Decision = { allowed: true, deniedBy: null, warnings: [], audited: [], calls: [], mutated: false };
const event = (i: number, change: Change): EventImpact => ({
  auditID: `e${i}`,
  line: i + 1,
  time: 1_000_000 + i * 1000,
  request: { operation: 'CREATE', resource: 'pods', namespace: 'a', name: `p${i}`, username: 'alice' },
  oldObject: 'none',
  live: { code: 201 },
  baseline: allowed,
  candidate: change === 'newly-denied' ? { ...allowed, allowed: false, deniedBy: { kind: 'ValidatingAdmissionPolicy', name: 'p', message: 'no' } } : allowed,
  change,
});

describe('denialTimeline', () => {
  it('counts the same writes from every event as from the writes per second beside the changed events', () => {
    const events = Array.from({ length: 120 }, (_, i) => event(i, i % 10 === 0 ? 'newly-denied' : 'unchanged'));
    const report = (evs: EventImpact[]) => ({ events: evs, summary: { from: events[0]!.time, to: events.at(-1)!.time } }) as unknown as ImpactReport;
    const all = denialTimeline(report(events), 12);
    expect(all.map((b) => [b.writes, b.newlyDenied])).toEqual(Array.from({ length: 12 }, () => [10, 1]));
    const perSecond = events.map((e) => [Math.floor(e.time / 1000) * 1000, 1] as const);
    expect(denialTimeline(report(events.filter((e) => e.change !== 'unchanged')), 12, perSecond)).toEqual(all);
    // without the writes per second, a report of the changed events alone counts only those
    expect(denialTimeline(report(events.filter((e) => e.change !== 'unchanged')), 12).map((b) => b.writes)).toEqual(Array.from({ length: 12 }, () => 1));
  });
});

describe('addToGroups', () => {
  it('builds in batches, in log order, the rows groupEvents makes of all the events at once', () => {
    const changes: Change[] = ['newly-denied', 'newly-warned', 'unchanged'];
    const events = Array.from({ length: 200 }, (_, i) => {
      const e = event(i, changes[i % 3]!);
      return { ...e, request: { ...e.request, namespace: `ns-${i % 7}`, username: `user-${i % 5}` } };
    });
    const groups: EventGroups = new Map();
    for (let i = 0; i < events.length; i += 17) addToGroups(groups, events.slice(i, i + 17));
    expect(sortedRows(groups)).toEqual(groupEvents(events));
    expect(groupEvents(events).length).toBeGreaterThan(10);
  });
});

describe('byDecider', () => {
  it('sums the rows of each change and who decided over namespaces, users and resources, with the first example of the log', () => {
    const changes: Change[] = ['newly-denied', 'newly-warned', 'unchanged'];
    const events = Array.from({ length: 60 }, (_, i) => {
      const e = event(i, changes[i % 3]!);
      return { ...e, request: { ...e.request, namespace: i < 30 ? `ns-${i % 4}` : '', username: `user-${i % 2}`, resource: i % 5 ? 'pods' : 'configmaps' } };
    });
    const rows = groupEvents(events);
    const sums = byDecider(rows);
    expect(sums.map((d) => [d.change, d.by, d.count])).toEqual([
      ['newly-denied', 'ValidatingAdmissionPolicy p', 20],
      ['newly-warned', '', 20],
    ]);
    // every row counted once, whatever its order in the table
    expect(byDecider([...rows].reverse())).toEqual(sums);
    const denied = sums[0]!;
    expect(denied).toMatchObject({ namespaces: ['', 'ns-0', 'ns-1', 'ns-2', 'ns-3'], users: ['user-0', 'user-1'], resources: ['configmaps', 'pods'] });
    expect(denied.example).toEqual({ auditID: 'e0', line: 1, message: 'no' });
    expect(spreadOf(denied)).toBe('2 resources by 2 users in 5 namespaces');
  });

  it('names the one namespace, user or resource there is (cluster scope for none)', () => {
    expect(spreadOf({ namespaces: [''], users: ['alice'], resources: ['pods'] })).toBe('pods by alice in cluster scope');
    expect(spreadOf({ namespaces: ['apps'], users: ['a', 'b'], resources: ['pods'] })).toBe('pods by 2 users in apps');
    expect(spreadOf({ namespaces: Array.from({ length: 1500 }, (_, i) => `n${i}`), users: ['a'], resources: ['pods'] })).toBe('pods by a in 1,500 namespaces');
  });
});

describe('the table filters', () => {
  it("narrow what a decider row counts: its writes in what they pick, not all of the policy's", () => {
    const events = Array.from({ length: 30 }, (_, i) => {
      const e = event(i, 'newly-denied');
      return { ...e, request: { ...e.request, namespace: i % 3 === 0 ? 'apps-595' : `ns-${i % 5}` } };
    });
    const rows = groupEvents(events);
    expect(byDecider(rows).map((d) => d.count)).toEqual([30]);
    const picked = byDecider(pickRows(rows, 'newly-denied', 'APPS-595'));
    expect(picked.map((d) => [d.count, spreadOf(d)])).toEqual([[10, 'pods by alice in apps-595']]);
    expect(picked[0]!.example?.line).toBe(1);
    expect(pickRows(rows, 'newly-warned', '')).toEqual([]);
  });

  it('keeps the first change of each policy or webhook, in log order', () => {
    const keep = firstOfEachDecider();
    const kept = [event(0, 'unchanged'), event(1, 'newly-denied'), event(2, 'newly-denied'), event(3, 'newly-warned')].filter(keep);
    expect(kept.map((e) => e.auditID)).toEqual(['e1', 'e3']);
  });
});
