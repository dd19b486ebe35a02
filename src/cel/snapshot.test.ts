/** The served engine is pre-initialised (scripts/wasm-snapshot.mjs); every engine test runs on it. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { loadRawInNode } from './node';
import { SNAPSHOT_SECTION } from './raw';
import { engineOf } from './ops';
import { VALUES_SECTION } from '../../scripts/wasm-snapshot.mjs';

const wasmPath = process.env.CEL_WASM ? resolve(process.env.CEL_WASM) : resolve(__dirname, '..', '..', 'public', 'cel', 'cel.wasm');

test('the engine under test is the snapshotted build: its JS values are recorded by where they were found', async () => {
  expect(SNAPSHOT_SECTION).toBe(VALUES_SECTION); // the loader reads what the build writes
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const [section] = WebAssembly.Module.customSections(module, SNAPSHOT_SECTION);
  expect(section, 'built with CEL_WASM_SNAPSHOT=0?').toBeDefined();
  const { values } = JSON.parse(new TextDecoder().decode(section)) as { values: { path?: string | null }[] };
  // wasm_exec.js's stubs and the constructors syscall/js and syscall keep (found again on resume)
  expect(values.map((v) => v.path)).toEqual(expect.arrayContaining(['Object', 'Array', 'fs', 'fs.constants', 'Uint8Array']));
});

test('each resumed engine has its own memory: inputs set in one are unknown to another', async () => {
  const a = engineOf(await loadRawInNode());
  const b = engineOf(await loadRawInNode());
  expect(a.setInputs('only-in-a', JSON.stringify({ object: { metadata: { name: 'x' } } }))).toEqual({ ok: true });
  expect(a.evaluate('object.metadata.name', 'vap-variable', 'only-in-a')).toMatchObject({ ok: true, value: 'x' });
  expect(b.evaluate('object.metadata.name', 'vap-variable', 'only-in-a')).toMatchObject({ ok: false, kind: 'inputs' });
  expect(b.info()).toEqual(a.info());
});
