#!/usr/bin/env node
// `npm test`: every check of the project, each step started as soon as what it needs is done, so
// the Go builds, the type check and the vitest run overlap instead of queueing (a 2-core CI runner
// is otherwise idle half the time: tsc, the schema dumps and the engine's snapshot are single
// threaded, the admission oracle waits on its apiserver). The same steps as one after the other:
//
//   lint (Biome's format and lint checks, gofmt) · build:wasm (the engine) · build:schemas · build:oracles
//     · build:native · typecheck · check:imports · test:go
//   → lint:go (go vet of the native engine) · test:unit (vitest; needs the engine, its schemas and the native engine)
//     · build (vite; needs the engine and schemas)
//   → test:e2e (Playwright on the build, beside vitest) · compress:wasm (the engines' .br/.gz in dist/) → test:package (the release artifacts from the build)
//
// A step whose prerequisites failed is not run (and says so); the others still run, and the exit
// code is non-zero when any step failed. Each step's output is prefixed with its name, and its
// start, end and seconds are printed, with a table of them at the end (the CI log's breakdown).
// build:oracles only builds ahead what the oracle tests would otherwise build themselves: its
// failure is reported by those tests, not here. TEST_STEPS=a,b runs only the named steps (and
// whatever they need).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * name → command; `needs`: steps that must have passed first; `after`: steps that must have
 * finished first (passed or not); `optional`: its failure does not fail the run. Listed in the order they start.
 */
const STEPS = {
  // formatting drift and lint findings (Biome, gofmt): seconds, so first, a quick answer
  lint: { run: 'node scripts/lint.mjs biome gofmt', needs: [] },
  // build:wasm is the engine and then the schema assets: two steps here, so that they run side by side
  'build:wasm': { run: 'npm run build:wasm', needs: [], env: { CEL_SCHEMAS: '0', CEL_WASM_COMPRESS: '0' } },
  'build:schemas': { run: 'node scripts/build-schemas.mjs', needs: [] },
  'build:oracles': { run: 'npm run build:oracles', needs: [], optional: true },
  'build:native': { run: 'npm run build:native', needs: [] },
  typecheck: { run: 'npm run typecheck', needs: [] },
  // its own vitest run (a quick first answer); the full run below counts its tests, so no JSON here
  'check:imports': { run: 'npm run check:imports', needs: [], env: { VITEST_JSON: '' } },
  'test:go': { run: 'npm run test:go', needs: [] },
  // the vitest run of test:unit (which is build:wasm && build:native && vitest run); not after
  // build:oracles: a test whose oracle is still linking waits for that link (go-oracle.mjs's lock),
  // and build:oracles links them in the order the slow-first files need them
  'test:unit': { run: 'npx vitest run', needs: ['build:wasm', 'build:schemas', 'build:native'] },
  // npm run build also builds the native engine when it is not up to date: after build:native, never beside it
  // without the engines' .br/.gz copies: brotli at its best setting takes minutes of CPU an engine,
  // and e2e (Playwright on vite preview) never serves them; compress:wasm writes them into dist/ after
  build: { run: 'npm run build', needs: ['build:wasm', 'build:schemas'], after: ['build:native'], env: { CEL_WASM_COMPRESS: '0' } },
  // the engines' .br/.gz copies in the build (the package test checks them), beside vitest and e2e; at
  // quick settings (4 s of CPU instead of ~150 s for the two engines): the test checks that they are
  // there and decompress to the engine, and this dist/ is not released (`npm run build` writes the best)
  'compress:wasm': { run: 'node scripts/build-wasm.mjs --compress', needs: ['build'], env: { CEL_WASM_OUT: 'dist/cel', CEL_WASM_COMPRESS: 'fast' } },
  // go vet of the native engine (npm run lint vets the oracles and the WebAssembly build too;
  // scripts/lint.mjs says why not here): after the Go tests, whose compiled packages it finds in Go's
  // build cache instead of compiling them again beside them (listed after vitest and the build,
  // which it must not delay)
  'lint:go': { run: 'node scripts/lint.mjs vet-engine', needs: [], after: ['test:go'] },
  // as soon as the build is there, beside vitest: measured on 2 cores, neither keeps both busy alone
  // (vitest 385 s of CPU in 590 s, e2e 280 s in 477 s when they ran one after the other)
  'test:e2e': { run: 'npm run test:e2e', needs: ['build'] },
  // npm run package on the build's dist/, then the CLI's tarball installed and run (scripts/package.test.ts);
  // beside test:unit (package.mjs builds the CLI's bundle in its stage, leaving dist-cli/ to the CLI's tests)
  'test:package': {
    run: 'npx vitest run scripts/package.test.ts',
    needs: ['build', 'compress:wasm'],
    env: { VITEST_PACKAGE: '1', VITEST_JSON: '' },
  },
};

/**
 * The Go processes' garbage collector (the oracles, the in-process apiservers, the native engine,
 * go build and vet) runs when the heap grows by 400 % instead of Go's 100 %: a quarter less CPU for
 * the same work (tools/cel-oracle's test, 94 -> 75 s of CPU), for heaps a few hundred MB larger.
 * What is tested is unchanged; GOGC=n overrides it.
 */
const GOGC = '400';

/** At most this many steps at once (the heavy ones are multi-process themselves). */
const SLOTS = Number(process.env.TEST_JOBS ?? 4);

