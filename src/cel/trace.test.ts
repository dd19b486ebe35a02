/** Traces through the real engine: node values, what did not run, offsets, result and cost unchanged. */
import { describe, expect, test } from 'vitest';
import { evaluate, evaluateBatch } from './index';
import { notRun, traceLabels } from './trace';
import type { CelTraceNode } from './types';
import { useEngine } from './test-helpers';

useEngine();

const inputs = {
  object: { metadata: { name: 'web', labels: { team: 'a' } }, spec: { replicas: 7, containers: [{ name: 'a', image: 'docker.io/a' }] } },
  params: { maxReplicas: 5 },
};
const opts = { hasParams: true, trace: true } as const;

function nodeAt(expr: string, trace: readonly CelTraceNode[] | undefined, text: string): CelTraceNode {
  const from = expr.indexOf(text);
  const n = trace?.find((t) => t.from === from && t.to === from + text.length);
  if (!n) throw new Error(`no node for ${text} in ${JSON.stringify(trace)}`);
  return n;
}

describe('trace', () => {
  test('each sub-expression has its value', async () => {
    const e = 'object.spec.replicas <= params.maxReplicas';
    const r = await evaluate(e, 'vap-validation', inputs, opts);
    expect(r).toMatchObject({ ok: true, value: false });
    expect(nodeAt(e, r.trace, 'object.spec.replicas')).toMatchObject({ ran: true, value: 7 });
    expect(nodeAt(e, r.trace, 'params.maxReplicas')).toMatchObject({ ran: true, value: 5 });
    expect(nodeAt(e, r.trace, e)).toMatchObject({ ran: true, value: false, start: e.indexOf('<='), end: e.indexOf('<=') + 2 });
    expect(traceLabels(e, r.trace!).map((l) => [e.slice(l.from, l.at), l.text])).toEqual([
      ['object.spec.replicas', '7'],
      ['params.maxReplicas', '5'],
      [e, 'false'],
    ]);
  });

  test('short-circuited operands, untaken branches and unentered macro bodies did not run', async () => {
    const e = "object.spec.replicas < 5 && object.metadata.name == 'x'";
    const r = await evaluate(e, 'vap-validation', inputs, opts);
    expect(nodeAt(e, r.trace, "object.metadata.name == 'x'").ran).toBe(false);
    expect(notRun(e, r.trace!)).toEqual([{ from: e.indexOf('object.metadata'), to: e.length }]);
    const t = "object.spec.replicas > 5 ? 'big' : object.metadata.name";
    const rt = await evaluate(t, 'vap-variable', inputs, opts);
    expect(rt).toMatchObject({ ok: true, value: 'big' });
    expect(nodeAt(t, rt.trace, 'object.metadata.name').ran).toBe(false);
    const m = '[].all(c, c > 1)';
    const rm = await evaluate(m, 'vap-validation', inputs, opts);
    expect(nodeAt(m, rm.trace, 'c > 1').ran).toBe(false);
  });

  test('an error shows where it started', async () => {
    const e = "object.spec.nope == 1 || object.metadata.name == 'web'";
    const r = await evaluate(e, 'vap-validation', inputs, opts);
    expect(r).toMatchObject({ ok: true, value: true });
    expect(nodeAt(e, r.trace, 'object.spec.nope').error).toMatch(/no such key: nope/);
  });

  test('offsets are UTF-16 (JavaScript string indices)', async () => {
    const e = "'😀é' + object.metadata.name == 'x'";
    const r = await evaluate(e, 'vap-validation', inputs, opts);
    expect(nodeAt(e, r.trace, 'object.metadata.name')).toMatchObject({ value: 'web' });
    expect(nodeAt(e, r.trace, "'😀é' + object.metadata.name")).toMatchObject({ value: '😀éweb' });
  });

  test('a macro predicate counts every iteration, true and false (seen); the value is the last', async () => {
    const e = '[1, 2, 3, 4].all(x, x < 3)';
    const r = await evaluate(e, 'vap-validation', inputs, opts);
    expect(r).toMatchObject({ ok: true, value: false });
    // true at 1 and 2, false at 3, where all() stops
    expect(nodeAt(e, r.trace, 'x < 3')).toMatchObject({ ran: true, value: false, seen: { true: 2, false: 1 } });
    // nested, and && operands inside a body: counted over every outer element
    const n = "object.spec.containers.exists(c, ['a', 'b'].exists_one(n, n == c.name && c.image != ''))";
    const rn = await evaluate(n, 'vap-validation', inputs, opts);
    expect(rn).toMatchObject({ ok: true, value: true });
    expect(nodeAt(n, rn.trace, "['a', 'b'].exists_one(n, n == c.name && c.image != '')").seen).toEqual({ true: 1, false: 0 });
    expect(nodeAt(n, rn.trace, "n == c.name && c.image != ''").seen).toEqual({ true: 1, false: 1 });
    expect(nodeAt(n, rn.trace, 'n == c.name').seen).toEqual({ true: 1, false: 1 });
    expect(nodeAt(n, rn.trace, "c.image != ''").seen).toEqual({ true: 1, false: 0 });
    // nodes that run at most once have none; a body never entered neither
    expect(r.trace!.filter((t) => t.seen).length).toBe(1);
    const empty = await evaluate('[].all(c, c > 1)', 'vap-validation', inputs, opts);
    expect(empty.trace!.some((t) => t.seen)).toBe(false);
  });

  test('tracing changes neither the result nor the cost, alone or in a policy group', async () => {
    const variables = [{ name: 'big', expression: 'object.spec.replicas > 5' }];
    const exprs = [
      'variables.big && object.spec.containers.all(c, c.image.startsWith("docker.io/"))',
      'object.spec.nope == 1',
      'variables.big',
      '[[1, 2], [3]].all(l, l.all(y, y < 3 || variables.big))',
    ];
    for (const e of exprs) {
      const plain = await evaluate(e, 'vap-validation', inputs, { hasParams: true, variables });
      const traced = await evaluate(e, 'vap-validation', inputs, { hasParams: true, variables, trace: true });
      expect(traced.trace?.length).toBeGreaterThan(0);
      const { trace: _t, ...rest } = traced;
      expect(rest).toEqual(plain);
    }
    const items = exprs.map((expression) => ({ expression, context: 'vap-validation' as const, group: 'p', options: { hasParams: true, variables } }));
    const plain = await evaluateBatch(items, inputs);
    const traced = await evaluateBatch(
      items.map((i) => ({ ...i, options: { ...i.options, trace: true } })),
      inputs,
    );
    expect(traced.map(({ trace: _t, ...rest }) => rest)).toEqual(plain);
  });

  test('off by default', async () => {
    const r = await evaluate('object.spec.replicas > 1', 'vap-validation', inputs, { hasParams: true });
    expect(r).not.toHaveProperty('trace');
  });
});
