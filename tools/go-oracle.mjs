/**
 * Builds a Go oracle under tools/ once and runs it (test support, Node only; types in go-oracle.d.mts).
 *
 * The binary is cached in the user's cache (`$XDG_CACHE_HOME` or ~/.cache, then
 * admission-workbench/oracles), like Go's own build cache, under a hash of everything that goes
 * into it (the Go sources, go.mod/go.sum or the -modfile pair, which pin every module, the build
 * tags, the flags and `go version`): a second test run, the second test file of a run, and a
 * fresh clone on the same machine reuse it. A link reads about a gigabyte of Go's build cache,
 * minutes of a fresh clone's `npm test` on a cold disk. The answers some tests keep stay in the
 * checkout (node_modules/.cache/workbench-oracles): a fresh clone asks the oracles again.
 * One builder per binary: a builder holds `<binary>.lock` (a directory, made atomically) while it
 * builds; another process that wants the same binary waits for it instead of linking it a second
 * time (a lock whose process has died is taken over). The binary is written to a temporary name
 * and renamed, so a reader never sees half a file.
 *
 * ORACLE_BUILDS is every binary the differential tests use (they take their builds from it), so
 * `node tools/build-oracles.mjs` (run by `npm test` beside the other builds) can build them all
 * ahead of the tests; build-schemas.mjs builds the type-check oracle through the same cache.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goEnvFor } from '../scripts/go-toolchain.mjs';
import { evictUnused, touchEntry, userCacheDir } from '../scripts/user-cache.mjs';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
/** WORKBENCH_ORACLE_CACHE=dir moves both caches there (e.g. an empty one to measure a cold run). */
const moved = process.env.WORKBENCH_ORACLE_CACHE && resolve(repoRoot, process.env.WORKBENCH_ORACLE_CACHE);
/** The oracles' answers that tests keep (in the checkout). */
export const oracleCacheDir = moved || resolve(repoRoot, 'node_modules/.cache/workbench-oracles');
/** The oracle binaries (the user's cache, shared by the checkouts of one machine: scripts/user-cache.mjs). */
export const oracleBinDir = moved || userCacheDir('oracles');

/**
 * Every oracle binary the tests under tools/ build, by cache name, in the order build-oracles.mjs
 * links them: that of the slow files vitest starts first (vitest.config.ts SLOW_FIRST), which
 * run while the rest link.
 */
