/**
 * applyEdits on a string written over several lines (./edit-refold.ts): each style keeps its
 * line breaks, only the lines whose words changed change, and every result reads back as the
 * new value. Property-tested on every multi-line string of the real-world corpus.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fixturePath } from '../../fixtures';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { PathSegment } from '../base/path';
import { isObject } from '../base/json';
import { seededRandom as rng } from '../base/random';
import { applyEdits, parseDocuments, splitDocuments, type EditResult } from './index';

const read = (text: string): unknown => {
  const r = parseDocuments(text, { unwrapLists: false });
  expect(r.errors).toEqual([]);
  return r.documents[0]!.object;
};

/** The value at `path` replaced by `f(old value)`: the result, its lines that differ (`old → new`), and a check that it reads back. */
function edit(text: string, path: readonly PathSegment[], f: (v: string) => string): { r: EditResult; lines: string[] } {
  const before = read(text);
  const old = path.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k as string], before) as string;
  const value = f(old);
  const r = applyEdits(text, [{ path, value }]);
  expect(r.error).toBeUndefined();
  const set = (o: unknown, i: number): unknown =>
    i === path.length
      ? value
      : Array.isArray(o)
        ? o.map((x, j) => (j === path[i] ? set(x, i + 1) : x))
        : { ...(o as object), [path[i]!]: set((o as Record<string, unknown>)[path[i] as string], i + 1) };
  expect(read(r.text)).toEqual(set(before, 0));
  return { r, lines: differing(text, r.text) };
}

/** The lines of `b` that differ from `a` (the same number of lines) as `old → new`. */
function differing(a: string, b: string): string[] {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length !== y.length) return [`${x.length} lines → ${y.length} lines`];
  return y.flatMap((l, i) => (l === x[i] ? [] : [`${x[i]} → ${l}`]));
}

// Gateway API's safe-upgrades policy, as shipped: a CEL expression folded over five lines, trailing blanks included.
const GATEWAY = `spec:
  validations:
    - expression: "object.spec.group != 'gateway.networking.k8s.io' || oldObject == null || (
        has(object.metadata.annotations) && object.metadata.annotations.exists(k, k == 'gateway.networking.k8s.io/channel') && 
        object.metadata.annotations['gateway.networking.k8s.io/channel'] == 'standard' ) || (
        oldObject != null && has(oldObject.metadata.annotations) && oldObject.metadata.annotations.exists(k, k == 'gateway.networking.k8s.io/channel') && 
        oldObject.metadata.annotations['gateway.networking.k8s.io/channel'] == 'experimental' )"
      message: "Installing experimental CRDs on top of standard channel CRDs is prohibited by default.
        Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install
        experimental CRDs on top of standard channel CRDs."
      reason: Invalid
`;
const EXPR = ['spec', 'validations', 0, 'expression'];

