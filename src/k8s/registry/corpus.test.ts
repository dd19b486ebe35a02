/**
 * Real manifests from 30+ projects (fixtures/realworld): the decode check
 * must find no wrong types and no unknown fields.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { decodeErrors, kindSpecOf } from './index';

const dir = fixturePath('realworld');

function objectsOf(text: string): unknown[] {
  return loadAll(text).flatMap((d) => {
    const o = d as { kind?: string; items?: unknown[] } | null;
    return o && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items) ? o.items : [d];
  });
}

describe('realworld corpus: decode check', () => {
  it('finds no decode problems in any object real clusters accept', () => {
    let checked = 0;
    const found: string[] = [];
    for (const f of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n))) {
      for (const o of objectsOf(readFileSync(join(dir, f), 'utf8'))) {
        if (!kindSpecOf(o)) continue;
        checked++;
        for (const e of decodeErrors(o)) found.push(`${f}: ${e.field}: ${e.message}`);
      }
    }
    expect(found).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});
