/**
 * A Kyverno `{{ … }}` JMESPath expression as CEL, following go-jmespath's interpreter (the fork
 * Kyverno v1.19 uses) node by node. Each node compiles to a CEL pair `[status, value]`: status 0
 * a value, 1 go-jmespath's NotFoundError (a map without the key: which nodes swallow it and which
 * pass it up is the interpreter's), 2 any other error (a function given the wrong type). Kyverno
 * errs the rule on either at the top.
 *
 * CEL has no flatten in every release the Workbench targets, so a flattened list is kept nested:
 * `depth` d means the value is a list whose elements, d levels down, are the logical elements
 * (d = 0: the value itself). Consumers walk the levels (exists, all, size).
 */
import type { JpNode } from './jmespath';
import { Unsupported } from './pattern';
import { celString } from './scalar';
import { goJson, readsUserInfo, USER_INFO } from './jmespath-json';
import { imagesRegistries, imagesRegistriesCel } from './images';
import { bind, deep, deepEqual, deepSize, isFalse, Names } from './jmespath-values';

export interface Compiled {
  /** A CEL `[status, value]` pair. */
  cel: string;
  depth: number;
  /** When the status is 0 whatever the object: the value, cheap to read again and typed dyn (`request.operation` is a string: `== null` would not compile). */
  value?: string;
}

/** What `request.…` reads: the object Kyverno sees as request.object and the operation. */
export interface Roots {
  object: string;
  operation: string;
  /** Other variables of Kyverno's context, as CEL (a foreach's `element`, `element0`, `elementIndex`, …). */
  vars?: Readonly<Record<string, string>>;
  /**
   * The rule's context entries, loaded when a query's text names them (Kyverno's deferred
   * loaders): `status` is the CEL of the entry's status (non-zero: loading it failed, so does the query).
   */
  loads?: readonly ContextLoad[];
  /** Whether `request.userInfo` is read (as USER_INFO: the admission request's user). */
  userInfo?: boolean;
  /** Variables whose value is never a text (a list, a number, …): what an In operator reads as it is. */
  neverText?: ReadonlySet<string>;
  /** Texts printed into raw string literals (text-variables.ts): each placeholder's CEL string. */
  printed?: Readonly<Record<string, string>>;
  /** Whether Kyverno's `images` is read (images.ts: its registries only). */
  images?: boolean;
  /** Context variables of a constant value (`variable.value`), as Kyverno stores them. */
  constants?: Readonly<Record<string, unknown>>;
}

/** Marks where a printed variable sits in a raw string literal (text-variables.ts). */
export const PRINTED = '\u0001';

export interface ContextLoad {
  name: string;
  status: string;
}

/** pkg/engine/context/deferred.go: a query loads an entry when its text names it (not after a `.`). */
export const namesEntry = (query: string, name: string): boolean => new RegExp(`(?:^|\\s|[^.0-9A-Za-z])${name}\\b`).test(query);

type Input = { v: string; d: number } | { root: 'top' | 'request' };

const NULL = 'dyn(null)';
/** The context's `request` map, read only through its fields. */
const REQUEST = '<request>';
const ok = (v: string) => `[dyn(0), dyn(${v})]`;
const NF = `[dyn(1), ${NULL}]`;
const ERR = `[dyn(2), ${NULL}]`;
// a float64 reads as strconv.FormatFloat(f, 'f', -1, 32), which CEL cannot print: the CEL errs instead (README: doubles)
const NUMBER_TEXT_ERR = ERR;

