/**
 * apiserverObject's `from`: an object patched from a decoded one is decoded with the unchanged
 * parts taken as they are. Held to a decode of the whole patched object on the typecheck corpus
 * (every built-in kind it has) with random copy-on-write edits, as a webhook's JSON patch makes them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiserverObject, loadTypedData } from './index';

type Json = Record<string, unknown> | unknown[];

const corpus = JSON.parse(readFileSync(join(import.meta.dirname, '../../../tools/typecheck-oracle/testdata/objects.json'), 'utf8')) as unknown[];

beforeAll(() => Promise.all([loadTypedData('1.37'), loadTypedData('1.30')]));

/** A small deterministic generator (the same edits every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const isContainer = (v: unknown): v is Json => typeof v === 'object' && v !== null;
const copy = (v: Json): Json => (Array.isArray(v) ? [...v] : { ...v });

/** `root` with one place changed, the containers on the way there copied (the rest shared), as applyJsonPatch leaves it. */
function edited(root: Record<string, unknown>, r: () => number, others: readonly unknown[]): Record<string, unknown> {
  const out = copy(root) as Record<string, unknown>;
  let at: Json = out;
  for (;;) {
    const keys = Array.isArray(at) ? at.map((_, i) => i) : Object.keys(at);
    if (keys.length === 0) break;
    const k = keys[Math.floor(r() * keys.length)]!;
    const child = (at as Record<string | number, unknown>)[k];
    if (!isContainer(child) || r() < 0.3) break;
    const c = copy(child);
    (at as Record<string | number, unknown>)[k] = c;
    at = c;
  }
  const values = [null, '', 'x', 0, 3, true, false, {}, [], { name: 'n' }, '10m', others[Math.floor(r() * others.length)]];
  if (Array.isArray(at)) {
    if (r() < 0.5) at.push(values[Math.floor(r() * values.length)]);
    else if (at.length) at.splice(Math.floor(r() * at.length), 1);
  } else {
    const keys = Object.keys(at);
    const k = r() < 0.7 && keys.length ? keys[Math.floor(r() * keys.length)]! : ['annotations', 'labels', 'replicas', 'x'][Math.floor(r() * 4)]!;
    if (r() < 0.2) delete at[k];
    else at[k] = values[Math.floor(r() * values.length)];
  }
  return out;
}

describe('apiserverObject from a decoded object', () => {
  it('decodes a patched object as it decodes it whole (random edits of every corpus object, 1.37 and 1.30)', () => {
    let compared = 0;
    for (const release of ['1.37', '1.30'] as const) {
      const r = rng(release === '1.37' ? 7 : 11);
      for (const o of corpus) {
        const decoded = apiserverObject(o, release);
        if (!decoded.typed || !isContainer(decoded.object) || Array.isArray(decoded.object)) continue;
        const subtrees = Object.values(decoded.object);
        for (let i = 0; i < 6; i++) {
          const patched = edited(decoded.object as Record<string, unknown>, r, subtrees);
          const whole = apiserverObject(patched, release);
          const fromDecoded = apiserverObject(patched, release, undefined, decoded.object);
          expect(JSON.stringify(fromDecoded.object)).toBe(JSON.stringify(whole.object));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
