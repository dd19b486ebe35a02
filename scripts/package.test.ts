/**
 * The release artifacts as a portal team and a CI job get them: `node scripts/package.mjs
 * --no-build` packs the build's dist/ and the CLI into dist-package/; the site tarball must match
 * its .sha256 and hold a site that works under a sub-path (every file index.html refers to is
 * served there); the CLI tarball must install with `npm install -g --offline` into an empty prefix
 * with an empty npm cache (so it needs nothing from a registry) and run `check` and `impact` from
 * a directory outside the repository, with the CEL engine it carries.
 *
 * Its own step of `npm test` (test:package, after `build`): vitest.config.ts leaves it out of the
 * unit run unless VITEST_PACKAGE=1. Alone: `npm run build && VITEST_PACKAGE=1 npx vitest run scripts/package.test.ts`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const out = join(root, 'dist-package');
const site = join(out, `admission-workbench-site-${version}.tar.gz`);
const cli = join(out, `admission-workbench-${version}.tgz`);
const tmp = mkdtempSync(join(tmpdir(), 'aw-package-'));

/** The environment of a machine without the repository: no engine paths of ours. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CEL_|npm_|VITEST|WORKBENCH_)/.test(k)));

function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd ?? root,
    env: opts.env ?? process.env,
    input: opts.input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(() => {
  const r = sh(process.execPath, ['scripts/package.mjs', '--no-build']);
  expect(r.code, r.err + r.out).toBe(0);
}, 600_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the site tarball', () => {
  it('matches its .sha256 (sha256sum format) and holds the build: index.html, the engine, Go loader and schema assets', () => {
    expect(readFileSync(`${site}.sha256`, 'utf8')).toBe(`${sha256(site)}  admission-workbench-site-${version}.tar.gz\n`);
    const list = sh('tar', ['-tzf', site]).out.split('\n');
    for (const f of ['./index.html', './cel/cel.wasm', './cel/cel.wasm.br', './cel/cel.wasm.gz', './cel/wasm_exec.js', './cel/schemas-1.37.json'])
      expect(list).toContain(f);
    expect(list.filter((f) => f.startsWith('./assets/') && f.endsWith('.js')).length).toBeGreaterThan(3);
    const dir = join(tmp, 'site');
    mkdirSync(dir);
    expect(sh('tar', ['-xzf', site, '-C', dir]).code).toBe(0);
    const engine = readFileSync(join(dir, 'cel', 'cel.wasm'));
    expect(engine.equals(readFileSync(join(root, 'dist', 'cel', 'cel.wasm')))).toBe(true);
    // the precompressed copies a static server sends instead are the same engine
    expect(brotliDecompressSync(readFileSync(join(dir, 'cel', 'cel.wasm.br'))).equals(engine)).toBe(true);
    expect(gunzipSync(readFileSync(join(dir, 'cel', 'cel.wasm.gz'))).equals(engine)).toBe(true);
  });

  it('unpacked and served under a sub-path, every file index.html refers to is there', async () => {
    const dir = join(tmp, 'site');
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const refs = [...html.matchAll(/(?:src|href)="([^"#]+)"/g)].map((m) => m[1]).filter((u) => !/^[a-z]+:/.test(u));
    expect(refs.length).toBeGreaterThan(2);
    // relative references only: an absolute /assets/… would miss a site served under a sub-path
    expect(refs.filter((u) => u.startsWith('/'))).toEqual([]);
    const base = '/portal/admission/workbench/';
    const port = 20_000 + (process.pid % 20_000);
    const server = spawn(process.execPath, [join(root, 'scripts', 'serve.mjs'), '--port', String(port), '--base', base, '--dir', dir], { stdio: 'pipe' });
    try {
      const page = `http://127.0.0.1:${port}${base}`;
      for (let i = 0; ; i++) {
        const ok = await fetch(page).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (i > 100) throw new Error(`scripts/serve.mjs did not answer on ${page}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const ref of [...refs, 'cel/cel.wasm', 'cel/schemas-1.30.json']) {
        const r = await fetch(new URL(ref, page));
        expect([ref, r.status]).toEqual([ref, 200]);
        await r.arrayBuffer();
      }
    } finally {
      server.kill();
    }
  });
});

describe('the CLI tarball', () => {
  const prefix = join(tmp, 'prefix');
  const bin = join(prefix, 'bin', 'admission-workbench');
  const work = join(tmp, 'work');
  const run = (args: string[], input?: string) => sh(bin, args, { cwd: work, env: cleanEnv, input });

  beforeAll(() => {
    // the fixtures, copied away from the repository (the installed CLI must not find anything of it)
    cpSync(join(root, 'src', 'cli', 'fixtures'), work, { recursive: true, filter: (f) => !f.includes('realworld') });
    const r = sh('npm', ['install', '-g', '--prefix', prefix, '--cache', join(tmp, 'npm-cache'), '--offline', '--no-audit', '--no-fund', cli], {
      cwd: tmp,
      env: cleanEnv,
    });
    expect(r.code, r.err + r.out).toBe(0);
  }, 300_000);

  it('matches its .sha256 and holds the launcher, the bundle and the engine, nothing of the sources, no dependencies', () => {
    expect(readFileSync(`${cli}.sha256`, 'utf8')).toBe(`${sha256(cli)}  admission-workbench-${version}.tgz\n`);
    const list = sh('tar', ['-tzf', cli]).out.trim().split('\n').sort();
    expect(list).toContain('package/bin/admission-workbench.mjs');
    expect(list).toContain('package/dist-cli/admission-workbench.mjs');
    expect(list).toContain('package/dist-cli/THIRD-PARTY-LICENSES.txt');
    expect(list).toContain('package/public/cel/cel.wasm');
    expect(list).toContain('package/public/cel/wasm_exec.js');
    expect(list.filter((f) => /^package\/public\/cel\/schemas-1\.\d+\.json$/.test(f)).length).toBeGreaterThanOrEqual(8);
    expect(list.filter((f) => /^package\/(src|wasm|node_modules|dist)\/|\.(br|gz)$/.test(f))).toEqual([]);
    const installed = join(prefix, 'lib', 'node_modules', 'admission-workbench');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string; dependencies?: object; scripts?: object };
    expect(pkg.version).toBe(version);
    expect([pkg.dependencies, pkg.scripts]).toEqual([undefined, undefined]); // no install-time script, nothing to fetch
    expect(existsSync(join(installed, 'node_modules')) ? readdirSync(join(installed, 'node_modules')) : []).toEqual([]);
  });

  it('--version prints package.json’s version', () => {
    const r = run(['--version']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^admission-workbench ${version.replace(/\./g, '\\.')} \\(Kubernetes 1\\.\\d+–1\\.\\d+, default 1\\.\\d+\\)\\n$`));
  });

  it('check: the apiserver’s errors with positions, CEL compiled by the engine it carries, type checking, caBundle findings; exit 1', () => {
    const r = run(['check', 'check']);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'check/nested/deeper/webhook.yml:9:19: error: webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds\n',
    );
    // CEL compiled by the engine the package carries
    expect(r.out).toContain(
      'check/nested/deeper/webhook.yml:19:17: error: webhooks[0].matchConditions[0].expression: Invalid value: "!request.userInfo.username.startsWith(\'system:\') &&": compilation failed: ERROR: <input>:1:52: Syntax error:',
    );
    expect(r.out).toMatch(/\n3 files, 5 objects \(4 checked, 1 kept but not checked\), 3 errors, 0 warnings, 2 findings\n$/);
    // the release's schema asset: a field Deployments do not have, as the apiserver's type checker words it
    const policy = readFileSync(join(work, 'check', 'policy.yaml'), 'utf8')
      .split('---')[0]
      .replace(/expression: .*/, 'expression: "object.spec.replicass > 1"');
    const typed = run(['check', '-', '--kubernetes-version', '1.30'], policy);
    expect([typed.code, typed.err]).toEqual([0, '']);
    expect(typed.out).toMatch(
      /^<stdin>:20:17: warning: spec\.validations\[0\]\.expression: \[TypeChecking\] apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'$/m,
    );
    const ca = run(['check', 'ca-bundle/expired.yaml', '--format', 'json', '--fail-on', 'finding']);
    expect(ca.code).toBe(1);
    // the X.509 parser, bundled into the CLI
    expect((JSON.parse(ca.out) as { problems: unknown[] }).problems).toContainEqual(
      expect.objectContaining({ field: 'webhooks[0].clientConfig.caBundle', rule: 'C02', message: 'certificate 1 (CN=expired-ca) expired on 2021-01-01' }),
    );
  });

  it('impact: the audit log replayed through the candidate; exit 1 on what it newly denies', () => {
    const r = run(['impact', '--cluster', 'impact/snapshot.json', '--audit', 'impact/audit.log', 'impact/policy.yaml']);
    // the package carries the WebAssembly engine only, and says so
    expect(r.err).toMatch(/^admission-workbench impact: CEL engine: WebAssembly \([^\n]*this installation has no native CEL engine[^\n]*\)\n$/);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'The candidate would have denied 2 of 3 writes: 2 by ValidatingAdmissionPolicy require-team; 1 of 2 existing objects would be rejected if created now',
    );
    expect(r.out).toMatch(/2 {2}newly-denied {2}ValidatingAdmissionPolicy require-team\/require-team {2}ns=apps user=ci-bot pods/);
  });
});
