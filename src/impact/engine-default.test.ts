/**
 * The library's default engine: analyzeImpact in Node, with no CEL_ENGINE, decides on the native
 * engine (npm install and npm run test:unit build it) with one process per core, not on the
 * one-thread WebAssembly engine (that both engines answer alike is src/cel/native.test.ts's).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { celStatus } from '../cel';
import { nativeEngines } from '../cel/engine';
import { analyzeImpact } from './index';

// what a program calling the library sets: nothing (the variable is read when the engine loads)
delete process.env.CEL_ENGINE;

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
const log = readFileSync(join(dir, 'audit.log'), 'utf8');
const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, 'allow' | 'deny'> };

describe('analyzeImpact in Node by default', () => {
  it('runs on the native engine, one process per core', async () => {
    const r = await analyzeImpact({
      workspace: candidate.objects,
      cluster: snapshot,
      audit: log,
      options: { candidate: 'replace', webhooks: { 'frozen.shop.example.com': 'deny', ...candidate.webhooks } },
    });
    expect(celStatus()).toMatchObject({ state: 'ready', engine: 'native' });
    expect(celStatus().notNative).toBeUndefined();
    expect(nativeEngines()?.size()).toBe(availableParallelism());
    expect(r.summary.events).toBeGreaterThan(20);
    expect(r.summary.changes['newly-denied']).toBeGreaterThan(0);
    expect(r.summary.existing.judged).toBe(true);
  });
});
