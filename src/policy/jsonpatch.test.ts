/** RFC 6902 (Appendix A examples), RFC 6901 escaping, the structural diff and the apply-configuration merge. */
import { describe, expect, test } from 'vitest';
import { applyJsonPatch, diffJson, parsePointer, formatPointer } from '../base/jsonpatch';
import { mergeApplyConfiguration, type ListMergeNote } from './merge';

const ok = (doc: unknown, ops: Parameters<typeof applyJsonPatch>[1]) => {
  const r = applyJsonPatch(doc, ops);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe('RFC 6902 Appendix A', () => {
  test('A.1 add an object member', () => {
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ baz: 'qux', foo: 'bar' });
  });
  test('A.2 add an array element', () => {
    expect(ok({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({ foo: ['bar', 'qux', 'baz'] });
  });
  test('A.3 remove an object member', () => {
    expect(ok({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' });
  });
  test('A.4 remove an array element', () => {
    expect(ok({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).toEqual({ foo: ['bar', 'baz'] });
  });
  test('A.5 replace a value', () => {
    expect(ok({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({ baz: 'boo', foo: 'bar' });
  });
  test('A.6 move a value', () => {
    const doc = { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } };
    expect(ok(doc, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }])).toEqual({ foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
  });
  test('A.7 move an array element', () => {
    expect(ok({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({ foo: ['all', 'cows', 'eat', 'grass'] });
  });
  test('A.8 test success', () => {
    const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
    const r = applyJsonPatch(doc, [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ]);
    expect(r).toEqual({ ok: true, value: doc });
  });
  test('A.9 test failure: the patch is not applied (MAP: no error)', () => {
    const r = applyJsonPatch({ baz: 'qux' }, [
      { op: 'replace', path: '/baz', value: 'changed' },
      { op: 'test', path: '/baz', value: 'bar' },
    ]);
    expect(r).toEqual({ ok: true, value: { baz: 'qux' }, testFailed: { index: 1, path: '/baz' } });
  });
  test('A.10 add a nested member object', () => {
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }])).toEqual({ foo: 'bar', child: { grandchild: {} } });
  });
  test('A.12 add to a nonexistent target fails', () => {
    const r = applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]);
    expect(r).toEqual({ ok: false, index: 0, error: 'add operation does not apply: doc is missing path: "/baz/bat": missing value' });
  });
  test('A.14 ~ escape ordering', () => {
    expect(
      ok({ '/': 9, '~1': 10 }, [
        { op: 'test', path: '/~01', value: 10 },
        { op: 'replace', path: '/~1', value: 1 },
      ]),
    ).toEqual({ '/': 1, '~1': 10 });
  });
  test('A.16 add an array value', () => {
    expect(ok({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }])).toEqual({ foo: ['bar', ['abc', 'def']] });
  });
  test('copy deep-copies; remove/replace of missing paths fail; the input is never modified', () => {
    const doc = { a: { b: [1] } };
    const out = ok(doc, [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'add', path: '/c/b/-', value: 2 },
    ]);
    expect(out).toEqual({ a: { b: [1] }, c: { b: [1, 2] } });
    expect(doc).toEqual({ a: { b: [1] } });
    // json-patch v4 (the apiserver's): remove of a missing key fails with its words; replace of one
    // an object lacks sets it, of an index an array lacks fails; under a missing parent both fail
    expect(applyJsonPatch(doc, [{ op: 'remove', path: '/x' }])).toEqual({
      ok: false,
      index: 0,
      error: "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value",
    });
    expect(ok(doc, [{ op: 'replace', path: '/x', value: 1 }])).toEqual({ a: { b: [1] }, x: 1 });
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '/a/b/3', value: 1 }])).toMatchObject({
      ok: false,
      error: 'replace operation does not apply: doc is missing key: /a/b/3: missing value',
    });
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '/y/z', value: 1 }])).toMatchObject({
      ok: false,
      error: 'replace operation does not apply: doc is missing path: /y/z: missing value',
    });
    expect(applyJsonPatch(doc, [{ op: 'move', from: '/a/nope', path: '/c' }])).toMatchObject({
      ok: false,
      error: "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value",
    });
    expect(applyJsonPatch(doc, [{ op: 'add', path: '/a/b/5', value: 1 }])).toMatchObject({ ok: false });
    expect(applyJsonPatch(doc, [{ op: 'bogus', path: '/a' }])).toMatchObject({ ok: false, error: 'Unexpected kind: bogus' });
  });
  test('copied on write: the input is never modified, what no operation touched is shared, a container shared twice is changed at one place', () => {
    const shared = { x: [1] };
    const doc = { meta: { labels: { a: '1' } }, spec: { big: { deep: [{ n: 1 }] } }, one: shared, two: shared };
    const before = JSON.stringify(doc);
    const out = ok(doc, [
      { op: 'add', path: '/meta/labels/b', value: '2' },
      { op: 'replace', path: '/meta/labels/a', value: '3' },
      { op: 'add', path: '/one/x/-', value: 2 },
      { op: 'move', from: '/spec/big', path: '/moved' },
      { op: 'add', path: '/moved/deep/0/m', value: 0 },
    ]) as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(doc)).toBe(before);
    expect(out).toEqual({ meta: { labels: { a: '3', b: '2' } }, spec: {}, one: { x: [1, 2] }, two: { x: [1] }, moved: { deep: [{ n: 1, m: 0 }] } });
    expect(out.two).toBe(shared);
    expect(out.meta).not.toBe(doc.meta);
    // a failed patch leaves the input as it was, whatever it copied before failing
    expect(
      applyJsonPatch(doc, [
        { op: 'add', path: '/meta/labels/c', value: 'x' },
        { op: 'remove', path: '/nope' },
      ]),
    ).toMatchObject({ ok: false, index: 1 });
    expect(JSON.stringify(doc)).toBe(before);
  });
  test('pointers', () => {
    expect(parsePointer('/metadata/labels/example.com~1environment')).toEqual(['metadata', 'labels', 'example.com/environment']);
    expect(parsePointer('x')).toBeUndefined();
    expect(formatPointer(['a~b', 'c/d', 0])).toBe('/a~0b/c~1d/0');
  });
});

