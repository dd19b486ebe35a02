import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KUBERNETES_VERSION, RELEASES, releaseOf } from '../src/base/releases';
import { engineFile } from '../src/cel/assets';
import { DEFAULT_ENGINE } from '../src/cel/generations';
import { engineBuilds, prepareEngineTree } from './engine-builds.mjs';
import { toolchainOf } from './go-toolchain.mjs';

describe('engine generations (scripts/engine-builds.mjs)', () => {
  const builds = engineBuilds();
  it("every release row's engine has a build, and the default build (wasm/go.mod) is the default target's engine", () => {
    for (const r of RELEASES) expect(builds.map((b) => b.name)).toContain(r.engine);
    expect(builds[0]!.isDefault).toBe(true);
    expect(builds[0]!.name).toBe(releaseOf(DEFAULT_KUBERNETES_VERSION).engine);
    expect(DEFAULT_ENGINE).toBe(builds[0]!.name);
    for (const b of builds) expect(b.wasm).toBe(engineFile(b.name, b.isDefault));
  });

  it('the 1.38 build: its modfile, the k8s138 tag, Go 1.27.3, cel.dev/cel-go imports in its copy', () => {
    const b = builds.find((x) => x.name === '1.38')!;
    expect(b).toMatchObject({ modfile: 'go.1.38.mod', tags: ['k8s138'], toolchain: 'go1.27.3', rewriteCelGo: true, wasm: 'cel-1.38.wasm' });
    const work = mkdtempSync(join(tmpdir(), 'engine-tree-'));
    try {
      prepareEngineTree(b, work);
      expect(readFileSync(join(work, 'go.mod'), 'utf8')).toContain('k8s.io/apiserver v0.38.0-beta.0');
      const fixes = readFileSync(join(work, 'fixes_celgo.go'), 'utf8');
      expect(fixes).toContain('"cel.dev/cel-go/interpreter"');
      expect(fixes).not.toContain('"github.com/google/cel-go/');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('toolchainOf reads a modfile’s toolchain line', () => {
    expect(toolchainOf('module x\n\ngo 1.27.0\n\ntoolchain go1.27.3\n')).toBe('go1.27.3');
    expect(toolchainOf('module x\n\ngo 1.26.0\n')).toBeUndefined();
  });
});
