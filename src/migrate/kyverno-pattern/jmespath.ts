/**
 * A JMESPath expression parsed into the AST of github.com/kyverno/go-jmespath (the fork Kyverno
 * v1.19 evaluates `{{ … }}` with): its lexer's tokens and its Pratt parser's binding powers, so
 * that `a[].b | length(@)`, `a.[b, c][]` or `a || b && c` group exactly as Kyverno groups them.
 * What the parser does not know is an error naming the spot.
 */

export type JpNode =
  | { type: 'Field'; name: string }
  | { type: 'Current' }
  | { type: 'Literal'; value: unknown }
  | { type: 'Index'; index: number }
  | { type: 'Sub' | 'IndexExpression' | 'Pipe' | 'Or' | 'And'; left: JpNode; right: JpNode }
  | { type: 'Not' | 'Flatten'; child: JpNode }
  | { type: 'Projection' | 'ValueProjection'; left: JpNode; right: JpNode }
  | { type: 'Filter'; left: JpNode; right: JpNode; condition: JpNode }
  | { type: 'Comparator'; op: string; left: JpNode; right: JpNode }
  | { type: 'Function'; name: string; args: JpNode[] }
  | { type: 'MultiList'; items: JpNode[] }
  | { type: 'MultiHash'; items: [string, JpNode][] }
  | { type: 'Unsupported'; what: string };

type Tok = { t: string; v?: unknown };

export class JmesPathError extends Error {}

