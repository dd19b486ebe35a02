/**
 * The native engines answer each batch item with its own expression when batches go through the
 * pool's home (evaluateBatch) and through the least busy engine (evaluateBatchOnce, the impact
 * replay's), which is often the home too: a process's batch items are numbered by one wire
 * session. Two sessions for the home once let one of them make the process forget its items (past
 * ITEMS_PER_SESSION) and number new ones from 1, which the other then named by their old ids: the
 * impact replay's existing objects changed verdicts with several decisions in flight.
 */
import { expect, it } from 'vitest';
import { celStatus, evaluateBatch, evaluateBatchOnce, loadCel } from './index';
import { ITEMS_PER_SESSION } from './ops';
import type { CelBatchItem } from './types';

// the default (auto): the native engine, built by npm run test:unit
delete process.env.CEL_ENGINE;

/** The same item objects in every batch (as a policy's items are): sent once per session, then named by id. */
const shared: CelBatchItem[] = Array.from({ length: 4 }, (_, j) => ({ expression: `object.k * 100 + ${j}`, context: 'vap-variable' }));
/** New items: sent with their expression, numbered by the session that sends them. */
const fresh = (k: number, n: number): CelBatchItem[] =>
  Array.from({ length: n }, (_, j) => ({ expression: `${k * n + j} + object.k * 0`, context: 'vap-variable' }));
const values = (r: Awaited<ReturnType<typeof evaluateBatch>>) => r.map((x) => (x.ok ? x.value : x.message));

it('items named by id stay theirs after another caller of the same process has sent more than a session holds', async () => {
  await loadCel();
  expect(celStatus().engine).toBe('native');
  expect(values(await evaluateBatch(shared, { object: { k: 1 } }))).toEqual([100, 101, 102, 103]);
  const per = 512;
  for (let k = 0; k * per <= ITEMS_PER_SESSION; k++)
    expect(values(await evaluateBatchOnce(fresh(k, per), { object: { k } }))).toEqual(Array.from({ length: per }, (_, j) => k * per + j));
  expect(values(await evaluateBatch(shared, { object: { k: 2 } }))).toEqual([200, 201, 202, 203]);
  expect(values(await evaluateBatchOnce(shared, { object: { k: 3 } }))).toEqual([300, 301, 302, 303]);
});
