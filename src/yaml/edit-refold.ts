/**
 * A new value written into a multi-line scalar in its own style and line structure: the lines
 * whose words did not change stay byte for byte, the changed region is written at the
 * original's line breaks (mapped through a word diff) and folded again at the scalar's width
 * only where it grows past it. Every result is read back by the parser before it is used;
 * undefined means the caller writes the value as a whole. Design: ./README.md (Edit).
 */
import { diffLines } from './line-diff';
import { parseDocuments } from './parse';
import { scalarShape, type ScalarShape } from './scalar-shape';
import { doubleQuote } from './serialize';

/** Where the scalar is: its node's range, and the key (`k:`) or dash (`-`) that holds it, by column. */
export interface ScalarPlace {
  text: string;
  start: number;
  end: number;
  /** The column of the scalar's first character. */
  col: number;
  holder: { kind: 'key' | 'dash'; col: number };
}

interface Break {
  /** Offset in the region's new value, and how many of its characters the break stands for. */
  at: number;
  len: number;
  kind: 'fold' | 'escaped' | 'newlines';
}

const space = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n';

/**
 * The splices that turn the scalar at `place` (which reads as `before`) into one that reads as
 * `after`, keeping its style and its unchanged lines; undefined when it is not a multi-line
 * scalar of a shape read here, or no such text reads back as `after`.
 */
export function refoldScalar(place: ScalarPlace, before: string, after: string): { start: number; end: number; insert: string }[] | undefined {
  const raw = place.text.slice(place.start, place.end);
  if (!raw.includes('\n')) return undefined;
  const shape = scalarShape(raw, before);
  if (!shape) return undefined;
  const eol = raw.includes('\r\n') ? '\r\n' : '\n';
  // A block scalar's leading newlines stay; its trailing ones are its chomping (`|-` none, `|` one,
  // `|+` all: the empty lines after its last line, outside its range, are left as they are).
  const tailNew = shape.chomp === undefined ? '' : /\n*$/.exec(after)![0];
  let header = '';
  let kept = '';
  if (shape.chomp !== undefined && tailNew !== shape.tail) {
    if (shape.chomp === '+') return undefined;
    const chomp = tailNew === '' ? '-' : tailNew === '\n' ? '' : '+';
    header = raw[0] + chomp + raw.slice(1 + shape.chomp.length, raw.indexOf('\n'));
    if (chomp === '+') {
      // the empty lines after it are its value's then too
      const blanks = (/^\r?\n((?:[ \t]*\r?\n)*)/.exec(place.text.slice(place.end))?.[1]?.match(/\n/g) ?? []).length;
      if (tailNew.length - 1 < blanks) return undefined;
      kept = eol.repeat(tailNew.length - 1 - blanks);
    }
  }
  if (!after.startsWith(shape.head) || after.length < shape.head.length + tailNew.length) return undefined;
  const body = after.slice(shape.head.length, after.length - tailNew.length);
  if (shape.chomp !== undefined && (body === '' || body.startsWith('\n'))) return undefined;

  const old = shape.body;
  const max = Math.min(old.length, body.length);
  let p = 0;
  while (p < max && old[p] === body[p]) p++;
  let s = 0;
  while (s < max - p && old[old.length - 1 - s] === body[body.length - 1 - s]) s++;
  const L = shape.lines;
  const m = L.length - 1;
  let a = 0;
  for (let i = m; i >= 0; i--)
    if (L[i]!.st <= p) {
      a = i;
      break;
    }
  let b = L.findIndex((l) => l.en >= old.length - s);
  if (b < a) b = a;
  // The changed lines; if that does not read back (a line left empty, a blank at a break), more of them.
  // Each folded again where it grows past the scalar's width (if its author folded it: it has two lines or more), else not.
  const tried = new Set<string>();
  for (const [x, y, refill] of [
    [a, b, m > 0],
    [a, b, false],
    [Math.max(0, a - 1), Math.min(m, b + 1), m > 0],
    [0, m, false],
  ] as const) {
    if (tried.has(`${x},${y},${refill}`)) continue;
    tried.add(`${x},${y},${refill}`);
    // (a line left empty keeps no indentation: blanks there are no content, in a block scalar up to its indentation)
    const from = raw.lastIndexOf('\n', L[x]!.cs - 1) + 1;
    const written = (raw.slice(from, L[x]!.cs) + region(shape, raw, place, body, x, y, eol, refill)).replace(/^[ \t]+(?=\r?\n)/gm, (w) =>
      shape.indent !== undefined && w.length > shape.indent ? w : '',
    );
    const next = raw.slice(0, from) + written + raw.slice(L[y]!.ce) + kept;
    if (!readsAs(place, header ? header + next.slice(raw.indexOf('\n')) : next, after)) continue;
    // Two splices when the header changes too, so that the lines between them stay unchanged.
    const nl = raw.indexOf('\n');
    const body1 = smallest(raw.slice(nl), next.slice(nl), place.start + nl);
    const splices = header ? [smallest(raw.slice(0, nl), header, place.start), body1] : [smallest(raw, next, place.start)];
    return splices.filter((sp) => sp.start !== sp.end || sp.insert !== '');
  }
  return undefined;
}