describe('diffJson', () => {
  test('add, remove, replace with pointers', () => {
    expect(diffJson({ a: 1, b: { c: [1, 2] }, 'x/y': 1 }, { a: 2, b: { c: [1] }, d: true })).toEqual([
      { path: '/a', op: 'replace', before: 1, after: 2 },
      { path: '/b/c/1', op: 'remove', before: 2 },
      { path: '/x~1y', op: 'remove', before: 1 },
      { path: '/d', op: 'add', after: true },
    ]);
    expect(diffJson({ a: [1] }, { a: [1] })).toEqual([]);
  });
});

describe('apply-configuration merge (structured-merge-diff semantics without schemas)', () => {
  test('maps merge recursively; scalars replace', () => {
    expect(mergeApplyConfiguration({ metadata: { labels: { a: '1', b: '2' }, name: 'x' } }, { metadata: { labels: { b: '3', c: '4' } } })).toEqual({
      metadata: { labels: { a: '1', b: '3', c: '4' }, name: 'x' },
    });
  });
  test('list maps merge by key: live-only items stay in place, new ones follow', () => {
    const notes: ListMergeNote[] = [];
    const live = {
      spec: {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
      },
    };
    const patch = {
      spec: {
        containers: [
          { name: 'b', image: 'b:2' },
          { name: 'c', image: 'c:1' },
        ],
      },
    };
    expect(mergeApplyConfiguration(live, patch, notes)).toEqual({
      spec: {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:2' },
          { name: 'c', image: 'c:1' },
        ],
      },
    });
    expect(notes).toEqual([{ path: '/spec/containers', mode: 'merge-by-key', keys: ['name'] }]);
  });
  test('shared items follow the patch order (visitListItems)', () => {
    const live = {
      env: [
        { name: 'x', value: '1' },
        { name: 'y', value: '1' },
        { name: 'z', value: '1' },
      ],
    };
    const patch = {
      env: [
        { name: 'z', value: '2' },
        { name: 'x', value: '2' },
      ],
    };
    expect(mergeApplyConfiguration(live, patch)).toEqual({
      env: [
        { name: 'y', value: '1' },
        { name: 'z', value: '2' },
        { name: 'x', value: '2' },
      ],
    });
  });
  test('a new item before a shared one lands before it', () => {
    const live = { volumes: [{ name: 'a' }, { name: 'b' }] };
    expect(mergeApplyConfiguration(live, { volumes: [{ name: 'n' }, { name: 'b', emptyDir: {} }] })).toEqual({
      volumes: [{ name: 'a' }, { name: 'n' }, { name: 'b', emptyDir: {} }],
    });
  });
  test('finalizers are a set; unknown lists are replaced and reported', () => {
    const notes: ListMergeNote[] = [];
    const out = mergeApplyConfiguration(
      { metadata: { finalizers: ['a', 'b'] }, spec: { args: ['x', 'y'] } },
      { metadata: { finalizers: ['c', 'a'] }, spec: { args: ['z'] } },
      notes,
    );
    expect(out).toEqual({ metadata: { finalizers: ['c', 'a', 'b'] }, spec: { args: ['z'] } });
    expect(notes).toEqual([
      { path: '/metadata/finalizers', mode: 'set' },
      { path: '/spec/args', mode: 'replace' },
    ]);
  });

  test("json-patch v4's reading of indices and paths, as the apiserver applies webhook and policy patches (checked against a kube-apiserver 1.37)", () => {
    const doc = { f: ['a', 'b'], data: { k: 'v' } };
    // strconv.Atoi and negative indices: -1 is the last (add: the end), 01 and +0 are numbers
    expect(ok(doc, [{ op: 'add', path: '/f/-1', value: 'z' }])).toEqual({ f: ['a', 'b', 'z'], data: { k: 'v' } });
    expect(ok(doc, [{ op: 'add', path: '/f/-3', value: 'z' }])).toEqual({ f: ['z', 'a', 'b'], data: { k: 'v' } });
    expect(ok(doc, [{ op: 'remove', path: '/f/-1' }])).toEqual({ f: ['a'], data: { k: 'v' } });
    expect(ok(doc, [{ op: 'replace', path: '/f/01', value: 'z' }])).toEqual({ f: ['a', 'z'], data: { k: 'v' } });
    expect(ok(doc, [{ op: 'add', path: '/f/+0', value: 'z' }])).toEqual({ f: ['z', 'a', 'b'], data: { k: 'v' } });
    expect(ok(doc, [{ op: 'move', from: '/f/-1', path: '/f/0' }])).toEqual({ f: ['b', 'a'], data: { k: 'v' } });
    expect(applyJsonPatch(doc, [{ op: 'remove', path: '/f/-3' }])).toMatchObject({
      ok: false,
      error: "error in remove for path: '/f/-3': Unable to access invalid index: -3: invalid index referenced",
    });
    // copy of a key an object lacks copies null; a path's first segment is never read
    expect(ok(doc, [{ op: 'copy', from: '/data/nope', path: '/data/c' }])).toEqual({ f: ['a', 'b'], data: { k: 'v', c: null } });
    expect(ok(doc, [{ op: 'add', path: 'x/data/n', value: '1' }])).toEqual({ f: ['a', 'b'], data: { k: 'v', n: '1' } });
  });
  test("test: a missing parent or index fails the patch; a missing key passes a test with no value, and a JSON patch's null is no value", () => {
    const doc = { f: ['a'], data: { k: 'v' } };
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/meta/x', value: 1 }])).toMatchObject({
      ok: false,
      error: 'test operation does not apply: is missing path: /meta/x: missing value',
    });
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/f/5', value: 1 }])).toMatchObject({
      ok: false,
      error: "error in test for path: '/f/5': Unable to access invalid index: 5: invalid index referenced",
    });
    const nullTest = [
      { op: 'test', path: '/data/nope', value: null },
      { op: 'add', path: '/data/t', value: 'y' },
    ];
    // read from JSON (a webhook's patch): null is no value, the test passes
    expect(applyJsonPatch(doc, nullTest, { json: true })).toEqual({ ok: true, value: { f: ['a'], data: { k: 'v', t: 'y' } } });
    // a policy's CEL null is the value null: the test fails, the patch is not applied
    expect(applyJsonPatch(doc, nullTest)).toEqual({ ok: true, value: doc, testFailed: { index: 0, path: '/data/nope' } });
  });
});