describe('a multi-line double-quoted scalar (Gateway API safe-upgrades)', () => {
  test('one word changed: only its line changes', () => {
    const { r, lines } = edit(GATEWAY, EXPR, (v) => v.replace("== 'standard'", "== 'stable'"));
    expect(lines).toEqual([
      "        object.metadata.annotations['gateway.networking.k8s.io/channel'] == 'standard' ) || ( → " +
        "        object.metadata.annotations['gateway.networking.k8s.io/channel'] == 'stable' ) || (",
    ]);
    expect(r.changed).toEqual([{ startLine: 5, endLine: 5, oldStartLine: 5, oldEndLine: 5 }]);
    // the trailing blanks of the other lines stay
    expect(r.text).toBe(GATEWAY.replace("'standard' )", "'stable' )"));
  });

  test('the multi-line message: one word, one line', () => {
    const { lines } = edit(GATEWAY, ['spec', 'validations', 0, 'message'], (v) => v.replace('Uninstall', 'Remove'));
    expect(lines).toEqual([
      '        Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install →         Remove ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install',
    ]);
  });

  test('a change across a line break changes the lines it touches; the break moves to the nearest space kept', () => {
    // `( has(`: the `(` ending line 3 and the break after it removed
    const { lines } = edit(GATEWAY, EXPR, (v) => v.replace('( has(', 'has('));
    expect(lines).toEqual([
      `    - expression: "object.spec.group != 'gateway.networking.k8s.io' || oldObject == null || ( →     - expression: "object.spec.group != 'gateway.networking.k8s.io' || oldObject == null ||`,
    ]);
    // two words joined over a break: the break goes to a space nearby, the two lines change
    const joined = edit(GATEWAY, EXPR, (v) => v.replace('( has(', '(has('));
    expect(joined.r.changed).toEqual([{ startLine: 3, endLine: 4, oldStartLine: 3, oldEndLine: 4 }]);
    expect(joined.r.text.split('\n')[2]).toMatch(/\|\| \(has\(object\.metadata\.annotations\) &&$/);
  });

  test('a line grown past the widest one is folded again at a space; the lines after it stay', () => {
    const { r } = edit(GATEWAY, EXPR, (v) => v.replace("== 'standard'", `== 'standard' && ${'a.b && '.repeat(20)}true`));
    const out = r.text.split('\n');
    const width = Math.max(...GATEWAY.split('\n').map((l) => l.length));
    expect(Math.max(...out.map((l) => l.length))).toBeLessThanOrEqual(width);
    expect(out.slice(0, 4)).toEqual(GATEWAY.split('\n').slice(0, 4));
    expect(out.slice(-7)).toEqual(GATEWAY.split('\n').slice(-7));
    expect(r.changed).toEqual([{ startLine: 5, endLine: 6, oldStartLine: 5, oldEndLine: 5 }]);
  });

  test('a new value of other words: written in the same style, as short as it is', () => {
    const { r } = edit(GATEWAY, EXPR, () => 'true');
    expect(r.text).toBe(GATEWAY.replace(/"object\.spec[^"]*"/, '"true"'));
  });

  test('a newline typed into it is an escape (the lines stay); a blank at a break is escaped', () => {
    const { lines } = edit(GATEWAY, EXPR, (v) => v.replace('|| oldObject', '||\noldObject'));
    expect(lines).toEqual([expect.stringContaining(`'gateway.networking.k8s.io' ||\\noldObject == null || (`)]);
    expect(edit('a:\n  s: "one two\n    three"\n', ['a', 's'], (v) => v.replace('two', 'two ')).lines).toEqual(['    three" →     \\x20three"']);
    expect(edit('a:\n  s: "one two\n    three"\n', ['a', 's'], (v) => v.replace('one', 'one ')).lines).toEqual(['  s: "one two →   s: "one  two']);
  });
});

describe('each style keeps its lines', () => {
  test('single-quoted and plain, with an empty line (a newline of the value)', () => {
    expect(edit("a:\n  s: 'it''s one\n    three four\n    five'\n", ['a', 's'], (v) => v.replace('three', "it's")).lines).toEqual([
      "    three four →     it''s four",
    ]);
    const plain = 'a:\n  s: one two\n    three four\n\n    five six\n  t: 1\n';
    expect(edit(plain, ['a', 's'], (v) => v.replace('five', 'FIVE')).lines).toEqual(['    five six →     FIVE six']);
    expect(edit(plain, ['a', 's'], (v) => v.replace('four', 'four\n')).r.text).toBe(plain.replace('\n\n', '\n\n\n'));
    // a plain scalar cannot hold `: `: the value is written whole, and reads back
    expect(edit(plain, ['a', 's'], (v) => v.replace('two', 'two: x')).r.text).toBe('a:\n  s: |-\n    one two: x three four\n    five six\n  t: 1\n');
  });

  test('a double-quoted line that ends in an escaped break keeps it', () => {
    const text = 'a:\n  s: "one two\\\n    three four \\\n    five"\n';
    expect(edit(text, ['a', 's'], (v) => v.replace('four', 'FOUR')).lines).toEqual(['    three four \\ →     three FOUR \\']);
  });

  test('a literal block keeps its indentation; a changed chomping changes the header line only', () => {
    const text = 'a:\n  s: |\n      line one\n      line two\n      line three\n  t: 1\n';
    expect(edit(text, ['a', 's'], (v) => v.replace('two', '2')).lines).toEqual(['      line two →       line 2']);
    const chomped = edit(text, ['a', 's'], (v) => v.replace('two', '2').replace(/\n$/, ''));
    expect(chomped.lines).toEqual(['  s: | →   s: |-', '      line two →       line 2']);
    expect(chomped.r.changed).toEqual([
      { startLine: 2, endLine: 2, oldStartLine: 2, oldEndLine: 2 },
      { startLine: 4, endLine: 4, oldStartLine: 4, oldEndLine: 4 },
    ]);
  });

  test('a folded block stays folded, more-indented lines included', () => {
    const text = 'a:\n  s: >\n    line one\n    line two\n\n    line three\n  t: 1\n';
    expect(edit(text, ['a', 's'], (v) => v.replace('two', '2')).lines).toEqual(['    line two →     line 2']);
    const spaced = 'a:\n  s: >-\n    line one\n    line two\n      spaced\n    line three\n  t: 1\n';
    expect(edit(spaced, ['a', 's'], (v) => v.replace('three', '3')).lines).toEqual(['    line three →     line 3']);
  });

  test('CRLF line ends, a list item, a comment after the scalar', () => {
    const crlf = 'a:\r\n  s: "one\r\n    two\r\n    three"  # c\r\n';
    const r = edit(crlf, ['a', 's'], (v) => v.replace('three', '3'));
    expect(r.r.text).toBe(crlf.replace('three', '3'));
    expect(edit('l:\n  - "one\n    two"\n', ['l', 0], (v) => v.replace('two', 'zwei')).lines).toEqual(['    two" →     zwei"']);
  });

  test('keystrokes on the text each edit returned: one line each, read back', () => {
    let text = GATEWAY;
    let value = (read(text) as { spec: { validations: { expression: string }[] } }).spec.validations[0]!.expression;
    const at = value.indexOf("'experimental'");
    for (const c of " || object.kind == 'x'") {
      value = value.slice(0, at) + c + value.slice(at);
      const r = applyEdits(text, [{ path: EXPR, value }]);
      expect(r.error).toBeUndefined();
      expect(r.changed.map((ch) => [ch.startLine, ch.endLine])).toEqual([[7, 7]]);
      text = r.text;
      expect((read(text) as { spec: { validations: { expression: string }[] } }).spec.validations[0]!.expression).toBe(value);
    }
  });
});

/** The real-world corpus and the fixtures the other tests carry (each text once). */
const FIXTURE_DIRS = [
  fixturePath('realworld'),
  fixturePath('validation'),
  fixturePath('fixes'),
  resolve(__dirname, 'fixtures'),
  resolve(__dirname, '../admission/fixtures'),
];
const seen = new Set<string>();
const documents = FIXTURE_DIRS.flatMap((dir) => readdirSync(dir).map((f) => join(dir, f)))
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .flatMap((f) => {
    const text = readFileSync(f, 'utf8');
    if (seen.has(text)) return [];
    seen.add(text);
    return splitDocuments(text).map((c, i) => ({ name: `${f.slice(f.lastIndexOf('/') + 1)}#${i}`, text: text.slice(c.start, c.end) }));
  });

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Every string of a document written over several lines, with where its text is. */
function multiLineStrings(text: string): { path: PathSegment[]; value: string; start: number; end: number }[] {
  const r = parseDocuments(text, { unwrapLists: false });
  if (r.errors.length || r.documents.length !== 1) return [];
  const doc = r.documents[0]!;
  const out: { path: PathSegment[]; value: string; start: number; end: number }[] = [];
  const walk = (v: unknown, path: PathSegment[]): void => {
    if (typeof v === 'string') {
      const p = doc.positions.positionOf(path).value;
      if (p.endLine > p.startLine) out.push({ path, value: v, start: p.startOffset, end: p.endOffset });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isObject(v)) for (const k of Object.keys(v)) walk(v[k], [...path, k]);
  };
  walk(doc.object, []);
  return out;
}

describe('every multi-line string of the corpus', () => {
  const strings = documents.flatMap((d) => multiLineStrings(d.text).map((s) => ({ ...s, doc: d })));

  test('there are some, in several styles', () => {
    expect(strings.length).toBeGreaterThan(20);
    expect(new Set(strings.map((s) => s.doc.text[s.start])).size).toBeGreaterThanOrEqual(3);
  });

  test('a word replaced by one as long: the text is the old one with that word replaced, nothing else', () => {
    let checked = 0;
    for (const s of strings) {
      const raw = s.doc.text.slice(s.start, s.end);
      // a word that appears once in the value and once in its text, without escapes
      const word = [...new Set(s.value.match(/[A-Za-z0-9_]{3,}/g) ?? [])].find((w) => s.value.split(w).length === 2 && raw.split(w).length === 2);
      if (!word) continue;
      const other = word === 'x'.repeat(word.length) ? 'y'.repeat(word.length) : 'x'.repeat(word.length);
      const r = applyEdits(s.doc.text, [{ path: s.path, value: s.value.replace(word, other) }]);
      const where = `${s.doc.name} ${s.path.join('.')} ${word}`;
      expect(r.error, where).toBeUndefined();
      expect(r.text, where).toBe(s.doc.text.slice(0, s.start) + raw.replace(word, other) + s.doc.text.slice(s.end));
      expect(r.changed.length, where).toBe(1);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  test('random words removed, added and joined: reads back, the lines outside the scalar stay, few lines change', () => {
    const r = rng(14);
    for (const s of strings) {
      for (let run = 0; run < 12; run++) {
        const words = [...s.value.matchAll(/\S+/g)];
        if (words.length < 2) continue;
        const w = words[Math.floor(r() * words.length)]!;
        const at = w.index;
        const roll = r();
        const tricky = roll >= 0.9 ? pick(r, ["it's ", '"q" ', 'a\\b ', '#x ', 'a: b ', 'ü ', '\t ', ' ', '- ']) : undefined;
        const value = tricky
          ? s.value.slice(0, at) + tricky + s.value.slice(at)
          : roll < 0.3
            ? s.value.slice(0, at) + s.value.slice(at + w[0].length).replace(/^ /, '')
            : roll < 0.6
              ? `${s.value.slice(0, at)}added ${s.value.slice(at)}`
              : roll < 0.75
                ? s.value.slice(0, at + w[0].length) + s.value.slice(at + w[0].length).replace(/^\s+/, '')
                : `${s.value.slice(0, at)}${w[0]}\n${s.value.slice(at + w[0].length)}`;
        const res = applyEdits(s.doc.text, [{ path: s.path, value }]);
        const where = `${s.doc.name} ${s.path.join('.')} ${JSON.stringify(value.slice(Math.max(0, at - 20), at + 40))}`;
        expect(res.error, where).toBeUndefined();
        const after = read(res.text);
        const got = s.path.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k as string], after);
        expect(got, where).toBe(value);
        // before the scalar and after it, the text is the same
        expect(res.text.slice(0, s.start), where).toBe(s.doc.text.slice(0, s.start));
        expect(res.text.endsWith(s.doc.text.slice(s.end)), where).toBe(true);
        const oldLines = s.doc.text.slice(s.start, s.end).split('\n').length;
        const changed = res.changed.reduce((n, c) => n + Math.max(c.endLine - c.startLine + 1, c.oldEndLine - c.oldStartLine + 1), 0);
        // (a value that now starts with a blank or a newline is written whole: a block scalar would need an indentation indicator)
        if (!tricky && !/^\s/.test(value)) expect(changed, where).toBeLessThanOrEqual(Math.min(oldLines + 1, 3));
      }
    }
  });
});
