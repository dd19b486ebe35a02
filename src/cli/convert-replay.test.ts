/**
 * `convert --replay`: the Kyverno policies of tools/admission-oracle/testdata/kyverno-audit converted
 * and replayed on the log Kyverno decided (the numbers are src/impact/conversion.test.ts's), and
 * its bad input.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { parseConvertArgs } from './convert';
import { runCli } from './main';
import { recordingIO } from './test-helpers';

useEngine();

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/kyverno-audit');

async function convert(...argv: string[]) {
  const io = recordingIO();
  const code = await runCli(['convert', ...argv], io);
  return { code, out: io.out, err: io.err };
}

describe('convert --replay', () => {
  it('needs a value, and --snapshot needs --replay', () => {
    expect(parseConvertArgs(['p.yaml', '--replay'])).toEqual({ error: '--replay needs a value' });
    expect(parseConvertArgs(['p.yaml', '--snapshot', 's.json'])).toEqual({ error: '--snapshot needs --replay' });
    expect(parseConvertArgs(['p.yaml', '--replay', 'a.log', '--snapshot', 's.json'])).toMatchObject({ replay: 'a.log', snapshots: ['s.json'] });
  });

  it('says a log it cannot read, and writes nothing', { timeout: 60_000 }, async () => {
    const r = await convert(join(dir, 'policies.yaml'), '--replay', join(dir, 'missing.log'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('--replay:');
    expect(r.err).toContain('missing.log');
  });

  it('lists each rule against the traffic and every differing event', { timeout: 60_000 }, async () => {
    const r = await convert(join(dir, 'policies.yaml'), '--replay', join(dir, 'audit.log'), '--snapshot', join(dir, 'snapshot-before.json'));
    expect(r.err).toBe('');
    expect(r.out).toContain('Real traffic (');
    expect(r.out).toMatch(/exact {7}require-team-label\/check-team: \d+ agree, \d+ differ/);
    const json = await convert(
      join(dir, 'policies.yaml'),
      '--replay',
      join(dir, 'audit.log'),
      '--snapshot',
      join(dir, 'snapshot-before.json'),
      '--format',
      'json',
    );
    const traffic = (JSON.parse(json.out) as { traffic: { events: number; differences: unknown[] } }).traffic;
    expect(traffic.events).toBeGreaterThan(30);
    expect(json.code).toBe(traffic.differences.length ? 1 : 0);
  });
});
