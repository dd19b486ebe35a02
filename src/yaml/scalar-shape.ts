/**
 * The line structure of a multi-line scalar's text, by YAML's folding rules: which part of each
 * line is content, what that content reads as, and what joins it to the next content line (a
 * break folded to a space, empty lines, a double-quoted `\` break, a break kept as a newline).
 * ./edit-refold.ts writes a new value into that structure. Design: ./README.md (Edit).
 */

export type ScalarStyle = 'double' | 'single' | 'plain' | 'folded' | 'literal';

export interface ContentLine {
  /** The content's offsets in the scalar's text (its indentation, a quote, the blanks a break strips and an escaping `\` are outside). */
  cs: number;
  ce: number;
  /** What it reads as: its range in `body`. */
  st: number;
  en: number;
}

/**
 * What joins two content lines in the value: `fold` a break read as one space, `newlines` the
 * empty lines between them (one newline each), `escaped` a double-quoted line ending in `\`
 * (nothing, or the empty lines after it), `break` a block scalar's break kept as a newline.
 */
export interface Joint {
  kind: 'fold' | 'newlines' | 'escaped' | 'break';
  text: string;
}

export interface ScalarShape {
  style: ScalarStyle;
  lines: ContentLine[];
  /** joints[i] joins lines[i] and lines[i + 1]. */
  joints: Joint[];
  /** The value from the first content line to the last. */
  body: string;
  /** A block scalar's value before its first content line (its leading empty lines) and after its last (what its chomping adds). */
  head: string;
  tail: string;
  /** A block scalar: its chomping indicator (`-`, `+` or none) and its content's indentation. */
  chomp?: '' | '-' | '+';
  indent?: number;
}

const blank = (c: string | undefined): boolean => c === ' ' || c === '\t';

