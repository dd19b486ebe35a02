import { readdirSync, readFileSync } from 'node:fs';
import { createStore } from 'zustand/vanilla';
import { describe, expect, it } from 'vitest';
import { appStore, resetAppStores } from './app-stores';
import { workspace } from './workspace';

const dir = new URL('.', import.meta.url);
const sources = readdirSync(dir)
  .filter((f) => /\.tsx?$/.test(f) && !/\.(test|bench)\.ts$/.test(f))
  .map((f) => ({ f, text: readFileSync(new URL(f, dir), 'utf8') }));

describe("the app's stores (vitest's shared project starts each file from their first state)", () => {
  it('resetAppStores puts each registered store back to its first state', () => {
    const s = appStore(createStore<{ n: number; extra?: string }>()(() => ({ n: 1 })));
    s.setState({ n: 2, extra: 'left by a file before' });
    const release = workspace.getState().kubernetesVersion;
    workspace.setState({ kubernetesVersion: '1.30', docs: [] });
    resetAppStores();
    expect(s.getState()).toEqual({ n: 1 });
    expect(workspace.getState().kubernetesVersion).toBe(release);
  });

  it('every store a module of src/store makes at its top level is registered', () => {
    // a top-level const made by zustand's create/createStore or a store factory of this folder
    const made = /^(?:export )?const (\w+)(?::[^=]+)? = (?!appStore\()[^\n]*\b(?:create|createStore|createWorkspace|createTestInputs)\b\s*[<(]/gm;
    const unregistered = sources.flatMap(({ f, text }) => [...text.matchAll(made)].map((m) => `${f}: ${m[1]}`));
    expect(unregistered).toEqual([]);
    // and the rule sees the stores there are
    expect(sources.filter(({ text }) => /= appStore\(/.test(text)).length).toBeGreaterThanOrEqual(11);
  });
});