/** A JSON literal as CEL (go-jmespath decodes numbers as float64: doubles). */
export function literalCel(v: unknown): string {
  if (v === null) return NULL;
  if (typeof v === 'string') return celString(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}.0` : String(v);
  if (Array.isArray(v)) return `[${v.map((x) => `dyn(${literalCel(x)})`).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${celString(k)}: dyn(${literalCel(x)})`)
      .join(', ')}}`;
  throw new Unsupported(`the literal ${String(v)}`);
}

/** A failed lookup swallowed as go-jmespath does (NotFoundError reads nil; other errors pass up). */
const swallowNF = (names: Names, c: Compiled) => (c.value !== undefined ? c.cel : bind(names, c.cel, (p) => `(${p}[0] == 1 ? [dyn(0), ${NULL}] : ${p})`));

/** `body` on c's value (a NotFoundError read as nil), or c's error: the pair named once, or the value itself when c cannot fail. */
const onValue = (names: Names, c: Compiled, body: (v: string) => string): string =>
  c.value !== undefined ? body(c.value) : bind(names, swallowNF(names, c), (p) => `(${p}[0] != 0 ? ${p} : ${body(`${p}[1]`)})`);

export class JpCompiler {
  /** What the compiled expressions decide differently from Kyverno. */
  readonly differences: string[] = [];
  /** The node where `images.<list>.*.registry` may be read (compile). */
  private imagesAt?: JpNode;
  /** Whether `@` is request.userInfo's value (the right side of a pipe from it). */
  private atUserInfo = false;
  /** The node whose value an In operator reads as a set (compile's `asSet`): where sort() may stand. */
  private setAt?: JpNode;
  /** `names`: another compiler's, when this one's CEL goes inside that one's (no name is bound twice). */
  constructor(
    readonly roots: Roots,
    readonly names = new Names(),
  ) {}

  /**
   * A query; `text` (its source) loads the context entries it names first: one that fails fails the
   * query. `asSet`: an In operator reads its value as a set (the order of a list's elements unread).
   */
  compile(n: JpNode, text?: string, asSet = false): Compiled {
    // images' registries in a Go map's order: read only as the whole query or an `||`'s left side
    this.imagesAt = n.type === 'Or' ? n.left : n;
    let last = n;
    while (last.type === 'Pipe') last = last.right;
    this.setAt = asSet ? last : undefined;
    const r = this.node(n, { root: 'top' });
    if (r.cel === REQUEST) throw new Unsupported('the whole request');
    const loaded = text === undefined ? [] : (this.roots.loads ?? []).filter((l) => namesEntry(text, l.name));
    if (!loaded.length) return r;
    return { cel: `(${loaded.map((l) => `${l.status} != 0`).join(' || ')} ? ${ERR} : ${r.cel})`, depth: r.depth };
  }

  /** A query of a value (an API call's JMESPath on the object fetched): `v` is its CEL. */
  compileOn(n: JpNode, v: string): Compiled {
    return this.child(n, { v, d: 0 });
  }

  /** A node that must be a value (not the bare `request`). */
  private child(n: JpNode, inp: Input): Compiled {
    const r = this.node(n, inp);
    if (r.cel === REQUEST) throw new Unsupported('the whole request');
    return r;
  }

  private value(inp: Input): { v: string; d: number } {
    if ('root' in inp)
      throw new Unsupported("a JMESPath expression that reads Kyverno's context other than request.object, request.oldObject and request.operation");
    return inp;
  }

  private node(n: JpNode, inp: Input): Compiled {
    const names = this.names;
    switch (n.type) {
      case 'Field': {
        if ('root' in inp) {
          // request.object / request.operation: Kyverno's context, there in every admission request
          if (inp.root === 'top' && n.name === 'request') return { cel: REQUEST, depth: 0 };
          const vars = this.roots.vars;
          const bound = inp.root === 'top' && vars && Object.hasOwn(vars, n.name) ? vars[n.name] : undefined;
          if (bound !== undefined) return { cel: ok(bound), depth: 0, value: `dyn(${bound})` };
          // Kyverno's context has no key "" (the quoted identifier `""`, often meant as an empty text): not found
          if (inp.root === 'top' && n.name === '') return { cel: NF, depth: 0 };
          if (inp.root === 'request' && n.name === 'object') return { cel: ok(this.roots.object), depth: 0, value: `dyn(${this.roots.object})` };
          if (inp.root === 'request' && n.name === 'operation') return { cel: ok(this.roots.operation), depth: 0, value: `dyn(${this.roots.operation})` };
          if (inp.root === 'request' && n.name === 'userInfo' && this.roots.userInfo) return { cel: ok(USER_INFO), depth: 0 };
          // the admission request's namespace: Kyverno's webhook leaves the key out when it is empty
          // (a cluster-scoped request), so a lookup is not found there (rule.ts keeps such rules out)
          if (inp.root === 'request' && n.name === 'namespace') return { cel: `(request.namespace == '' ? ${NF} : ${ok('request.namespace')})`, depth: 0 };
          if (inp.root === 'request' && n.name === 'oldObject') {
            // Kyverno's pass over the old object (allowExistingViolations) empties request.oldObject: not modelled
            if (this.roots.object !== 'object') throw new Unsupported("request.oldObject read in the old object's pass (allowExistingViolations)");
            // an UPDATE's old object; a CREATE's context has none (kyverno test and the oracle leave it out): not found
            return { cel: `(oldObject == null ? ${NF} : ${ok('oldObject')})`, depth: 0 };
          }
          throw new Unsupported(
            `the variable ${inp.root === 'request' ? 'request.' : ''}${n.name} (only request.object, request.oldObject, request.operation and request.namespace are read)`,
          );
        }
        if (inp.d > 0) throw new Unsupported(`a field ${n.name} of a flattened list`);
        const k = celString(n.name);
        return { cel: `(type(${inp.v}) == map ? (${k} in ${inp.v} ? ${ok(`${inp.v}[${k}]`)} : ${NF}) : [dyn(0), ${NULL}])`, depth: 0 };
      }
      case 'Current': {
        const v = this.value(inp);
        return { cel: ok(v.v), depth: v.d, value: v.v };
      }
      case 'Literal': {
        const printed = this.roots.printed;
        if (printed && typeof n.value === 'string' && n.value.includes(PRINTED)) {
          // a raw string literal a variable was printed into: its pieces and the printed texts
          const parts = n.value.split(new RegExp(`(${PRINTED}\\d+${PRINTED})`)).filter((x) => x !== '');
          return { cel: ok(parts.map((x) => printed[x] ?? celString(x)).join(' + ')), depth: 0 };
        }
        const lit = literalCel(n.value);
        // a short scalar is read in place (a list or map literal stays named once)
        return { cel: ok(lit), depth: 0, ...(typeof n.value !== 'object' && lit.length <= 64 ? { value: `dyn(${lit})` } : {}) };
      }
      case 'Sub':
      case 'IndexExpression': {
        const l = this.node(n.left, inp);
        if (l.cel === REQUEST) return this.node(n.right, { root: 'request' });
        if (l.depth > 0) throw new Unsupported('a field or index of a flattened list');
        // a left side that cannot fail is read directly; else its pair is named and its value read as `p[1]`
        if (l.value !== undefined) return this.child(n.right, { v: l.value, d: l.depth });
        let depth = 0;
        const cel = bind(names, l.cel, (p) => {
          const r = this.child(n.right, { v: `${p}[1]`, d: l.depth });
          depth = r.depth;
          return `(${p}[0] != 0 ? ${p} : ${r.cel})`;
        });
        return { cel, depth };
      }
      case 'Index': {
        const v = this.value(inp);
        if (v.d > 0) throw new Unsupported('an index into a flattened list');
        const i = n.index >= 0 ? `${n.index}` : `size(${v.v}) + ${n.index}`;
        return { cel: `(type(${v.v}) == list && ${i} >= 0 && ${i} < size(${v.v}) ? ${ok(`${v.v}[${i}]`)} : [dyn(0), ${NULL}])`, depth: 0 };
      }
      case 'Pipe': {
        const l = this.child(n.left, inp);
        let depth = 0;
        const cel = onValue(names, l, (v) => {
          const outer = this.atUserInfo;
          this.atUserInfo = readsUserInfo(n.left);
          const r = this.child(n.right, { v, d: l.depth });
          this.atUserInfo = outer;
          depth = r.depth;
          return swallowNF(names, r);
        });
        return { cel, depth };
      }
      case 'Or': {
        const l = this.child(n.left, inp);
        const r = this.child(n.right, inp);
        const depth = Math.max(l.depth, r.depth);
        if (r.depth !== depth && !(n.right.type === 'Literal' && !Array.isArray(n.right.value)) && !isEmptyLiteral(n.right))
          throw new Unsupported('an || between lists of different nesting');
        if (l.depth !== depth) throw new Unsupported('an || between lists of different nesting');
        const cel = onValue(names, l, (v) => `(${isFalse(names, v, l.depth)} ? ${swallowNF(names, r)} : ${ok(v)})`);
        return { cel, depth };
      }
      case 'And': {
        const l = this.child(n.left, inp);
        const r = this.child(n.right, inp);
        if (l.depth || r.depth) throw new Unsupported('&& on flattened lists');
        return { cel: onValue(names, l, (v) => `(${isFalse(names, v, 0)} ? ${ok(v)} : ${r.cel})`), depth: 0 };
      }
      case 'Not': {
        const c = this.child(n.child, inp);
        return { cel: onValue(names, c, (v) => `[dyn(0), dyn(${isFalse(names, v, c.depth)})]`), depth: 0 };
      }
      case 'Comparator': {
        const l = this.child(n.left, inp);
        const r = this.child(n.right, inp);
        if (l.depth || r.depth) throw new Unsupported('a comparison of flattened lists');
        return {
          // both sides evaluated before either's error is reported: the left's first
          cel: bind(names, swallowNF(names, l), (a) =>
            bind(names, swallowNF(names, r), (b) => {
              const x = `${a}[1]`;
              const y = `${b}[1]`;
              const res =
                n.op === '==' || n.op === '!='
                  ? `[dyn(0), dyn(${n.op === '!=' ? '!' : ''}${deepEqual(x, y)})]`
                  : `(type(${x}) == double && type(${y}) == double ? [dyn(0), dyn(${x} ${n.op} ${y})] : [dyn(0), ${NULL}])`;
              return `(${a}[0] != 0 ? ${a} : ${b}[0] != 0 ? ${b} : ${res})`;
            }),
          ),
          depth: 0,
        };
      }
      case 'Flatten': {
        // any error of the left side reads nil
        const l = this.child(n.child, inp);
        const spread = (e: string) => `(type(${e}) == list ? ${e} : [${e}])`;
        return {
          cel: bind(names, l.cel, (p) => `(${p}[0] != 0 || type(${p}[1]) != list ? [dyn(0), ${NULL}] : ${ok(deep(names, `${p}[1]`, l.depth, 'map', spread))})`),
          depth: l.depth + 1,
        };
      }
      case 'Projection':
      case 'Filter': {
        const l = this.child(n.left, inp);
        const d = l.depth;
        // Projection: a NotFoundError of the left reads nil, others pass up; Filter: any error reads nil
        const leftErr = n.type === 'Filter' ? `false` : null;
        const each = (e: string): string => {
          const r = this.child(n.right, { v: e, d: 0 });
          if (r.depth) throw new Unsupported('a projection whose right side flattens');
          const right = swallowNF(names, r);
          if (n.type !== 'Filter') return right;
          const c = this.child(n.condition, { v: e, d: 0 });
          if (c.depth) throw new Unsupported('a filter on a flattened list');
          return bind(names, swallowNF(names, c), (q) => `(${q}[0] != 0 ? ${q} : ${isFalse(names, `${q}[1]`, 0)} ? [dyn(0), ${NULL}] : ${right})`);
        };
        const cel = bind(names, l.cel, (p) => {
          const pairs = bind(names, deep(names, `${p}[1]`, d, 'map', each), (ps) => {
            const err = deep(names, ps, d, 'exists', (q) => `${q}[0] == 2`);
            const vals = deepFilterValues(names, ps, d);
            return `(${err} ? ${ERR} : ${ok(vals)})`;
          });
          const bad = leftErr ?? `${p}[0] == 2`;
          const nil = n.type === 'Filter' ? `${p}[0] != 0` : `${p}[0] == 1`;
          return `(${bad} ? ${p} : ${nil} || type(${p}[1]) != list ? [dyn(0), ${NULL}] : ${pairs})`;
        });
        return { cel, depth: d };
      }
      case 'MultiList':
        return this.multiSelect(n.items, inp, (ps) => {
          const q = names.next('q');
          return `${ps}.map(${q}, ${q}[1])`;
        });
      case 'MultiHash': {
        // go-jmespath fills a Go map in order: a key given twice keeps its last value
        const last = new Map(n.items.map(([k], i) => [k, i]));
        return this.multiSelect(
          n.items.map(([, i]) => i),
          inp,
          (ps) => `{${[...last].map(([k, i]) => `${celString(k)}: ${ps}[${i}][1]`).join(', ')}}`,
        );
      }
      case 'Function':
        // sort() read as a set only: a sorted list needs lists' sort(), not in every release
        if (n.name === 'sort' && n !== this.setAt) throw new Unsupported('the JMESPath function sort() (other than as the value an In operator reads)');
        return this.call(n.name, n.args, inp);
      case 'ValueProjection': {
        const list = this.roots.images && n === this.imagesAt && 'root' in inp && inp.root === 'top' ? imagesRegistries(n) : undefined;
        if (!list) throw new Unsupported('the JMESPath construct ValueProjection (other than images.<containers>.*.registry)');
        return { cel: imagesRegistriesCel(list, this.roots.object, names), depth: 0 };
      }
      default:
        throw new Unsupported(`the JMESPath construct ${n.what}`);
    }
  }

  /** A multi-select of `items` (nil on nil; an item's error other than not found passes up): `build` makes the value of the items' pairs. */
  private multiSelect(items: JpNode[], inp: Input, build: (ps: string) => string): Compiled {
    const names = this.names;
    const v = this.value(inp);
    if (v.d) throw new Unsupported('a multi-select on a flattened list');
    const pairs = items.map((i) => {
      const c = this.child(i, v);
      if (c.depth) throw new Unsupported('a multi-select of flattened lists');
      return swallowNF(names, c);
    });
    return {
      cel: bind(names, `[${pairs.join(', ')}]`, (ps) => {
        const q = names.next('q');
        return `(${v.v} == null ? [dyn(0), ${NULL}] : ${ps}.exists(${q}, ${q}[0] == 2) ? ${ERR} : ${ok(build(ps))})`;
      }),
      depth: 0,
    };
  }

  private call(name: string, args: JpNode[], inp: Input): Compiled {
    const names = this.names;
    const compiled = args.map((a) => this.child(a, inp));
    const arity = (k: number) => {
      if (args.length !== k) throw new Unsupported(`${name}() with ${args.length} arguments`);
    };
    // every argument evaluated first: NotFoundError reads nil, other errors pass up
    const withArgs = (body: (vs: string[]) => string, depth = 0): Compiled => {
      const go = (i: number, vs: string[]): string => (i === compiled.length ? body(vs) : onValue(names, compiled[i], (v) => go(i + 1, [...vs, v])));
      return { cel: go(0, []), depth };
    };
    switch (name) {
      case 'length': {
        arity(1);
        const d = compiled[0].depth;
        return withArgs(
          ([x]) =>
            `(type(${x}) == string ? ${ok(`double(size(${x}))`)} : type(${x}) == list ? ${ok(`double(${deepSize(names, x, d)})`)} : type(${x}) == map ? ${ok(`double(size(${x}))`)} : ${ERR})`,
        );
      }
      case 'contains': {
        arity(2);
        const d = compiled[0].depth;
        if (compiled[1].depth) throw new Unsupported('contains() of a flattened list');
        if (args[1].type === 'Literal' && args[1].value !== null && typeof args[1].value === 'object')
          throw new Unsupported('contains() of a list or map (Go panics comparing them)');
        return withArgs(
          ([s, e]) =>
            `(type(${s}) == string ? [dyn(0), dyn(type(${e}) == string && ${s}.contains(${e}))] : type(${s}) == list ? [dyn(0), dyn(${deep(names, s, d, 'exists', (x) => deepEqual(x, e))})] : ${ERR})`,
        );
      }
      case 'keys':
      case 'values': {
        arity(1);
        if (compiled[0].depth) throw new Unsupported(`${name}() of a flattened list`);
        const k = names.next('k');
        return withArgs(([m]) => `(type(${m}) == map ? ${ok(name === 'keys' ? `${m}.map(${k}, ${k})` : `${m}.map(${k}, ${m}[${k}])`)} : ${ERR})`);
      }
      case 'to_array': {
        arity(1);
        const d = compiled[0].depth;
        // a non-list becomes a one-element list, nested as deep as the list form
        return withArgs(([x]) => `(type(${x}) == list ? [dyn(0), ${x}] : ${ok(`${'['.repeat(d + 1)}${x}${']'.repeat(d + 1)}`)})`, d);
      }
      case 'regex_match': {
        arity(2);
        if (args[0].type !== 'Literal' || typeof args[0].value !== 'string') throw new Unsupported('regex_match() with a pattern that is not a literal');
        if (compiled[1].depth) throw new Unsupported('regex_match() of a flattened list');
        const re = celString(args[0].value);
        // the function's argument types (a string or a float64 number; an int64 field is neither) are checked before it runs
        if (args[1].type === 'Literal' && typeof args[1].value === 'number') throw new Unsupported('regex_match() of a number');
        return withArgs(([, s]) => `(type(${s}) == string ? [dyn(0), dyn(${s}.matches(${re}))] : type(${s}) == double ? ${NUMBER_TEXT_ERR} : ${ERR})`);
      }
      case 'starts_with':
      case 'ends_with': {
        arity(2);
        if (compiled[0].depth || compiled[1].depth) throw new Unsupported(`${name}() of a flattened list`);
        const f = name === 'starts_with' ? 'startsWith' : 'endsWith';
        // both arguments strings (go-jmespath's jpString), else an invalid-type error
        return withArgs(([x, y]) => `(type(${x}) == string && type(${y}) == string ? ${ok(`${x}.${f}(${y})`)} : ${ERR})`);
      }
      case 'join': {
        arity(2);
        if (compiled[1].depth) throw new Unsupported('join() of a flattened list');
        const j = names.next('j');
        // the glue a string, the list strings only (go-jmespath's jpArrayString), else an invalid-type error
        return withArgs(
          ([g, xs]) =>
            `(type(${g}) == string && type(${xs}) == list && ${xs}.all(${j}, type(${j}) == string) ? ${ok(`${xs}.map(${j}, string(${j})).join(${g})`)} : ${ERR})`,
        );
      }
      case 'to_upper':
      case 'to_lower': {
        arity(1);
        if (compiled[0].depth) throw new Unsupported(`${name}() of a flattened list`);
        // Go's strings.ToUpper/ToLower change every Unicode letter; CEL's upperAscii/lowerAscii the ASCII ones
        this.differences.push(`${name}() of a text with letters outside ASCII (Go changes them, CEL keeps them)`);
        const f = name === 'to_upper' ? 'upperAscii' : 'lowerAscii';
        return withArgs(([s]) => `(type(${s}) == string ? ${ok(`${s}.${f}()`)} : ${ERR})`);
      }
      case 'to_string': {
        arity(1);
        // json.Marshal of what the argument may hold: request.userInfo's strings, lists of strings and their maps
        if (!readsUserInfo(args[0]!) && !(args[0]!.type === 'Current' && this.atUserInfo))
          throw new Unsupported('to_string() of a value other than request.userInfo');
        if (compiled[0]!.depth) throw new Unsupported('to_string() of a flattened list');
        return withArgs(([x]) => `(type(${x}) == string ? ${ok(x)} : ${ok(goJson(names, x, 3))})`);
      }
      case 'sort': {
        arity(1);
        const d = compiled[0].depth;
        const isNumber = (e: string) => `(type(${e}) == int || type(${e}) == uint || type(${e}) == double)`;
        // go-jmespath's argument check: a list of numbers only or of strings only (jpArrayNumber,
        // jpArrayString), else an invalid-type error; read as a set, the order is not computed
        return withArgs(
          ([x]) =>
            `(type(${x}) == list && (${deep(names, x, d, 'all', isNumber)} || ${deep(names, x, d, 'all', (e) => `type(${e}) == string`)}) ? ${ok(x)} : ${ERR})`,
          d,
        );
      }
      case 'merge': {
        if (!args.length) throw new Unsupported('merge() without arguments');
        if (compiled.some((c) => c.depth)) throw new Unsupported('merge() of a flattened list');
        const k = names.next('k');
        const e = names.next('e');
        // every argument an object (else an invalid-type error); a key keeps the value of the last map holding it
        return withArgs((ms) => {
          const pairs = ms.map((m, i) => {
            const later = ms.slice(i + 1).map((x) => `!(${k} in ${x})`);
            return `${m}${later.length ? `.filter(${k}, ${later.join(' && ')})` : ''}.map(${k}, [dyn(${k}), dyn(${m}[${k}])])`;
          });
          return `(${ms.map((m) => `type(${m}) == map`).join(' && ')} ? ${ok(`(${pairs.join(' + ')}).transformMapEntry(${k}, ${e}, {${e}[0]: ${e}[1]})`)} : ${ERR})`;
        });
      }
      default:
        throw new Unsupported(`the JMESPath function ${name}()`);
    }
  }
}

function isEmptyLiteral(n: JpNode): boolean {
  return n.type === 'Literal' && Array.isArray(n.value) && n.value.length === 0;
}

/** The values of a depth-d list of pairs, nil ones dropped (go-jmespath's projections skip nil). */
function deepFilterValues(names: Names, ps: string, d: number): string {
  const q = names.next('q');
  if (d === 0) return `${ps}.filter(${q}, ${q}[1] != null).map(${q}, ${q}[1])`;
  return `${ps}.map(${q}, ${deepFilterValues(names, q, d - 1)})`;
}
