/**
 * Lint rules about one ValidatingAdmissionPolicy or MutatingAdmissionPolicy (or its
 * binding) on its own. Rules that read other documents are in cross-rules.ts.
 * Ideas and sources: the Kubernetes documentation on ValidatingAdmissionPolicy and MutatingAdmissionPolicy.
 */
import { fieldPath } from '../../base/path';
import { failOpen, guardParams, removeDelete, setField } from '../fixes/edits';
import {
  DEFAULT_KUBERNETES_VERSION,
  KUBERNETES_VERSIONS,
  minorOf,
  releaseLabel,
  releaseOf,
  type AdmissionKind,
  type KubernetesVersion,
} from '../../base/releases';
import { covers, isObj, objs, ruleCovers, str, strs, type Obj } from './helpers';
import { authorizerChecks, hasNestedComprehension, librariesNewerThan, unguardedReads } from './cel-heuristics';
import type { LintRule } from './rule-types';

const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'];
const BINDING_KINDS = ['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding'];

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});
export const resourceRulesOf = (policy: Obj): Obj[] => {
  const mc = specOf(policy).matchConstraints;
  return isObj(mc) ? objs(mc.resourceRules) : [];
};
const wildcard = (r: Obj) => strs(r.resources).some((x) => x === '*' || x === '*/*') || strs(r.apiGroups).includes('*');
/** Broad scope: wildcards or pods. */
export const broadPolicy = (policy: Obj) => resourceRulesOf(policy).some((r) => wildcard(r) || ruleCovers(r, '', 'pods'));

/** Every CEL expression of a policy with its field path. */
export function policyExpressions(policy: Obj): { path: string; expression: string }[] {
  const spec = specOf(policy);
  const out: { path: string; expression: string }[] = [];
  const add = (list: unknown, name: string, key: string) =>
    objs(list).forEach(
      (x, i) => typeof x[key] === 'string' && out.push({ path: String(fieldPath('spec', name).index(i).child(key)), expression: x[key] as string }),
    );
  add(spec.validations, 'validations', 'expression');
  add(spec.validations, 'validations', 'messageExpression');
  add(spec.matchConditions, 'matchConditions', 'expression');
  add(spec.variables, 'variables', 'expression');
  add(spec.auditAnnotations, 'auditAnnotations', 'valueExpression');
  objs(spec.mutations).forEach((m, i) => {
    for (const k of ['applyConfiguration', 'jsonPatch']) {
      const e = isObj(m[k]) ? (m[k] as Obj).expression : undefined;
      if (typeof e === 'string') out.push({ path: String(fieldPath('spec', 'mutations').index(i).child(k, 'expression')), expression: e });
    }
  });
  return out;
}

const readsParams = (e: string) => /\bparams\b/.test(e) && !/params\s*(!=|==)\s*null/.test(e);

/** Pod-security words: a validation about them denies a security violation. */
const SECURITY =
  /securityContext|privileged|hostNetwork|hostPID|hostIPC|hostPath|capabilities|runAsNonRoot|runAsUser|allowPrivilegeEscalation|seccomp|apparmor/i;