const wanted = process.env.TEST_STEPS ? process.env.TEST_STEPS.split(',') : Object.keys(STEPS);
const selected = new Set();
const add = (n) => {
  if (!STEPS[n]) throw new Error(`unknown step ${n} (one of ${Object.keys(STEPS).join(', ')})`);
  if (selected.has(n)) return;
  selected.add(n);
  [...STEPS[n].needs, ...(STEPS[n].after ?? [])].forEach(add);
};
wanted.forEach(add);

const t0 = Date.now();
const secs = (t = Date.now()) => ((t - t0) / 1000).toFixed(0);
const state = new Map(); // name → { status: 'running' | 'passed' | 'failed' | 'not run', start, end }
const width = Math.max(...[...selected].map((n) => n.length));

function prefixLines(name, stream, out) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const l of lines) out.write(`${name.padEnd(width)} | ${l}\n`);
  });
  stream.on('end', () => rest && out.write(`${name.padEnd(width)} | ${rest}\n`));
}

/**
 * A cgroup (v1 cpuacct) per step where the machine lets us make one (root on Linux): its counter
 * is the CPU of every process the step started, also those nobody waited for (Chromium's
 * renderers, engines and apiservers ended with a signal), which bash's `times` misses: on the
 * reference machine `times` saw about half of what the cores did.
 */
const CGROUPS = '/sys/fs/cgroup/cpuacct';
function stepCgroup(name) {
  const dir = `${CGROUPS}/npm-test-${process.pid}-${name.replace(/\W/g, '-')}`;
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return undefined;
  }
}
function cgroupSeconds(dir) {
  try {
    return Number(readFileSync(`${dir}/cpuacct.usage`, 'utf8')) / 1e9;
  } catch {
    return undefined;
  } finally {
    try {
      rmdirSync(dir); // fails while a process the step left behind still runs: left for the machine
    } catch {}
  }
}

function start(name) {
  const step = STEPS[name];
  const s = { status: 'running', start: Date.now() };
  state.set(name, s);
  console.log(`=== [${secs()}s] start ${name}: ${step.run}`);
  return new Promise((done) => {
    const env = { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0', GOGC: process.env.GOGC ?? GOGC, ...step.env };
    const cgroup = stepCgroup(name);
    const join = cgroup ? `echo $$ > ${cgroup}/tasks 2>/dev/null\n` : '';
    // bash's `times` after the command: the CPU seconds of the step's processes (those waited for), on fd 3
    const child = spawn('bash', ['-c', `${join}${step.run}\nrc=$?\ntimes >&3\nexit $rc`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    prefixLines(name, child.stdout, process.stdout);
    prefixLines(name, child.stderr, process.stderr);
    let times = '';
    child.stdio[3].setEncoding('utf8').on('data', (d) => (times += d));
    child.on('close', (code) => {
      s.end = Date.now();
      s.status = code === 0 ? 'passed' : 'failed';
      s.cpu = cpuSeconds(times);
      s.allCpu = cgroup ? cgroupSeconds(cgroup) : undefined;
      const all = s.allCpu === undefined ? '' : `, ${s.allCpu.toFixed(1)} s CPU of all its processes`;
      console.log(`=== [${secs()}s] ${s.status} ${name} (${((s.end - s.start) / 1000).toFixed(1)} s, ${s.cpu?.toFixed(1) ?? '?'} s CPU${all})`);
      done();
    });
  });
}

const finished = (n) => state.has(n) && state.get(n).status !== 'running';
/** user + system seconds of the children from bash's `times` (its second line: "0m12.345s 0m1.234s"). */
function cpuSeconds(times) {
  const line = times.trim().split('\n').pop() ?? '';
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return parts.length === 2 ? parts[0] + parts[1] : undefined;
}

const ok = (n) => state.get(n)?.status === 'passed' || (STEPS[n].optional && finished(n));
const running = new Set();
for (;;) {
  for (const n of selected) {
    if (state.has(n)) continue;
    const failedNeeds = STEPS[n].needs.filter((d) => finished(d) && !ok(d));
    if (failedNeeds.length) {
      state.set(n, { status: 'not run' });
      console.log(`=== [${secs()}s] not run ${n}: ${failedNeeds.join(', ')} failed`);
    }
  }
  const ready = [...selected].filter((n) => !state.has(n) && STEPS[n].needs.every(ok) && (STEPS[n].after ?? []).every(finished));
  while (ready.length && running.size < SLOTS) {
    const p = start(ready.shift()).then(() => running.delete(p));
    running.add(p);
  }
  if (!running.size) break;
  await Promise.race(running);
}

console.log(`\n=== steps (seconds from the start of npm test)`);
for (const n of Object.keys(STEPS).filter((k) => selected.has(k))) {
  const s = state.get(n);
  const span = s.start
    ? `${secs(s.start).padStart(5)} → ${secs(s.end).padStart(5)}  ${((s.end - s.start) / 1000).toFixed(1).padStart(6)} s  ${(s.cpu?.toFixed(1) ?? '?').padStart(6)} s CPU${s.allCpu === undefined ? '' : `  ${s.allCpu.toFixed(1).padStart(6)} s all`}`
    : '';
  console.log(`  ${n.padEnd(width)}  ${s.status.padEnd(7)}  ${span}`);
}
console.log(`  total ${secs()} s`);
const failed = [...selected].filter((n) => !STEPS[n].optional && state.get(n).status !== 'passed');
process.exit(failed.length ? 1 : 0);
