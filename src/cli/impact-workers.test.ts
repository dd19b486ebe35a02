/** The CLI's pool members are worker threads: one that exits hands its requests to the others (src/impact/pool.ts). */
import { describe, expect, it } from 'vitest';
import { decisionPool, type DecisionPair } from '../impact';
import type { AdmissionRequest } from '../request/model';
import { threadMember } from './impact-workers';

const request: AdmissionRequest = {
  operation: 'CREATE',
  resource: { group: '', version: 'v1', resource: 'pods' },
  kind: { group: '', version: 'v1', kind: 'Pod' },
  name: 'p',
  namespace: 'apps',
  object: {},
};
const allowed = { allowed: true, deniedBy: null, warnings: [], audited: [], calls: [], mutated: false };

describe('threadMember', () => {
  it('a thread that exits on its first request fails its member; the pool sends what it held to the next', async () => {
    // the echo thread answers with the request's name in the warnings: proof the answer crossed the thread
    const echo = threadMember(
      "const { parentPort } = require('node:worker_threads'); const d = (w) => ({ allowed: true, deniedBy: null, warnings: [w], audited: [], calls: [], mutated: false }); parentPort.on('message', (a) => parentPort.postMessage({ id: a.id, pair: { baseline: d(a.request.name), candidate: d(a.request.name) } }));",
      {},
      { eval: true },
    );
    const dying = threadMember("require('node:worker_threads').parentPort.on('message', () => process.exit(3));", {}, { eval: true });
    let local = 0;
    const pool = decisionPool([dying, echo], () => async () => (local++, { baseline: allowed, candidate: allowed }));
    const pairs: DecisionPair[] = await Promise.all(Array.from({ length: 8 }, (_, i) => pool.decide({ ...request, name: `p${i}` }, undefined)));
    expect(pairs.map((p) => p.candidate.warnings[0])).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`));
    expect(pool.live()).toBe(1);
    expect(local).toBe(0);
    pool.close();
  });
});
