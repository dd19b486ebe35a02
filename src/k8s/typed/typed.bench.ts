/**
 * apiserverObject's cost per object (the impact replay decodes every event's object once per
 * chain context): a Pod of a typical controller (two containers, probes, volumes), a ConfigMap,
 * and an object already decoded (the simulator's objects passed again).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bench, describe } from 'vitest';
import { apiserverObject, loadTypedData } from './index';

await loadTypedData('1.37');
const corpus = JSON.parse(readFileSync(join(import.meta.dirname, '../../../tools/typecheck-oracle/testdata/objects.json'), 'utf8')) as Record<
  string,
  unknown
>[];
const pods = corpus.filter((o) => o.kind === 'Pod');
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a', labels: { app: 'web' } }, data: { a: 'b', c: 'd' } };
const decoded = apiserverObject(pods[0], '1.37').object;

/** What the simulator did before (nulls dropped, nothing else): the cost to compare with. */
function dropNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(dropNulls);
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && x !== undefined) out[k] = dropNulls(x);
  }
  return out;
}

describe('apiserverObject', () => {
  bench(`${pods.length} Pods, nulls dropped (the approximation it replaces)`, () => {
    for (const p of pods) dropNulls(p);
  });
  bench(`${pods.length} Pods of the policy suites`, () => {
    for (const p of pods) apiserverObject(p, '1.37');
  });
  bench('a ConfigMap', () => {
    apiserverObject(configMap, '1.37');
  });
  bench('an object already decoded', () => {
    apiserverObject(decoded, '1.37');
  });
});
