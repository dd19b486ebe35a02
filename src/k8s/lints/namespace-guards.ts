/**
 * Whether matchConditions keep a namespace's requests away (P15: a policy binding that applies in
 * kube-system), recognised by shape as system-guards.ts recognises control-plane guards: a
 * conjunct of a matchCondition that is false for every request in the namespace. The shapes
 * compare the request's namespace with literals; each is checked
 * with the real CEL engine by namespace-guards.test.ts.
 */
import { conjuncts, normalize } from './system-guards';
import { objs, str, type Obj } from './helpers';

/** The request's namespace, normalized (matchConditions have no namespaceObject: the apiserver binds it for validations only). */
const NAMESPACE = String.raw`request\.namespace`;
/** A single-quoted literal (as normalize writes string literals), its text captured. */
const LIT = String.raw`'([^'\\]*)'`;
const LIST = String.raw`\[((?:'[^'\\]*',?)*)\]`;
const listOf = (s: string): string[] => [...s.matchAll(/'([^'\\]*)'/g)].map((m) => m[1]!);

/** Conjunct shapes and, from what they capture, whether the namespace `ns` makes them false. */
export const NAMESPACE_GUARD_SHAPES: readonly { shape: RegExp; excludes: (ns: string, captured: string) => boolean; example: string }[] = [
  { shape: new RegExp(`^${NAMESPACE}!=${LIT}$`), excludes: (ns, x) => ns === x, example: "request.namespace != 'kube-system'" },
  { shape: new RegExp(`^${LIT}!=${NAMESPACE}$`), excludes: (ns, x) => ns === x, example: "'kube-system' != request.namespace" },
  { shape: new RegExp(`^${NAMESPACE}==${LIT}$`), excludes: (ns, x) => ns !== x, example: "request.namespace == 'team-a'" },
  { shape: new RegExp(`^${LIT}==${NAMESPACE}$`), excludes: (ns, x) => ns !== x, example: "'team-a' == request.namespace" },
  { shape: new RegExp(`^${NAMESPACE}\\.startsWith\\(${LIT}\\)$`), excludes: (ns, x) => !ns.startsWith(x), example: "request.namespace.startsWith('team-')" },
  { shape: new RegExp(`^!${NAMESPACE}\\.startsWith\\(${LIT}\\)$`), excludes: (ns, x) => ns.startsWith(x), example: "!request.namespace.startsWith('kube-')" },
  { shape: new RegExp(`^${NAMESPACE}\\.endsWith\\(${LIT}\\)$`), excludes: (ns, x) => !ns.endsWith(x), example: "request.namespace.endsWith('-apps')" },
  { shape: new RegExp(`^!${NAMESPACE}\\.endsWith\\(${LIT}\\)$`), excludes: (ns, x) => ns.endsWith(x), example: "!request.namespace.endsWith('-system')" },
  { shape: new RegExp(`^${NAMESPACE} in${LIST}$`), excludes: (ns, l) => !listOf(l).includes(ns), example: "request.namespace in ['team-a', 'team-b']" },
  {
    shape: new RegExp(`^!\\(${NAMESPACE} in${LIST}\\)$`),
    excludes: (ns, l) => listOf(l).includes(ns),
    example: "!(request.namespace in ['kube-system', 'kube-public'])",
  },
];

/** Whether a CEL expression is false for every request in `namespace` by one of its top-level conjuncts. */
export function expressionExcludesNamespace(expression: string, namespace: string): boolean {
  return conjuncts(normalize(expression)).some((term) =>
    NAMESPACE_GUARD_SHAPES.some(({ shape, excludes }) => {
      const m = shape.exec(term);
      return !!m && excludes(namespace, m[1] ?? '');
    }),
  );
}

/** Whether a policy's or webhook's matchConditions keep `namespace`'s requests away (all must be true for it to apply). */
export const conditionsExcludeNamespace = (o: Obj, namespace: string): boolean =>
  objs(o.matchConditions).some((c) => expressionExcludesNamespace(str(c.expression), namespace));