export const POLICY_RULES: readonly LintRule[] = [
  {
    id: 'P03',
    name: 'deny-first-rollout',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicyBinding'],
    check: ({ object }) => {
      const spec = specOf(object);
      const actions = strs(spec.validationActions);
      const mr = isObj(spec.matchResources) ? spec.matchResources : {};
      const scoped =
        ['namespaceSelector', 'objectSelector'].some((k) => isObj(mr[k]) && Object.keys(mr[k] as Obj).length > 0) || objs(mr.resourceRules).length > 0;
      if (actions.length !== 1 || actions[0] !== 'Deny' || scoped) return [];
      return [
        {
          field: 'spec.validationActions',
          message: 'the binding denies from day one, in every namespace',
          hint: 'Roll out with [Warn, Audit] first: users see warnings and the audit log shows what would be denied; switch to Deny when it is quiet.',
          fixes: [
            setField(
              'Roll out with validationActions: [Warn, Audit]',
              'spec.validationActions',
              ['Warn', 'Audit'],
              'Nothing is denied until you switch back to Deny.',
            ),
          ],
        },
      ];
    },
  },
  {
    id: 'P04',
    name: 'fail-with-unguarded-access',
    severity: 'warning',
    kinds: POLICY_KINDS,
    check: ({ object }) => {
      if (str(specOf(object).failurePolicy) !== 'Fail') return [];
      return objs(specOf(object).validations).flatMap((v, i) => {
        const reads = unguardedReads(str(v.expression));
        return reads.length
          ? [
              {
                field: String(fieldPath('spec', 'validations').index(i).child('expression')),
                message: `reads ${reads[0]} without has() or ?.: on an object without it the expression errors, and failurePolicy Fail rejects the request`,
                hint: 'Guard optional fields with has(), optional selection (object.?spec.?x) or .orValue(…).',
              },
            ]
          : [];
      });
    },
  },
  {
    id: 'P05',
    name: 'object-null-on-delete',
    severity: 'warning',
    kinds: POLICY_KINDS,
    check: ({ object }) => {
      const rules = resourceRulesOf(object);
      const deleting = rules.map((r, i) => ({ r, i })).filter(({ r }) => covers(strs(r.operations), 'DELETE'));
      if (!deleting.length) return [];
      // Removing DELETE is safe only when each such rule keeps another operation.
      const canFix = deleting.every(({ r }) => strs(r.operations).some((o) => o !== 'DELETE'));
      const fix = removeDelete(deleting.map(({ i }) => String(fieldPath('spec', 'matchConstraints', 'resourceRules').index(i))));
      return objs(specOf(object).validations)
        .map((v, i) => ({ e: str(v.expression), i }))
        .filter(({ e }) => /\bobject\./.test(e) && !/object\s*(==|!=)\s*null|has\(object/.test(e))
        .map(({ i }) => ({
          field: String(fieldPath('spec', 'validations').index(i).child('expression')),
          message: 'the policy matches DELETE, where object is null: this expression then errors and failurePolicy decides',
          hint: "Guard it (request.operation == 'DELETE' || …) or drop DELETE from the operations.",
          fixes: canFix ? [fix] : [],
        }));
    },
  },
  {
    id: 'P06',
    name: 'params-unchecked',
    severity: 'info',
    kinds: POLICY_KINDS,
    check: ({ object }) => {
      const spec = specOf(object);
      if (!isObj(spec.paramKind)) return [];
      const exprs = policyExpressions(object);
      if (exprs.some((e) => /params\s*(!=|==)\s*null/.test(e.expression))) return [];
      const site = str(object.kind) === 'MutatingAdmissionPolicy' ? '.matchConditions[' : '.validations[';
      const guard = exprs.filter((e) => e.path.includes(site) && e.path.endsWith('].expression') && readsParams(e.expression)).map((e) => e.path);
      return [
        {
          field: 'spec.paramKind',
          message: 'no expression checks params != null',
          hint: 'params is null when a binding has no paramRef; guard with params != null (the Kubernetes docs recommend it).',
          fixes: guard.length ? [guardParams(guard)] : [],
        },
      ];
    },
  },
  {
    id: 'P08',
    name: 'parameternotfound-allow',
    severity: 'info',
    kinds: BINDING_KINDS,
    check: ({ object }) => {
      const spec = specOf(object);
      const ref = isObj(spec.paramRef) ? spec.paramRef : undefined;
      if (!ref || str(ref.parameterNotFoundAction) !== 'Allow' || !strs(spec.validationActions).includes('Deny')) return [];
      return [
        {
          field: 'spec.paramRef.parameterNotFoundAction',
          message: 'a missing param silently turns this Deny binding off',
          hint: 'Use Deny if the param is required for enforcement.',
          fixes: [setField('Set parameterNotFoundAction: Deny', 'spec.paramRef.parameterNotFoundAction', 'Deny')],
        },
      ];
    },
  },
  {
    id: 'P09',
    name: 'wildcard-blocks-typecheck',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicy'],
    check: ({ object }) => {
      const rules = resourceRulesOf(object);
      const count = rules.reduce((n, r) => n + strs(r.resources).length * Math.max(1, strs(r.apiGroups).length), 0);
      if (!rules.some(wildcard) && count <= 10) return [];
      return [
        {
          field: 'spec.matchConstraints.resourceRules',
          message: rules.some(wildcard)
            ? 'wildcard resources: the apiserver does not type-check the expressions'
            : `about ${count} resource types: the apiserver type-checks at most 10`,
          hint: 'Mistyped fields then show up only at admission time, as errors. Name the resources, or test the expressions against each kind here.',
        },
      ];
    },
  },
  {
    id: 'P10',
    name: 'no-message',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicy'],
    check: ({ object }) =>
      objs(specOf(object).validations)
        .map((v, i) => ({ v, i }))
        .filter(({ v }) => !str(v.message) && !str(v.messageExpression))
        .map(({ i }) => ({
          field: String(fieldPath('spec', 'validations').index(i)),
          message: 'no message: a denial reads "failed expression: <expression>"',
          hint: 'Say what is wrong and how to fix it (message, or messageExpression for dynamic text).',
        })),
  },
  {
    id: 'P11',
    name: 'cel-in-message',
    severity: 'warning',
    kinds: ['ValidatingAdmissionPolicy'],
    check: ({ object }) =>
      objs(specOf(object).validations)
        .map((v, i) => ({ m: str(v.message), i }))
        .filter(({ m }) => /\b(object|oldObject|params|request|variables)\.[a-zA-Z]/.test(m) && /['"]\s*\+|\+\s*['"]/.test(m))
        .map(({ i }) => ({
          field: String(fieldPath('spec', 'validations').index(i).child('message')),
          message: 'message looks like CEL, but it is shown literally',
          hint: 'Only messageExpression is evaluated.',
        })),
  },
  {
    id: 'P12',
    name: 'messageexpression-fallback',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicy'],
    check: ({ object }) =>
      objs(specOf(object).validations).flatMap((v, i) => {
        const m = str(v.messageExpression);
        if (!m || !(/\\n/.test(m) || /\.join\(/.test(m))) return [];
        return [
          {
            field: String(fieldPath('spec', 'validations').index(i).child('messageExpression')),
            message: 'the message can contain line breaks (or grow past 5 KiB); then the apiserver drops it',
            hint: `It falls back to ${str(v.message) ? 'message' : 'a generic text'}. Join with ", " instead of a newline, and keep the text short.`,
          },
        ];
      }),
  },
  {
    id: 'P13',
    name: 'reason-default',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicy'],
    check: ({ object }) =>
      objs(specOf(object).validations).flatMap((v, i) =>
        !v.reason && SECURITY.test(str(v.expression))
          ? [
              {
                field: String(fieldPath('spec', 'validations').index(i).child('reason')),
                message: 'a security check denies with the default reason Invalid (HTTP 422)',
                hint: 'reason: Forbidden (403) tells clients the request is not allowed, rather than malformed.',
                fixes: [setField('Set reason: Forbidden', String(fieldPath('spec', 'validations').index(i).child('reason')), 'Forbidden')],
              },
            ]
          : [],
      ),
  },
  {
    id: 'P14',
    name: 'cost-risk',
    severity: 'warning',
    kinds: POLICY_KINDS,
    check: ({ object }) =>
      policyExpressions(object).flatMap(({ path, expression }) => {
        const checks = authorizerChecks(expression);
        const nested = hasNestedComprehension(expression);
        if (checks <= 2 && !nested) return [];
        return [
          {
            field: path,
            message: nested ? 'a comprehension inside another one: its cost is the product of the list sizes' : `${checks} authorizer checks in one expression`,
            hint: 'One expression may cost at most 1,000,000 and all of a policy 10,000,000; beyond that it is an error and failurePolicy decides. The apiserver does not warn about this when you write it.',
          },
        ];
      }),
  },
  {
    id: 'P16',
    name: 'library-newer-than-target',
    severity: 'warning',
    kinds: POLICY_KINDS,
    check: ({ object, kubernetesVersion }) => {
      if (!kubernetesVersion) return [];
      const minor = minorOf(kubernetesVersion);
      return policyExpressions(object).flatMap(({ path, expression }) =>
        librariesNewerThan(expression, minor).map((l) => ({
          field: path,
          message: `${l.name} can be written from Kubernetes 1.${l.minor}; a ${kubernetesVersion} apiserver rejects this expression`,
          hint: 'An apiserver accepts new expressions only with libraries of the previous release (its compatibility version). Target a newer version, or avoid the library.',
        })),
      );
    },
  },
  {
    id: 'G01',
    name: 'pre-v1-version',
    severity: 'info',
    kinds: [...POLICY_KINDS, ...BINDING_KINDS],
    check: ({ object, kubernetesVersion }) => {
      if (!/\/v1(alpha|beta)\d+$/.test(str(object.apiVersion))) return [];
      // Whether v1 serves the kind is the target's row of the release table (MutatingAdmissionPolicy: from 1.36 only).
      const kind = str(object.kind) as AdmissionKind;
      const target = kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
      const v1 = 'admissionregistration.k8s.io/v1';
      const servesV1 = (r: KubernetesVersion) => releaseOf(r).served.v1?.[kind] === 'served';
      const pre = `${str(object.apiVersion)} is a pre-release version`;
      if (servesV1(target))
        return [{ field: 'apiVersion', message: `${pre}; ${v1} serves ${kind} in ${releaseLabel(target)}`, hint: `Change apiVersion to ${v1}.` }];
      const from = KUBERNETES_VERSIONS.find((r) => minorOf(r) > minorOf(target) && servesV1(r));
      return [
        {
          field: 'apiVersion',
          message: `${pre}; ${releaseLabel(target)} does not serve ${kind} in ${v1}${from ? ` (${releaseLabel(from)} does)` : ''}`,
          ...(from ? { hint: `Change apiVersion to ${v1} when you target ${from} or later.` } : {}),
        },
      ];
    },
  },
];

/** Kinds exempt from mutating admission (MAP docs). */
const EXEMPT: readonly [string, string][] = [
  ['admissionregistration.k8s.io', 'validatingadmissionpolicies'],
  ['admissionregistration.k8s.io', 'validatingadmissionpolicybindings'],
  ['admissionregistration.k8s.io', 'mutatingadmissionpolicies'],
  ['admissionregistration.k8s.io', 'mutatingadmissionpolicybindings'],
  ['authentication.k8s.io', 'tokenreviews'],
  ['authentication.k8s.io', 'selfsubjectreviews'],
  ['authorization.k8s.io', 'subjectaccessreviews'],
  ['authorization.k8s.io', 'localsubjectaccessreviews'],
  ['authorization.k8s.io', 'selfsubjectaccessreviews'],
  ['authorization.k8s.io', 'selfsubjectrulesreviews'],
];

/** Fields whose schema is atomic in common kinds: an apply configuration cannot merge into them. */
const ATOMIC_FIELDS = /\b(command|args|tolerations|matchExpressions|selector|finalizers|ownerReferences)\s*:/g;

/**
 * The first atomic field the expression sets outside a list literal. Inside `[…]` it belongs
 * to a list item the configuration adds (a new container with its args), which is allowed.
 */
function atomicFieldOutsideNewItems(expression: string): string | undefined {
  for (const m of expression.matchAll(ATOMIC_FIELDS)) {
    const before = expression.slice(0, m.index).replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '');
    const depth = (before.match(/\[/g) ?? []).length - (before.match(/\]/g) ?? []).length;
    if (depth <= 0) return m[1];
  }
  return undefined;
}

const mutationsOf = (o: Obj) => objs(specOf(o).mutations);
const mutationExpr = (m: Obj, k: string) => (isObj(m[k]) ? str((m[k] as Obj).expression) : '');

export const MAP_RULES: readonly LintRule[] = [
  {
    id: 'M01',
    name: 'exempt-kinds',
    severity: 'info',
    kinds: ['MutatingAdmissionPolicy'],
    check: ({ object }) =>
      resourceRulesOf(object).some((r) => !wildcard(r) && EXEMPT.some(([g, res]) => ruleCovers(r, g, res)))
        ? [
            {
              field: 'spec.matchConstraints.resourceRules',
              message: 'admission policies, bindings and access reviews are exempt from mutating admission',
              hint: 'The policy is never called for them; this rule has no effect.',
            },
          ]
        : [],
  },
  {
    id: 'M02',
    name: 'apply-config-atomic',
    severity: 'warning',
    kinds: ['MutatingAdmissionPolicy'],
    check: ({ object }) =>
      mutationsOf(object).flatMap((m, i) => {
        const hit = atomicFieldOutsideNewItems(mutationExpr(m, 'applyConfiguration'));
        return hit
          ? [
              {
                field: String(fieldPath('spec', 'mutations').index(i).child('applyConfiguration', 'expression')),
                message: `the apply configuration sets ${hit}, an atomic field in Kubernetes schemas: the mutation fails at admission time`,
                hint: 'Apply configurations cannot modify atomic lists, maps or structs. Use a JSONPatch mutation for them.',
              },
            ]
          : [];
      }),
  },
  {
    id: 'M03',
    name: 'jsonpatch-unescaped-key',
    severity: 'warning',
    kinds: ['MutatingAdmissionPolicy'],
    check: ({ object }) =>
      mutationsOf(object).flatMap((m, i) => {
        const e = mutationExpr(m, 'jsonPatch');
        const built = /path\s*:\s*("[^"]*"|'[^']*')\s*\+/.test(e);
        return built && !/jsonpatch\.escapeKey\(/.test(e)
          ? [
              {
                field: String(fieldPath('spec', 'mutations').index(i).child('jsonPatch', 'expression')),
                message: 'a JSON Patch path is built by concatenation without jsonpatch.escapeKey()',
                hint: 'Keys such as label names may contain "/" or "~" (app.kubernetes.io/name): escape them or the patch hits the wrong field.',
              },
            ]
          : [];
      }),
  },
  {
    id: 'M04',
    name: 'jsonpatch-not-idempotent',
    severity: 'warning',
    kinds: ['MutatingAdmissionPolicy'],
    check: ({ object }) =>
      mutationsOf(object).flatMap((m, i) => {
        const e = mutationExpr(m, 'jsonPatch');
        const append = /\/-["']/.test(e) && objs(specOf(object).matchConditions).length === 0 && !/\.exists\(|\.all\(|\bin\b/.test(e);
        const replace = /op\s*:\s*["']replace["']/.test(e);
        if (!append && !replace) return [];
        return [
          {
            field: String(fieldPath('spec', 'mutations').index(i).child('jsonPatch', 'expression')),
            message: append
              ? 'appends to a list (path ending in /-) without checking the entry is already there'
              : 'a replace operation overwrites the whole value',
            hint: append
              ? 'On reinvocation the entry is added twice: guard with a matchCondition or an exists() check.'
              : 'Replacing a list drops what others added; add the entries you need instead.',
          },
        ];
      }),
  },
  {
    id: 'M05',
    name: 'map-fail-closed',
    severity: 'warning',
    kinds: ['MutatingAdmissionPolicy'],
    check: ({ object }) =>
      str(specOf(object).failurePolicy) === 'Fail' && broadPolicy(object)
        ? [
            {
              field: 'spec.failurePolicy',
              message: 'the mutating policy fails closed on pods or wildcard resources: an expression error rejects those requests',
              hint: 'Mutations usually fail open; enforce the final state with a ValidatingAdmissionPolicy.',
              fixes: [failOpen('spec.failurePolicy')],
            },
          ]
        : [],
  },
];
