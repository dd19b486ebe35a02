/**
 * analyzeImpact on a log a real kube-apiserver 1.36 wrote (tools/admission-oracle/testdata/audit:
 * its traffic, its audit policy, its snapshot). With the candidate equal to the cluster's own chain
 * and the test webhook's real answer (it denies), the replayed baseline must decide every event as
 * the apiserver did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { analyzeImpact } from './index';

useEngine();

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
const log = readFileSync(join(dir, 'audit.log'), 'utf8');
const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;

describe('a real apiserver audit log', () => {
  it('the baseline decides every write as the apiserver did; the candidate (the same chain) changes nothing', async () => {
    const r = await analyzeImpact({
      workspace: [],
      cluster: snapshot,
      audit: log,
      options: { kubernetesVersion: '1.36', webhooks: { 'frozen.shop.example.com': 'deny' }, existing: false },
    });
    const wrong = r.events.filter((e) => e.baseline.allowed !== e.live.code < 400).map((e) => `line ${e.line} ${e.request.operation} ${e.request.resource} ${e.request.namespace}/${e.request.name}: live ${e.live.code} ${e.live.message ?? ''}, baseline ${e.baseline.allowed ? 'allowed' : `denied by ${e.baseline.deniedBy?.name}`}`);
    expect(wrong).toEqual([]);
    expect(r.summary.baselineDisagrees).toBe(0);
    expect(r.summary.events).toBeGreaterThanOrEqual(20);
    expect(r.events.filter((e) => e.request.dryRun)).toHaveLength(2);
    expect(r.events.filter((e) => !e.baseline.allowed)).toHaveLength(5);
    expect(r.summary.changes.unchanged).toBe(r.summary.events);
    expect(r.summary.skipped.read).toBeGreaterThan(0);
  });

  it('without the cluster chain (the workspace alone, empty) the five denials are no longer denied', async () => {
    const r = await analyzeImpact({ workspace: [], cluster: snapshot, audit: log, options: { kubernetesVersion: '1.36', webhooks: { 'frozen.shop.example.com': 'deny' }, candidate: 'replace', existing: false } });
    expect(r.summary.changes['no-longer-denied']).toBe(5);
  });
});