/** Whether an odd run of backslashes ends just before `at` (not reaching before `from`): the character at `at` is escaped. */
function escapedAt(raw: string, at: number, from: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= from && raw[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

/** The lines of raw[from, to): each [ls, le) without its line break (a CR before the LF belongs to the break). */
function physicalLines(raw: string, from: number, to: number): { ls: number; le: number }[] {
  const out: { ls: number; le: number }[] = [];
  for (let ls = from; ; ) {
    const nl = raw.indexOf('\n', ls);
    if (nl < 0 || nl >= to) {
      out.push({ ls, le: to });
      return out;
    }
    out.push({ ls, le: nl > ls && raw[nl - 1] === '\r' ? nl - 1 : nl });
    ls = nl + 1;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/** The value of one line of a double-quoted scalar's content (its escapes read), or undefined if one is not valid. */
function unescapeDouble(s: string): string | undefined {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++i];
    if (e === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const n = HEX_DIGITS[e];
    const hex = n ? s.slice(i + 1, i + 1 + n) : '';
    if (!n || !new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
    const cp = Number.parseInt(hex, 16);
    if (cp > 0x10ffff) return undefined;
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

type Body = Pick<ScalarShape, 'lines' | 'joints' | 'body'>;

/** A double-quoted, single-quoted or plain scalar: continuation lines lose their leading blanks, lines their trailing ones. */
function flowBody(raw: string, style: 'double' | 'single' | 'plain'): Body | undefined {
  const quoted = style !== 'plain';
  const from = quoted ? 1 : 0;
  const to = quoted ? raw.length - 1 : raw.length;
  if (quoted && (raw.length < 2 || raw[to] !== raw[0])) return undefined;
  const phys = physicalLines(raw, from, to);
  const out: Body = { lines: [], joints: [], body: '' };
  let empty = 0;
  let afterEscape = false;
  for (let k = 0; k < phys.length; k++) {
    const { ls, le } = phys[k]!;
    const last = k === phys.length - 1;
    let cs = ls;
    if (k > 0) while (cs < le && blank(raw[cs])) cs++;
    let ce = le;
    let escaped = false;
    if (!last) {
      if (style === 'double' && escapedAt(raw, le, cs)) {
        escaped = true;
        ce = le - 1; // the blanks before the `\` are content
      } else while (ce > cs && blank(raw[ce - 1]) && !(style === 'double' && escapedAt(raw, ce - 1, cs))) ce--;
    }
    if (k > 0 && !last && ce === cs && !escaped) {
      empty++;
      continue;
    }
    const text = raw.slice(cs, ce);
    const piece = style === 'double' ? unescapeDouble(text) : style === 'single' ? text.replace(/''/g, "'") : text;
    if (piece === undefined) return undefined;
    if (out.lines.length > 0) {
      const joint: Joint = afterEscape
        ? { kind: 'escaped', text: '\n'.repeat(empty) }
        : empty === 0
          ? { kind: 'fold', text: ' ' }
          : { kind: 'newlines', text: '\n'.repeat(empty) };
      out.joints.push(joint);
      out.body += joint.text;
    }
    out.lines.push({ cs, ce, st: out.body.length, en: out.body.length + piece.length });
    out.body += piece;
    empty = 0;
    afterEscape = escaped;
  }
  return out;
}

/** A literal (`|`) or folded (`>`) block scalar without an indentation indicator; its range ends with its last content line. */
function blockBody(raw: string, style: 'folded' | 'literal'): (Body & Pick<ScalarShape, 'head' | 'chomp' | 'indent'>) | undefined {
  const nl = raw.indexOf('\n');
  if (nl < 0) return undefined;
  const header = /^[|>]([-+]?)(?:[ \t]+#.*)?[ \t]*\r?$/.exec(raw.slice(0, nl));
  if (!header) return undefined;
  const phys = physicalLines(raw, nl + 1, raw.length);
  const first = phys.find(({ ls, le }) => /[^ ]/.test(raw.slice(ls, le)));
  if (!first) return undefined;
  let indent = 0;
  while (raw[first.ls + indent] === ' ') indent++;
  if (indent === 0) return undefined;
  const pad = ' '.repeat(indent);
  const out: Body & Pick<ScalarShape, 'head' | 'chomp' | 'indent'> = { lines: [], joints: [], body: '', head: '', chomp: header[1] as '' | '-' | '+', indent };
  let empty = 0;
  let spacedBefore = false;
  for (const { ls, le } of phys) {
    const line = raw.slice(ls, le);
    if (/^ *$/.test(line)) {
      if (line.length > indent) return undefined; // (blanks beyond the indentation are content: not written back here)
      empty++;
      continue;
    }
    if (!line.startsWith(pad)) return undefined;
    const cs = ls + indent;
    // A folded scalar keeps the breaks around a more-indented ("spaced") line.
    const spaced = blank(raw[cs]);
    if (out.lines.length === 0) out.head = '\n'.repeat(empty);
    else {
      const joint: Joint =
        style === 'literal' || spaced || spacedBefore
          ? { kind: 'break', text: '\n'.repeat(empty + 1) }
          : empty === 0
            ? { kind: 'fold', text: ' ' }
            : { kind: 'newlines', text: '\n'.repeat(empty) };
      out.joints.push(joint);
      out.body += joint.text;
    }
    out.lines.push({ cs, ce: le, st: out.body.length, en: out.body.length + (le - cs) });
    out.body += raw.slice(cs, le);
    empty = 0;
    spacedBefore = spaced;
  }
  return empty === 0 ? out : undefined;
}

/**
 * The shape of a scalar's text `raw` (its node's range), checked against `value`, what the
 * parser read it as: undefined when the text is not one of the shapes read here, or reads as
 * something else (the caller then writes the value as a whole).
 */
export function scalarShape(raw: string, value: string): ScalarShape | undefined {
  const c = raw[0];
  const style: ScalarStyle = c === '"' ? 'double' : c === "'" ? 'single' : c === '|' ? 'literal' : c === '>' ? 'folded' : 'plain';
  if (style === 'literal' || style === 'folded') {
    const b = blockBody(raw, style);
    if (!b || !value.startsWith(b.head + b.body)) return undefined;
    const tail = value.slice(b.head.length + b.body.length);
    const chompOk = b.chomp === '-' ? tail === '' : b.chomp === '' ? tail === '\n' : /^\n+$/.test(tail);
    return chompOk ? { style, ...b, tail } : undefined;
  }
  const b = flowBody(raw, style);
  return b && b.body === value ? { style, ...b, head: '', tail: '' } : undefined;
}
