/**
 * Whether a webhook's matchConditions keep control-plane users and nodes away from it (W03 and its
 * fix "Skip control-plane users and nodes"), recognised by shape: a table of conjuncts, each false
 * for a class of system requests (`nodes`, `control-plane`, `serviceaccounts`), each shape checked
 * with the real CEL engine by system-guards.test.ts. ../README.md ("Lints: control-plane guards").
 */
import type { SystemClass } from '../critical-requests';
import { objs, str, type Obj } from './helpers';

export type { SystemClass };

const USER = 'request.userInfo.username';
const GROUPS = 'request.userInfo.groups';
const lit = (s: string) => `'${s}'`;

/** Conjunct shapes (compared after normalize()) and the system requests each one keeps away. */
export const SYSTEM_GUARD_SHAPES: readonly { expression: string; skips: readonly SystemClass[] }[] = [
  // every system: user, service accounts and nodes included
  { expression: `!${USER}.startsWith(${lit('system:')})`, skips: ['nodes', 'control-plane', 'serviceaccounts'] },
  // system: users except service accounts (the expression of the quick fix, second half)
  { expression: `!(${USER}.startsWith(${lit('system:')}) && !${USER}.startsWith(${lit('system:serviceaccount:')}))`, skips: ['nodes', 'control-plane'] },
  // the nodes group (the quick fix, first half)
  { expression: `!(${lit('system:nodes')} in ${GROUPS})`, skips: ['nodes'] },
  // kubelets by user name
  { expression: `!${USER}.startsWith(${lit('system:node:')})`, skips: ['nodes'] },
];

/** The expression without whitespace outside string literals, strings in single quotes, without outer parentheses. */
export function normalize(expression: string): string {
  let out = '';
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i]!;
    if (c === '"' || c === "'") {
      const end = expression.indexOf(c, i + 1);
      if (end < 0) return out + expression.slice(i);
      const body = expression.slice(i + 1, end);
      out += body.includes("'") || body.includes('\\') ? expression.slice(i, end + 1) : `'${body}'`;
      i = end;
    } else if (!/\s/.test(c)) out += c;
    // whitespace between two identifier characters separates tokens (`'a' in request`): one space
    else if (/\w$/.test(out) && /^\s*\w/.test(expression.slice(i)) && !out.endsWith(' ')) out += ' ';
  }
  return stripParens(out);
}

/** Index of the `)` that closes the `(` at `open`, ignoring string contents; -1 if none. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') i = Math.max(i, s.indexOf(c, i + 1));
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

const stripParens = (s: string): string => (s.startsWith('(') && closing(s, 0) === s.length - 1 ? stripParens(s.slice(1, -1)) : s);

/** The terms of a top-level `&&` of a normalized expression. */
export function conjuncts(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') i = Math.max(i, s.indexOf(c, i + 1));
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0 && c === '&' && s[i + 1] === '&') {
      out.push(stripParens(s.slice(start, i)));
      start = i + 2;
      i++;
    }
  }
  out.push(stripParens(s.slice(start)));
  return out;
}

const SHAPES = SYSTEM_GUARD_SHAPES.map((s) => ({ ...s, normalized: normalize(s.expression) }));

/** The system request classes a webhook's matchConditions keep away from it. */
export function skippedSystemClasses(w: Obj): Set<SystemClass> {
  const skipped = new Set<SystemClass>();
  for (const c of objs(w.matchConditions))
    for (const term of conjuncts(normalize(str(c.expression))))
      for (const shape of SHAPES) if (term === shape.normalized) shape.skips.forEach((k) => skipped.add(k));
  return skipped;
}

/** Do the webhook's matchConditions keep both kubelets and the control plane's users away? */
export const skipsSystemUsers = (w: Obj): boolean => {
  const s = skippedSystemClasses(w);
  return s.has('nodes') && s.has('control-plane');
};
