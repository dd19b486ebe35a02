/**
 * The CLI's report written from events it did not keep: the same bytes as the library's exports
 * of a report that kept them, through a spool in a temporary file or in memory.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { analyzeImpact, groupEvents, reportJson, reportMarkdown } from '../impact';
import { APPS, appsPod, podCreate, requireTeam } from '../impact/test-helpers';
import { memorySpool, reportWriter, type Spool } from './impact-report';
import { fileSpool } from './node-io';

useEngine();

// a message across lines, with quotes and characters beyond ASCII: escaped in the JSON, never breaking its indent
const policy = requireTeam('pods need a "team" label —\n\tsee ünïcode ✓');
const log = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    podCreate(i, i % 2 ? {} : { team: 'a' }, { user: i % 3 ? 'ci-bot' : 'alice', time: `2026-11-26T17:13:${String(5 + i).padStart(2, '0')}Z` }),
  ).join('\n');
const snapshot = [APPS, appsPod('running', {})];

/** The writer fed with a kept report's events, as analyzeImpact would feed it; its output in one string. */
function written(report: Awaited<ReturnType<typeof analyzeImpact>>, format: 'json' | 'markdown', allEvents: boolean, spool?: Spool): string {
  const w = reportWriter(format, allEvents, spool);
  for (const e of report.events) w.onEvent(e);
  let out = '';
  w.write(report, (t) => void (out += t));
  return out;
}

describe("impact's report writer", () => {
  it('writes the JSON and Markdown of the library, byte for byte, from events it did not keep', async () => {
    for (const n of [0, 1, 6]) {
      const report = await analyzeImpact({ workspace: policy, cluster: snapshot, audit: log(n), options: { kubernetesVersion: '1.37' } });
      expect(report.events).toHaveLength(n);
      for (const allEvents of [false, true]) {
        const json = reportJson(report, { allEvents });
        expect(written(report, 'json', allEvents, fileSpool())).toBe(json);
        expect(written(report, 'json', allEvents, memorySpool())).toBe(json);
        expect(written(report, 'json', allEvents)).toBe(json);
        expect(JSON.parse(json).events).toHaveLength(allEvents ? n : report.events.filter((e) => e.change !== 'unchanged').length);
      }
      expect(written(report, 'markdown', false)).toBe(reportMarkdown(report));
      expect(reportMarkdown(report, 50, groupEvents(report.events))).toBe(reportMarkdown(report));
    }
  });

  it('a file spool gives back what it was given, in order, across its pieces and characters of several bytes', () => {
    const spool = fileSpool();
    const parts: string[] = [];
    // ~5 MiB in pieces whose multi-byte characters fall across the 1 MiB reads
    for (let i = 0; i < 700; i++) parts.push(`${i}:${'ü✓𝄞'.repeat(1 + ((i * 7919) % 3000))}\n`);
    for (const p of parts) spool.write(p);
    expect([...spool.read()].join('')).toBe(parts.join(''));
    const empty = fileSpool();
    expect([...empty.read()].join('')).toBe('');
  });
});