export const ORACLE_BUILDS = {
  // kyverno-oracle: github.com/kyverno/kyverno v1.19.1's engines (legacy ClusterPolicy/Policy and ValidatingPolicy)
  'kyverno-oracle': { dir: 'kyverno-oracle', name: 'kyverno-oracle' },
  // validation-oracle: go.mod pins 1.36; `-tags k8s13x -modfile go.1.3x.mod` builds it on 1.37 and 1.30
  'validation-oracle-1.37': { dir: 'validation-oracle', name: 'validation-oracle-1.37', tags: ['k8s137'], modfile: 'go.1.37.mod' },
  'validation-oracle-1.36': { dir: 'validation-oracle', name: 'validation-oracle-1.36' },
  'validation-oracle-1.30': { dir: 'validation-oracle', name: 'validation-oracle-1.30', tags: ['k8s130'], modfile: 'go.1.30.mod' },
  // 1.38 (v1.38.0-beta.0): Go 1.27 from go.1.38.mod's toolchain line
  'validation-oracle-1.38': { dir: 'validation-oracle', name: 'validation-oracle-1.38', tags: ['k8s138'], modfile: 'go.1.38.mod' },
  // admission-oracle (a Go test): go.mod pins 1.36; `-modfile go.1.37.mod` builds it on 1.37.2
  'admission-oracle': { dir: 'admission-oracle', name: 'admission-oracle', testBinary: true },
  'admission-oracle-1.37': { dir: 'admission-oracle', name: 'admission-oracle-1.37', testBinary: true, modfile: 'go.1.37.mod' },
  // 1.38's modules need Go 1.27: GOTOOLCHAIN for this build only (the go command fetches it from the proxy)
  'admission-oracle-1.38': { dir: 'admission-oracle', name: 'admission-oracle-1.38', testBinary: true, modfile: 'go.1.38.mod', toolchain: 'go1.27.3' },
  // typecheck-oracle: go.mod pins 1.37; the suite re-derives these three releases' schema data (npm run schemas:generate builds every release).
  // 1.37's is the Go test binary, which is also the oracle (main_test.go's TestMain): one link for both
  'typecheck-oracle-1.37': { dir: 'typecheck-oracle', name: 'typecheck-oracle-1.37', testBinary: true },
  'typecheck-oracle-1.36': { dir: 'typecheck-oracle', name: 'typecheck-oracle-1.36', modfile: 'go.1.36.mod' },
  'typecheck-oracle-1.30': { dir: 'typecheck-oracle', name: 'typecheck-oracle-1.30', modfile: 'go.1.30.mod' },
  'manifest-oracle-1.37': { dir: 'manifest-oracle', name: 'manifest-oracle-1.37' },
  'manifest-oracle-1.38': { dir: 'manifest-oracle', name: 'manifest-oracle-1.38', modfile: 'go.1.38.mod', toolchain: 'go1.27.3' },
  // cel-oracle: go.mod pins 1.37; `-tags k8s13N -modfile go.1.N.mod` the others (only k8s.io/apiserver, a light build)
  'cel-oracle-1.38': { dir: 'cel-oracle', name: 'cel-oracle-1.38', tags: ['k8s138'], modfile: 'go.1.38.mod' },
  'cel-oracle-1.37': { dir: 'cel-oracle', name: 'cel-oracle-1.37' },
  'cel-oracle-1.36': { dir: 'cel-oracle', name: 'cel-oracle-1.36', tags: ['k8s136'], modfile: 'go.1.36.mod' },
  'cel-oracle-1.33': { dir: 'cel-oracle', name: 'cel-oracle-1.33', tags: ['k8s133'], modfile: 'go.1.33.mod' },
  'cel-oracle-1.32': { dir: 'cel-oracle', name: 'cel-oracle-1.32', tags: ['k8s132'], modfile: 'go.1.32.mod' },
  'cel-oracle-1.31': { dir: 'cel-oracle', name: 'cel-oracle-1.31', tags: ['k8s131'], modfile: 'go.1.31.mod' },
  'cel-oracle-1.30': { dir: 'cel-oracle', name: 'cel-oracle-1.30', tags: ['k8s130'], modfile: 'go.1.30.mod' },
  // gatekeeper-oracle: Gatekeeper v3.23's VAP generation (pkg/drivers/k8scel/transform; k8s.io/apiserver, no k8s.io/kubernetes)
  'gatekeeper-oracle': { dir: 'gatekeeper-oracle', name: 'gatekeeper-oracle' },
};

/**
 * The timeout of a test that may build its oracle. On a fresh machine (empty Go caches) a
 * Kubernetes-sized oracle compiles beside the rest of `npm test`: the Kyverno oracle took 39 min of
 * wall on 2 cores in a clean-clone run (2026-12-04), far past any test's own work, so a test
 * that timed out at 15 min failed there. An hour stops a hang, not a cold build.
 */
export const ORACLE_TEST_TIMEOUT = 3_600_000;

let goVersionText;
function goVersion() {
  try {
    return (goVersionText ??= execFileSync('go', ['version'], { encoding: 'utf8' }).trim());
  } catch (e) {
    throw new Error(`The Go oracles need Go (\`go\` on PATH) to build: ${e.message}`);
  }
}

function keyOf(b, dir) {
  const h = createHash('sha256');
  h.update(goVersion());
  h.update(JSON.stringify({ tags: b.tags ?? [], modfile: b.modfile ?? '', test: !!b.testBinary, toolchain: b.toolchain ?? '', ldflags: '-s -w' }));
  const mod = b.modfile ?? 'go.mod';
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.go') || f === mod || f === mod.replace(/\.mod$/, '.sum'))
    .sort();
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(readFileSync(join(dir, f)))
      .update('\0');
  return h.digest('hex').slice(0, 16);
}

/** Where the binary of `b` goes and the `go` command that builds it. */
function plan(b) {
  const dir = resolve(repoRoot, 'tools', b.dir);
  const path = join(oracleBinDir, `${b.name}-${keyOf(b, dir)}`);
  const tmp = `${path}.${process.pid}.tmp`;
  // without the symbol table and DWARF (-s -w): a quarter less of the link's CPU (typecheck-oracle:
  // 6.5 → 4.8 s) and a third smaller; a panic's stack trace still has its functions and lines
  const args = [b.testBinary ? 'test' : 'build', ...(b.testBinary ? ['-c'] : []), '-ldflags=-s -w', '-o', tmp];
  if (b.tags?.length) args.push('-tags', b.tags.join(','));
  if (b.modfile) args.push(`-modfile=${b.modfile}`);
  args.push('.');
  // a modfile's `toolchain` line (go.1.38.mod: go1.27.3) is the Go that builds it (scripts/go-toolchain.mjs)
  const env = {
    ...goEnvFor(join(dir, b.modfile ?? 'go.mod')),
    GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim(),
    ...(b.toolchain ? { GOTOOLCHAIN: b.toolchain } : {}),
  };
  return { dir, path, tmp, args, env, lock: `${path}.lock` };
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
};

