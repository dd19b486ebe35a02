#!/usr/bin/env node
// Builds every Go oracle binary the differential tests under tools/ use (ORACLE_BUILDS in
// go-oracle.mjs) into their cache, two at a time, so `npm test` links them beside its other
// builds instead of inside the tests. A binary already built (same sources, flags and `go
// version`) is not built again; one another process is building is waited for. The tests
// build whatever is missing themselves, so this is only ever a head start.
import { buildOracleAsync, ORACLE_BUILDS } from './go-oracle.mjs';

const jobs = Number(process.env.ORACLE_BUILD_JOBS ?? 2);
const queue = Object.values(ORACLE_BUILDS);
const t0 = Date.now();
let failed = false;
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let b = queue.shift(); b; b = queue.shift()) {
      try {
        const r = await buildOracleAsync(b);
        console.log(`build-oracles: ${b.name} ${r.built ? `built in ${r.seconds.toFixed(1)} s` : 'up to date'}`);
      } catch (e) {
        failed = true;
        console.error(`build-oracles: ${e.message}`);
      }
    }
  }),
);
console.log(`build-oracles: ${Object.keys(ORACLE_BUILDS).length} oracles in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