/** The splice that turns `from` (at offset `at`) into `to`: their common start and end left out. */
function smallest(from: string, to: string, at: number): { start: number; end: number; insert: string } {
  let p = 0;
  while (p < from.length && p < to.length && from[p] === to[p]) p++;
  let s = 0;
  while (s < from.length - p && s < to.length - p && from[from.length - 1 - s] === to[to.length - 1 - s]) s++;
  return { start: at + p, end: at + from.length - s, insert: to.slice(p, to.length - s) };
}

/** The text of content lines x..y (from the first one's content to the last one's) written anew for `body`, the new value's body. */
function region(shape: ScalarShape, raw: string, place: ScalarPlace, body: string, x: number, y: number, eol: string, refill: boolean): string {
  const L = shape.lines;
  const J = shape.joints;
  const old = shape.body;
  const st = L[x]!.st;
  const before = old.slice(st, L[y]!.en);
  const now = body.slice(st, body.length - (old.length - L[y]!.en));
  const map = matchWords(before, now);
  const block = shape.chomp !== undefined;
  const lineStart = (off: number) => raw.lastIndexOf('\n', off - 1) + 1;
  const leadOf = (i: number) => (block ? ' '.repeat(shape.indent!) : raw.slice(lineStart(L[i]!.cs), L[i]!.cs));
  // (a flow scalar's first line has no lead: a new line takes the next one's)
  const lead = (k: number) => leadOf(x + k >= 1 && x + k <= y ? x + k : Math.max(y, 1));
  // (a folded block's more-indented line keeps its breaks: it is never folded)
  const spacedLine = (z: number) => block && space(body[body.lastIndexOf('\n', st + z - 1) + 1]);
  const breakable = (z: number) =>
    now[z] === ' ' &&
    z > 0 &&
    z + 1 < now.length &&
    !space(now[z - 1]) &&
    !space(now[z + 1]) &&
    !(shape.style === 'plain' && now[z + 1] === '#') &&
    !(shape.style === 'folded' && spacedLine(z));

  // The old breaks inside the region, where their words still are.
  const breaks: Break[] = [];
  const structural = new Set<number>();
  for (let i = x; i < y; i++) {
    const j = J[i]!;
    const at = L[i]!.en - st;
    if (j.kind === 'fold') {
      let z = map[at]!;
      if (z < 0 || !breakable(z)) {
        // its space went with a changed word: the space beside the nearest word kept, after it or before it
        let r = at + 1;
        while (r < before.length && map[r]! < 0) r++;
        let l = at - 1;
        while (l >= 0 && map[l]! < 0) l--;
        const right = r < before.length ? map[r]! - 1 : -1;
        const left = l >= 0 ? map[l]! + 1 : -1;
        z = breakable(right) ? right : breakable(left) ? left : -1;
      }
      if (z >= 0) breaks.push({ at: z, len: 1, kind: 'fold' });
    } else if (j.kind === 'escaped' && j.text === '') {
      const z = at > 0 && map[at - 1]! >= 0 ? map[at - 1]! + 1 : at < before.length ? map[at]! : -1;
      if (z > 0 && z < now.length) breaks.push({ at: z, len: 0, kind: 'escaped' });
    } else for (let c = 0; c < j.text.length; c++) if (map[at + c]! >= 0) structural.add(map[at + c]!);
  }
  // Newlines: a double-quoted scalar writes a new one as `\n`, the others (and the old ones) as empty lines.
  for (let z = 0; z < now.length; ) {
    if (now[z] !== '\n') {
      z++;
      continue;
    }
    let e = z;
    let keep = shape.style !== 'double';
    for (; e < now.length && now[e] === '\n'; e++) keep ||= structural.has(e);
    if (keep) breaks.push({ at: z, len: e - z, kind: 'newlines' });
    z = e;
  }
  breaks.sort((u, v) => u.at - v.at);
  const kept: Break[] = [];
  for (const br of breaks) {
    const prev = kept[kept.length - 1];
    if (!prev || br.at > prev.at + prev.len) kept.push(br);
  }

  // Lines longer than the scalar's widest: folded again at a space (a literal block's lines are its value's).
  if (refill && shape.style !== 'literal') {
    const width = Math.max(...raw.split('\n').map((l, i) => l.replace(/\r$/, '').length + (i === 0 ? place.col : 0)));
    const colOf = (off: number) => off - lineStart(off) + (lineStart(off) === 0 ? place.col : 0);
    const folded: Break[] = [];
    let from = 0;
    let col = colOf(L[x]!.cs);
    for (let k = 0; k <= kept.length; k++) {
      const to = k < kept.length ? kept[k]!.at : now.length;
      while (col + (to - from) > width) {
        let z = -1;
        for (let c = from + 1; c < to; c++) if (breakable(c) && (z < 0 || col + (c - from) <= width)) z = c;
        if (z < 0) break;
        folded.push({ at: z, len: 1, kind: 'fold' });
        from = z + 1;
        col = lead(1).length;
      }
      if (k < kept.length) {
        folded.push(kept[k]!);
        from = kept[k]!.at + kept[k]!.len;
        col = lead(1).length;
      }
    }
    kept.splice(0, kept.length, ...folded);
  }

  // Written out: each line in the scalar's style, joined by the breaks.
  let out = '';
  let from = 0;
  for (let k = 0; k <= kept.length; k++) {
    const br = kept[k];
    const to = br ? br.at : now.length;
    const pre = k > 0 || x > 0;
    const post = br ? br.kind !== 'escaped' : y < L.length - 1 && J[y]!.kind !== 'escaped';
    out += encode(shape, now.slice(from, to), pre, post);
    if (!br) break;
    if (br.kind === 'fold') out += eol;
    else if (br.kind === 'escaped') out += `\\${eol}`;
    else {
      // k newlines between text lines are k empty lines; in a literal block, or beside a folded block's spaced line, k breaks
      const kept1 = shape.style === 'literal' || spacedLine(br.at) || space(now[br.at + br.len]);
      out += eol.repeat(kept1 ? br.len : br.len + 1);
    }
    out += lead(k + 1);
    from = br.at + br.len;
  }
  return out;
}