/** 'built' when the binary is there, 'mine' when this process now holds the lock, 'wait' while another builder does. */
function claim(p) {
  for (;;) {
    if (existsSync(p.path)) return 'built';
    try {
      mkdirSync(p.lock);
      writeFileSync(join(p.lock, 'pid'), String(process.pid));
      // it may have been finished between the check and the lock
      if (existsSync(p.path)) {
        rmSync(p.lock, { recursive: true, force: true });
        return 'built';
      }
      return 'mine';
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(join(p.lock, 'pid'), 'utf8'));
    } catch {
      // the holder has made the directory and not yet written its pid, or just removed the lock
    }
    const known = Number.isInteger(holder) && holder > 0;
    // a lock with no pid a minute after it was made: its maker died between the two
    const orphan = !known && Date.now() - (statSync(p.lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 60_000;
    if ((known && !alive(holder)) || orphan) {
      rmSync(p.lock, { recursive: true, force: true });
      continue;
    }
    return 'wait';
  }
}

function finish(b, p) {
  renameSync(p.tmp, p.path);
  rmSync(p.lock, { recursive: true, force: true });
  // other builds of the same oracle unused for a week (other checkouts' branches may still use theirs;
  // exactly `<name>-<key>`: admission-oracle's must not take admission-oracle-1.37's)
  evictUnused(oracleBinDir, b.name, p.path);
}

function failed(b, p, stderr) {
  rmSync(p.tmp, { force: true });
  rmSync(p.lock, { recursive: true, force: true });
  return new Error(`go ${p.args.join(' ')} (in tools/${b.dir}) failed:\n${stderr}`);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * The build of `b` claimed: yields the milliseconds to wait while another process builds it, and
 * returns its plan with 'built' (the binary is there) or 'mine' (this process builds it now).
 */
function* claimBuild(b) {
  const p = plan(b);
  mkdirSync(oracleBinDir, { recursive: true });
  mkdirSync(oracleCacheDir, { recursive: true }); // where the tests that built it keep answers
  for (;;) {
    const c = claim(p);
    if (c === 'built') touchEntry(p.path); // used: not evicted
    if (c !== 'wait') return { p, c };
    yield 250;
  }
}

/** The oracle's binary, built when its sources changed since the last build (or waited for while another process builds it). */
export function buildOracle(b) {
  const t0 = Date.now();
  const g = claimBuild(b);
  let s;
  while (!(s = g.next()).done) Atomics.wait(pause, 0, 0, s.value);
  const { p, c } = s.value;
  if (c === 'built') return { path: p.path, built: false, seconds: 0 };
  try {
    execFileSync('go', p.args, { cwd: p.dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: p.env });
  } catch (e) {
    throw failed(b, p, e.stderr ?? e.message);
  }
  finish(b, p);
  return { path: p.path, built: true, seconds: (Date.now() - t0) / 1000 };
}

/** buildOracle without blocking the event loop (several builds can run at once). */
export async function buildOracleAsync(b) {
  const t0 = Date.now();
  const g = claimBuild(b);
  let s;
  while (!(s = g.next()).done) await new Promise((r) => setTimeout(r, s.value));
  const { p, c } = s.value;
  if (c === 'built') return { path: p.path, built: false, seconds: 0 };
  const stderr = await new Promise((resolvePromise, reject) => {
    const child = spawn('go', p.args, { cwd: p.dir, stdio: ['ignore', 'ignore', 'pipe'], env: p.env });
    const err = [];
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise(code === 0 ? null : Buffer.concat(err).toString('utf8') || `exit ${code}`));
  }).catch((e) => e.message);
  if (stderr !== null) throw failed(b, p, stderr);
  finish(b, p);
  return { path: p.path, built: true, seconds: (Date.now() - t0) / 1000 };
}

/** Run a binary with `input` on stdin; resolves with stdout (rejects with the ends of stdout and stderr on a non-zero exit). */
export function runOracle(path, input, args = [], env = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out).toString('utf8'));
      // a Go test binary reports its failures on stdout (its logs go to stderr)
      else
        reject(
          new Error(
            `${path} exited with ${code}:\n${Buffer.concat(out).toString('utf8').slice(-4000)}\nstderr: ${Buffer.concat(err).toString('utf8').slice(-4000)}`,
          ),
        );
    });
    child.stdin.end(input);
  });
}
