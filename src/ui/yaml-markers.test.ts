/**
 * Above 2,000 problems, markers and code actions are worked out for the list elements around the
 * lines asked about: every problem on those lines is among them, and far ones are not.
 */
import { describe, expect, it } from 'vitest';
import { docPositions, importText } from '../store';
import { docProblems } from '../store/problems';
import { ALL_MARKERS_UP_TO, nearVisible } from './yaml-markers';

const hook = (i: number) =>
  [
    `- name: w${i}.example.com`,
    '  clientConfig: {url: "https://h.example.com/"}',
    '  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]',
    '  sideEffects: None',
    '  timeoutSeconds: 25',
    '  admissionReviewVersions: [v1]',
  ].join('\n');
const text = `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: many\nwebhooks:\n${Array.from({ length: 1000 }, (_, i) => hook(i)).join('\n')}\n`;

describe('nearVisible', () => {
  it('keeps every problem on the asked lines and leaves out the far ones', () => {
    const doc = importText(text, 'many.yaml').docs[0]!;
    const items = docProblems(doc, [doc], '1.36').items;
    expect(items.length).toBeGreaterThan(ALL_MARKERS_UP_TO);
    const positions = docPositions(doc)!;
    const lineOf = (field: string) => {
      const p = positions.positionOf(field);
      return (p.key ?? p.value).startLine;
    };
    for (const [startLine, endLine] of [
      [1, 40],
      [3000, 3030],
      [5990, 6010],
    ] as const) {
      for (const margin of [0, 200]) {
        const near = nearVisible(items, positions, { startLine, endLine }, margin);
        // The same problems, in the same order, as filtering the whole list by element (what it did before it kept an index).
        const element = (path: string) => /^webhooks\[(\d+)\]/.exec(path)?.[1];
        const [from, to] = [startLine - margin, endLine + margin].map((l) => Number(element(positions.pathAtLineColumn(Math.max(1, l), 1)?.path ?? '') ?? NaN));
        expect(near).toEqual(
          items.filter(
            (p) =>
              element(p.field) === undefined || (Number(element(p.field)) >= (from || 0) && Number(element(p.field)) <= (Number.isNaN(to) ? Infinity : to)),
          ),
        );
        expect(near.length).toBeLessThan(items.length / 10);
        const onLines = items.filter((p) => {
          const line = lineOf(p.field);
          return line >= startLine && line <= endLine;
        });
        expect(onLines.length).toBeGreaterThan(0);
        for (const p of onLines) expect(near).toContain(p);
      }
    }
    // few problems: all of them
    expect(nearVisible(items.slice(0, 10), positions, { startLine: 1, endLine: 2 })).toEqual(items.slice(0, 10));
  });
});