/** go-jmespath's bindingPowers. */
const BP: Record<string, number> = {
  pipe: 1,
  or: 2,
  and: 3,
  cmp: 5,
  flatten: 9,
  star: 20,
  filter: 21,
  dot: 40,
  not: 45,
  lbrace: 50,
  lbracket: 55,
  lparen: 60,
};

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const simple: [string, string][] = [
    ['[?', 'filter'],
    ['[]', 'flatten'],
    ['||', 'or'],
    ['&&', 'and'],
    ['==', 'cmp'],
    ['!=', 'cmp'],
    ['<=', 'cmp'],
    ['>=', 'cmp'],
    ['<', 'cmp'],
    ['>', 'cmp'],
    ['!', 'not'],
    ['|', 'pipe'],
    ['.', 'dot'],
    ['*', 'star'],
    ['[', 'lbracket'],
    [']', 'rbracket'],
    ['{', 'lbrace'],
    ['}', 'rbrace'],
    ['(', 'lparen'],
    [')', 'rparen'],
    [',', 'comma'],
    [':', 'colon'],
    ['@', 'current'],
    ['&', 'expref'],
  ];
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i)) as RegExpExecArray;
      out.push({ t: 'ident', v: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[-0-9]/.test(c)) {
      const m = /^-?[0-9]+/.exec(src.slice(i));
      if (!m) throw new JmesPathError(`a bad number at ${i}`);
      out.push({ t: 'number', v: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      if (j >= src.length) throw new JmesPathError(`an unclosed ${c} at ${i}`);
      const body = src.slice(i + 1, j);
      i = j + 1;
      if (c === '"') out.push({ t: 'ident', v: JSON.parse(`"${body}"`) as string });
      else if (c === "'") out.push({ t: 'literal', v: body.replace(/\\'/g, "'") });
      else {
        const text = body.replace(/\\`/g, '`');
        try {
          out.push({ t: 'literal', v: JSON.parse(text) as unknown });
        } catch {
          // go-jmespath reads a literal that is not JSON as a string (the deprecated form)
          throw new JmesPathError(`a literal that is not JSON: ${text}`);
        }
      }
      continue;
    }
    const s = simple.find(([p]) => src.startsWith(p, i));
    if (!s) throw new JmesPathError(`an unknown character ${c} at ${i}`);
    out.push({ t: s[1], v: s[0] });
    i += s[0].length;
  }
  out.push({ t: 'eof' });
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}
  private get cur(): Tok {
    return this.toks[this.i];
  }
  private peek(n: number): Tok {
    return this.toks[Math.min(this.i + n, this.toks.length - 1)];
  }
  private bp(t: Tok): number {
    return BP[t.t] ?? 0;
  }
  private match(t: string): void {
    if (this.cur.t !== t) throw new JmesPathError(`expected ${t}, found ${this.cur.t}`);
    this.i++;
  }

  parse(): JpNode {
    const n = this.expr(0);
    if (this.cur.t !== 'eof') throw new JmesPathError(`unexpected ${this.cur.t}`);
    return n;
  }

  expr(bp: number): JpNode {
    const t = this.cur;
    this.i++;
    let left = this.nud(t);
    while (bp < this.bp(this.cur)) {
      const n = this.cur;
      this.i++;
      left = this.led(n, left);
    }
    return left;
  }

  private nud(t: Tok): JpNode {
    switch (t.t) {
      case 'literal':
        return { type: 'Literal', value: t.v };
      case 'ident':
        return { type: 'Field', name: String(t.v) };
      case 'current':
        return { type: 'Current' };
      case 'star':
        return { type: 'ValueProjection', left: { type: 'Current' }, right: this.projectionRhs(BP.star) };
      case 'filter':
        return this.filter({ type: 'Current' });
      case 'flatten':
        return { type: 'Projection', left: { type: 'Flatten', child: { type: 'Current' } }, right: this.projectionRhs(BP.flatten) };
      case 'not':
        return { type: 'Not', child: this.expr(BP.not) };
      case 'lparen': {
        const e = this.expr(0);
        this.match('rparen');
        return e;
      }
      case 'lbracket':
        if (this.cur.t === 'number' || this.cur.t === 'colon') return this.index({ type: 'Current' });
        if (this.cur.t === 'star' && this.peek(1).t === 'rbracket') {
          this.i += 2;
          return { type: 'Projection', left: { type: 'Current' }, right: this.projectionRhs(BP.star) };
        }
        return this.multiList();
      case 'lbrace':
        return this.multiHash();
      default:
        return { type: 'Unsupported', what: t.t };
    }
  }

  private led(t: Tok, left: JpNode): JpNode {
    switch (t.t) {
      case 'dot':
        if (this.cur.t === 'star') {
          this.i++;
          return { type: 'ValueProjection', left, right: this.projectionRhs(BP.dot) };
        }
        return { type: 'Sub', left, right: this.dotRhs(BP.dot) };
      case 'pipe':
        return { type: 'Pipe', left, right: this.expr(BP.pipe) };
      case 'or':
        return { type: 'Or', left, right: this.expr(BP.or) };
      case 'and':
        return { type: 'And', left, right: this.expr(BP.and) };
      case 'lparen': {
        if (left.type !== 'Field') throw new JmesPathError('a call of something that is not a function name');
        const args: JpNode[] = [];
        while (this.cur.t !== 'rparen') {
          args.push(this.cur.t === 'expref' ? (this.i++, { type: 'Unsupported', what: 'an expression reference' }) : this.expr(0));
          if (this.cur.t === 'comma') this.match('comma');
        }
        this.match('rparen');
        return { type: 'Function', name: left.name, args };
      }
      case 'filter':
        return this.filter(left);
      case 'flatten':
        return { type: 'Projection', left: { type: 'Flatten', child: left }, right: this.projectionRhs(BP.flatten) };
      case 'cmp':
        return { type: 'Comparator', op: String(t.v), left, right: this.expr(BP.cmp) };
      case 'lbracket':
        if (this.cur.t === 'number' || this.cur.t === 'colon') return this.index(left);
        this.match('star');
        this.match('rbracket');
        return { type: 'Projection', left, right: this.projectionRhs(BP.star) };
      default:
        throw new JmesPathError(`unexpected ${t.t}`);
    }
  }

  private index(left: JpNode): JpNode {
    if (this.cur.t === 'colon' || this.peek(1).t === 'colon') throw new JmesPathError('a slice');
    const n = this.cur.v as number;
    this.match('number');
    this.match('rbracket');
    return { type: 'IndexExpression', left, right: { type: 'Index', index: n } };
  }

  private multiList(): JpNode {
    const items: JpNode[] = [];
    for (;;) {
      items.push(this.expr(0));
      if (this.cur.t === 'rbracket') break;
      this.match('comma');
    }
    this.match('rbracket');
    return { type: 'MultiList', items };
  }

  /** parseMultiSelectHash: `key: expression` pairs, each key an identifier (quoted or not). */
  private multiHash(): JpNode {
    const items: [string, JpNode][] = [];
    for (;;) {
      const key = this.cur;
      this.match('ident');
      this.match('colon');
      items.push([String(key.v), this.expr(0)]);
      if (this.cur.t === 'rbrace') break;
      this.match('comma');
    }
    this.match('rbrace');
    return { type: 'MultiHash', items };
  }

  private filter(left: JpNode): JpNode {
    const condition = this.expr(0);
    this.match('rbracket');
    const right: JpNode = this.cur.t === 'flatten' ? { type: 'Current' } : this.projectionRhs(BP.filter);
    return { type: 'Filter', left, right, condition };
  }

  private dotRhs(bp: number): JpNode {
    if (this.cur.t === 'ident' || this.cur.t === 'star') return this.expr(bp);
    if (this.cur.t === 'lbracket') {
      this.i++;
      return this.multiList();
    }
    if (this.cur.t === 'lbrace') {
      this.i++;
      return this.multiHash();
    }
    throw new JmesPathError(`unexpected ${this.cur.t} after a dot`);
  }

  private projectionRhs(bp: number): JpNode {
    if (this.bp(this.cur) < 10) return { type: 'Current' };
    if (this.cur.t === 'lbracket' || this.cur.t === 'filter') return this.expr(bp);
    if (this.cur.t === 'dot') {
      this.i++;
      return this.dotRhs(bp);
    }
    throw new JmesPathError(`unexpected ${this.cur.t} in a projection`);
  }
}

/** The AST of a JMESPath expression, as go-jmespath parses it. */
export function parseJmesPath(src: string): JpNode {
  return new Parser(lex(src)).parse();
}
