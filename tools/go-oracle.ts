/**
 * Builds a Go oracle under tools/ once and runs it (test support, Node only).
 *
 * The binary is cached in node_modules/.cache/workbench-oracles under a hash of
 * everything that goes into it (the Go sources, go.mod/go.sum or the -modfile
 * pair, the build tags and `go version`), so a second test run, or the second
 * test file in the same run, reuses it; `go build` itself reuses GOCACHE.
 * Concurrent builders write to a temporary name and rename, so two vitest
 * workers building the same key at once both end with a whole binary.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
/** WORKBENCH_ORACLE_CACHE=dir moves the cache (e.g. to measure a cold run). */
export const oracleCacheDir = resolve(repoRoot, process.env.WORKBENCH_ORACLE_CACHE ?? 'node_modules/.cache/workbench-oracles');
const cacheDir = oracleCacheDir;

export interface OracleBuild {
  /** The folder under tools/ (its go.mod is the module). */
  dir: string;
  /** A name for the binary in the cache. */
  name: string;
  /** Build tags (`-tags`). */
  tags?: string[];
  /** Another go.mod (`-modfile`); its .sum sits beside it. */
  modfile?: string;
  /** `go test -c` instead of `go build` (the oracle is a Go test). */
  testBinary?: boolean;
}

export interface BuiltOracle {
  path: string;
  /** true when this call built it (a cache miss). */
  built: boolean;
  /** Seconds the build took (0 on a hit). */
  seconds: number;
}

function goVersion(): string {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8' }).trim();
  } catch (e) {
    throw new Error(`The Go oracles need Go (\`go\` on PATH) to build: ${(e as Error).message}`);
  }
}

function keyOf(b: OracleBuild, dir: string): string {
  const h = createHash('sha256');
  h.update(goVersion());
  h.update(JSON.stringify({ tags: b.tags ?? [], modfile: b.modfile ?? '', test: !!b.testBinary }));
  const mod = b.modfile ?? 'go.mod';
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.go') || f === mod || f === mod.replace(/\.mod$/, '.sum'))
    .sort();
  for (const f of files) h.update(f).update('\0').update(readFileSync(join(dir, f))).update('\0');
  return h.digest('hex').slice(0, 16);
}

/** The oracle's binary, built when its sources changed since the last build. */
export function buildOracle(b: OracleBuild): BuiltOracle {
  const dir = resolve(repoRoot, 'tools', b.dir);
  const path = join(cacheDir, `${b.name}-${keyOf(b, dir)}`);
  if (existsSync(path)) return { path, built: false, seconds: 0 };
  mkdirSync(cacheDir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  const args = [b.testBinary ? 'test' : 'build', ...(b.testBinary ? ['-c'] : []), '-o', tmp];
  if (b.tags?.length) args.push('-tags', b.tags.join(','));
  if (b.modfile) args.push(`-modfile=${b.modfile}`);
  args.push('.');
  const t0 = Date.now();
  try {
    execFileSync('go', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim() } });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`go ${args.join(' ')} (in tools/${b.dir}) failed:\n${err.stderr ?? err.message}`);
  }
  renameSync(tmp, path);
  // older builds of the same oracle (and answers cached for them) are no longer used
  for (const f of readdirSync(cacheDir)) if (f.startsWith(`${b.name}-`) && join(cacheDir, f) !== path && !f.endsWith('.tmp')) rmSync(join(cacheDir, f), { force: true });
  return { path, built: true, seconds: (Date.now() - t0) / 1000 };
}

/** Run a binary with `input` on stdin; resolves with stdout (rejects with the ends of stdout and stderr on a non-zero exit). */
export function runOracle(path: string, input: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out).toString('utf8'));
      // a Go test binary reports its failures on stdout (its logs go to stderr)
      else reject(new Error(`${path} exited with ${code}:\n${Buffer.concat(out).toString('utf8').slice(-4000)}\nstderr: ${Buffer.concat(err).toString('utf8').slice(-4000)}`));
    });
    child.stdin.end(input);
  });
}