/** One line's value in the scalar's style; `pre`/`post`: a break before/after it strips its leading/trailing blanks. */
function encode(shape: ScalarShape, s: string, pre: boolean, post: boolean): string {
  if (shape.style === 'single') return s.replace(/'/g, "''");
  if (shape.style !== 'double') return s;
  let e = doubleQuote(s).slice(1, -1);
  if (pre && e.startsWith(' ')) e = `\\x20${e.slice(1)}`;
  if (post && e.endsWith(' ')) e = `${e.slice(0, -1)}\\x20`;
  return e;
}

/** For each character of `a`, where it is in `b` when its word (or blank) is one the two texts share (a word diff), else -1. */
function matchWords(a: string, b: string): Int32Array {
  const map = new Int32Array(a.length).fill(-1);
  const words = (s: string) => [...s.matchAll(/\s|[^\s]+/g)].map((w) => ({ t: w[0], at: w.index }));
  const wa = words(a);
  const wb = words(b);
  if (!wa.length || !wb.length) return map;
  // (diffLines aligns lines: one word a line, a newline written as a character no word holds alone)
  const line = (w: { t: string }) => (w.t === '\n' ? '\u2028\u2029' : w.t);
  let i = 0;
  let j = 0;
  for (const d of diffLines(wa.map(line).join('\n'), wb.map(line).join('\n'))) {
    if (d.op === ' ') {
      for (let c = 0; c < wa[i]!.t.length; c++) map[wa[i]!.at + c] = wb[j]!.at + c;
      i++;
      j++;
    } else if (d.op === '-') i++;
    else j++;
  }
  return map;
}

/** Whether `raw`, placed as the scalar is (under a key or a dash at its column, with what follows it on its last line), reads as `value`. */
function readsAs(place: ScalarPlace, raw: string, value: string): boolean {
  const rest = /^[^\n]*\n?(?:[ \t]*\r?\n)*/.exec(place.text.slice(place.end))![0];
  const pad = ' '.repeat(place.holder.col);
  const { kind, col } = place.holder;
  const snippet = kind === 'dash' ? `k:\n${pad}- ${raw}${rest}` : col === 0 ? `k: ${raw}${rest}` : `k:\n${pad}k: ${raw}${rest}`;
  const r = parseDocuments(snippet);
  if (r.errors.length || r.documents.length !== 1) return false;
  const k = (r.documents[0]!.object as { k?: unknown }).k;
  const v = kind === 'dash' ? (Array.isArray(k) ? k[0] : undefined) : col === 0 ? k : (k as { k?: unknown } | null)?.k;
  return v === value;
}
