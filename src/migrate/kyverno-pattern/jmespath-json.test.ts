/**
 * Multi-select hashes, merge(), to_string() of request.userInfo: the compiled CEL evaluated by the
 * real engine, against what go-jmespath and Go's json.Marshal give (values worked out from their code).
 */
import { describe, expect, it } from 'vitest';
import { useEngine, value } from '../../cel/test-helpers';
import { parseJmesPath } from './jmespath';
import { JpCompiler } from './jmespath-cel';
import { Unsupported } from './pattern';

useEngine();

/** The expression's [status, value] on `object`, asked by `userInfo`. */
async function run(expr: string, object: unknown, userInfo: unknown = { username: 'u' }): Promise<unknown> {
  const jp = new JpCompiler({ object: 'object', operation: 'request.operation', userInfo: true });
  return value(jp.compile(parseJmesPath(expr)).cel, { object, request: { operation: 'CREATE', userInfo } });
}

describe('multi-select hashes and merge()', () => {
  const labels = { metadata: { labels: { app: 'a', null: 'n', team: 't' } } };

  it('builds a map of the fields (a missing one nil; a key given twice keeps its last value)', async () => {
    expect(await run('request.object.metadata.{l: labels.app, x: missing, l2: labels.team}', labels)).toEqual([0, { l: 'a', x: null, l2: 't' }]);
    expect(await run('request.object.metadata.labels.{a: app, a: team}', labels)).toEqual([0, { a: 't' }]);
    // the bare word null is a field (JMESPath has no null literal outside backticks)
    expect(await run('request.object.metadata.labels | {k: null}', labels)).toEqual([0, { k: 'n' }]);
    // nil in, nil out (a pipe reads the missing key as nil; a plain path passes its NotFoundError up)
    expect(await run('request.object.missing | {a: b}', labels)).toEqual([0, null]);
    expect(await run('request.object.missing.{a: b}', labels)).toEqual([1, null]);
  });

  it('merges maps left to right, the later value winning; a non-map argument is an invalid-type error', async () => {
    expect(await run('request.object.metadata.labels | merge(@, {app: team, z: nothing})', labels)).toEqual([0, { app: 't', null: 'n', team: 't', z: null }]);
    expect(await run('merge(request.object.metadata.labels, `{"team": "x"}`, `{"y": 1}`)', labels)).toEqual([0, { app: 'a', null: 'n', team: 'x', y: 1 }]);
    expect(((await run('merge(request.object.metadata.labels, request.object.missing)', labels)) as unknown[])[0]).toBe(2);
  });
});

describe('to_string() of request.userInfo (json.Marshal: keys sorted, HTML-safe escapes)', () => {
  const expr = 'request.userInfo.{groups: groups, username: username} | to_string(@)';

  it('writes the user as Go does', async () => {
    expect(await run(expr, {}, { username: 'jane', groups: ['b', 'a'] })).toEqual([0, '{"groups":["b","a"],"username":"jane"}']);
    // an empty field is left out of Kyverno's context (omitempty): nil in the multi-select
    expect(await run(expr, {}, { username: 'sa', groups: [] })).toEqual([0, '{"groups":null,"username":"sa"}']);
    expect(await run(expr, {}, { username: 'a"b\\c<d>&e\n\t\u0001\u2028', groups: ['x'] })).toEqual([
      0,
      '{"groups":["x"],"username":"a\\"b\\\\c\\u003cd\\u003e\\u0026e\\n\\t\\u0001\\u2028"}',
    ]);
    expect(await run('request.userInfo | to_string(@)', {}, { username: 'u', groups: ['g'], extra: { scopes: ['s'] } })).toEqual([
      0,
      '{"extra":{"scopes":["s"]},"groups":["g"],"username":"u"}',
    ]);
    expect(await run('to_string(request.userInfo.username)', {}, { username: 'plain' })).toEqual([0, 'plain']);
  });

  it('is not converted on other values (their numbers print as Go prints float64s)', () => {
    const jp = new JpCompiler({ object: 'object', operation: 'request.operation', userInfo: true });
    expect(() => jp.compile(parseJmesPath('to_string(request.object.spec)'))).toThrow(Unsupported);
  });
});
