/**
 * The lint rules: one entry per finding, with the kinds it applies to. Each check
 * receives the defaulted object and returns its findings (field, message, hint).
 * Ideas and sources: shared/reference/anchors.md §3 (Kubernetes docs "Dynamic Admission
 * Control", "Admission Webhook Good Practices", the VAP/MAP docs).
 */
import { fieldPath, type FieldPath } from '../path';
import { covers, isEmptySelector, isObj, kindOf, nameOf, objs, ruleCovers, selectorExcludesNamespace, str, strs, type Obj } from './helpers';
import type { LintContext } from './types';

export interface Finding {
  field: string;
  message: string;
  hint?: string;
}

export interface LintRule {
  id: string;
  name: string;
  severity: 'warning' | 'info';
  kinds: readonly string[];
  check(ctx: LintContext): Finding[];
}

const WEBHOOK_KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];
const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'];
const BINDING_KINDS = ['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding'];

const rulesOf = (w: Obj) => objs(w.rules);

/** Resources whose loss stops a cluster when a fail-closed webhook is down. */
const CRITICAL: readonly [string, string][] = [
  ['', 'pods'],
  ['', 'nodes'],
  ['', 'namespaces'],
  ['', 'events'],
  ['coordination.k8s.io', 'leases'],
];

const coversNamespaced = (rules: Obj[]) => rules.some((r) => str(r.scope) !== 'Cluster');
const broad = (r: Obj) => strs(r.resources).some((x) => x === '*' || x === '*/*') || strs(r.apiGroups).includes('*');

/** Rules about one webhook of a configuration: run per webhook, so results are reused for unchanged webhooks. */
export interface WebhookLintRule {
  id: string;
  name: string;
  severity: 'warning' | 'info';
  kinds: readonly string[];
  webhook(w: Obj, p: FieldPath, ctx: WebhookContext): Finding[];
}

/** What a webhook rule may know of the configuration around the webhook. */
export interface WebhookContext {
  /** A CA injector (cert-manager, OpenShift) fills caBundle. */
  caInjected: boolean;
}

const one = (cond: boolean, f: () => Finding): Finding[] => (cond ? [f()] : []);

export const WEBHOOK_RULES: readonly WebhookLintRule[] = [
  {
    id: 'W01',
    name: 'no-kube-system-exclusion',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(rulesOf(w).length > 0 && coversNamespaced(rulesOf(w)) && !selectorExcludesNamespace(w.namespaceSelector, 'kube-system'), () => ({
        field: String(p.child('namespaceSelector')),
        message: 'requests in kube-system are sent to this webhook',
        hint: 'Exclude system namespaces, e.g. matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]: a webhook that rejects or blocks control-plane requests can take the cluster down.',
      })),
  },
  {
    id: 'W02',
    name: 'self-deadlock',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      const ns = isObj(w.clientConfig) && isObj(w.clientConfig.service) ? str(w.clientConfig.service.namespace) : '';
      if (!ns || str(w.failurePolicy) !== 'Fail') return [];
      const hitsOwnPods = rulesOf(w).some((r) => ruleCovers(r, '', 'pods') || ruleCovers(r, 'apps', 'deployments') || ruleCovers(r, 'apps', 'replicasets'));
      return one(hitsOwnPods && !selectorExcludesNamespace(w.namespaceSelector, ns), () => ({
        field: String(p.child('namespaceSelector')),
        message: `the webhook's own namespace "${ns}" is not excluded, and it fails closed on pods/deployments`,
        hint: `If the webhook's pods go down, they cannot be re-created: the apiserver would need the webhook to admit them. Exclude "${ns}" in namespaceSelector.`,
      }));
    },
  },
  {
    id: 'W03',
    name: 'fail-closed-broad',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      if (str(w.failurePolicy) !== 'Fail') return [];
      const hit = rulesOf(w).find((r) => broad(r) || CRITICAL.some(([g, res]) => ruleCovers(r, g, res)));
      return one(!!hit, () => ({
        field: String(p.child('failurePolicy')),
        message: `failurePolicy is Fail (also the default when unset) on ${hit && broad(hit) ? 'wildcard resources' : 'pods, nodes, namespaces, events or leases'}: while the webhook is down, these requests are rejected`,
        hint: 'This is how clusters get locked out. Narrow the rules, exclude system namespaces, add matchConditions, or use failurePolicy: Ignore and enforce the final state elsewhere.',
      }));
    },
  },
  {
    id: 'W04',
    name: 'mutating-fail-closed',
    severity: 'info',
    kinds: ['MutatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(str(w.failurePolicy) === 'Fail', () => ({
        field: String(p.child('failurePolicy')),
        message: 'a mutating webhook fails closed',
        hint: 'Mutators usually fail open (Ignore) and a validating webhook or policy enforces the final state.',
      })),
  },
  {
    id: 'W05',
    name: 'wildcard-resources',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      rulesOf(w).flatMap((r, j) =>
        one(broad(r), () => ({
          field: String(p.child('rules').index(j).child('resources')),
          message: 'the rule intercepts every resource (and, with */*, every subresource such as pods/exec)',
          hint: 'Every matching request waits for the webhook: list the resources it needs.',
        })),
      ),
  },
  {
    id: 'W07',
    name: 'node-leases',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(rulesOf(w).some((r) => ruleCovers(r, 'coordination.k8s.io', 'leases') && !broad(r)), () => ({
        field: String(p.child('rules')),
        message: 'the webhook intercepts node leases (coordination.k8s.io/leases)',
        hint: 'Kubelets renew leases every few seconds; delaying or changing them can mark nodes NotReady and break upgrades.',
      })),
  },
  {
    id: 'W08',
    name: 'virtual-resources',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(rulesOf(w).some((r) => strs(r.apiGroups).some((g) => g === 'authentication.k8s.io' || g === 'authorization.k8s.io')), () => ({
        field: String(p.child('rules')),
        message: 'the webhook intercepts TokenReview/SubjectAccessReview-style resources',
        hint: 'These are read-only reviews the apiserver answers itself; intercepting them can break authentication and authorization.',
      })),
  },
  {
    id: 'W09',
    name: 'admission-objects-unreachable',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(rulesOf(w).some((r) => strs(r.apiGroups).includes('admissionregistration.k8s.io') && strs(r.resources).some((x) => !x.startsWith('*'))), () => ({
        field: String(p.child('rules')),
        message: 'webhooks are never called for admission configuration objects (webhook configurations, policies, bindings)',
        hint: 'The apiserver exempts them so a cluster can always be recovered; this rule has no effect.',
      })),
  },
  {
    id: 'W10',
    name: 'timeout-long',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > 5, () => ({
        field: String(p.child('timeoutSeconds')),
        message: `the apiserver waits up to ${String(w.timeoutSeconds)}s for this webhook on every matching request`,
        hint: 'Webhooks should answer in milliseconds; a short timeout (2–5 s) bounds the damage when one hangs. Mutating webhooks run in series, so their timeouts add up.',
      })),
  },
  {
    id: 'W12',
    name: 'matchpolicy-exact',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(str(w.matchPolicy) === 'Exact', () => ({
        field: String(p.child('matchPolicy')),
        message: 'requests through other API versions of the same resources bypass this webhook',
        hint: 'Equivalent (the default) also sends requests made through other group/versions, converted to one the rules name.',
      })),
  },
  {
    id: 'W14',
    name: 'objectselector-on-enforcement',
    severity: 'info',
    kinds: ['ValidatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(str(w.failurePolicy) === 'Fail' && !isEmptySelector(w.objectSelector), () => ({
        field: String(p.child('objectSelector')),
        message: "an enforcing webhook can be skipped by whoever sets the object's labels",
        hint: "Use objectSelector for opt-in webhooks only; users control their objects' labels.",
      })),
  },
  {
    id: 'W18',
    name: 'url-in-cluster',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      const url = isObj(w.clientConfig) ? str(w.clientConfig.url) : '';
      const host = /^[a-z]+:\/\/([^/:?#]*)/i.exec(url)?.[1]?.toLowerCase() ?? '';
      if (host === 'localhost' || host.startsWith('127.') || host === '[::1]')
        return [{ field: String(p.child('clientConfig', 'url')), message: "the URL points at the apiserver's own host", hint: 'localhost webhooks are non-portable and fail when the apiserver moves; prefer service.' }];
      if (host.endsWith('.svc') || host.endsWith('.cluster.local'))
        return [{ field: String(p.child('clientConfig', 'url')), message: 'the URL uses in-cluster DNS, which the apiserver usually cannot resolve', hint: 'Use clientConfig.service for in-cluster webhooks.' }];
      return [];
    },
  },
  {
    id: 'W19',
    name: 'cabundle-missing',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p, ctx) =>
      one(!ctx.caInjected && isObj(w.clientConfig) && isObj(w.clientConfig.service) && !str(w.clientConfig.caBundle), () => ({
        field: String(p.child('clientConfig', 'caBundle')),
        message: "no caBundle: the apiserver verifies the service's certificate against its system roots",
        hint: 'In-cluster webhook certificates are rarely signed by public roots. Set caBundle, or let cert-manager inject it (cert-manager.io/inject-ca-from annotation).',
      })),
  },
  {
    id: 'W24',
    name: 'admissionreview-v1beta1-only',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(strs(w.admissionReviewVersions).length > 0 && !strs(w.admissionReviewVersions).includes('v1'), () => ({
        field: String(p.child('admissionReviewVersions')),
        message: 'the webhook does not accept AdmissionReview v1',
        hint: 'v1 is the current version; list it first.',
      })),
  },
];

/** Whether a CA injector fills the configuration's caBundles (read from its annotations). */
export function caInjected(object: Obj): boolean {
  const annotations = isObj(object.metadata) && isObj(object.metadata.annotations) ? object.metadata.annotations : {};
  return Object.keys(annotations).some((k) => k.startsWith('cert-manager.io/inject-ca-from') || k === 'service.beta.openshift.io/inject-cabundle');
}

/** Rules about a whole object (policies, bindings, and what spans documents). */
export const RULES: readonly LintRule[] = [
  {
    id: 'P01',
    name: 'policy-without-binding',
    severity: 'warning',
    kinds: POLICY_KINDS,
    check: ({ object, workspace }) => {
      const bindingKind = `${kindOf(object)}Binding`;
      const name = nameOf(object);
      const bound = workspace.some((o) => kindOf(o) === bindingKind && isObj(o) && isObj(o.spec) && str(o.spec.policyName) === name);
      return bound || !name
        ? []
        : [{ field: 'metadata.name', message: `no ${bindingKind} in the workspace names this policy`, hint: 'A policy does nothing until a binding puts it into effect.' }];
    },
  },
  {
    id: 'P02',
    name: 'dangling-binding',
    severity: 'warning',
    kinds: BINDING_KINDS,
    check: ({ object, workspace }) => {
      const policyKind = kindOf(object).replace(/Binding$/, '');
      const name = isObj(object.spec) ? str(object.spec.policyName) : '';
      if (!name || workspace.some((o) => kindOf(o) === policyKind && nameOf(o) === name)) return [];
      return [{ field: 'spec.policyName', message: `no ${policyKind} named "${name}" in the workspace`, hint: 'The binding does nothing unless the policy exists in the cluster.' }];
    },
  },
  {
    id: 'P05',
    name: 'object-null-on-delete',
    severity: 'warning',
    kinds: POLICY_KINDS,
    check: ({ object }) => {
      const spec = isObj(object.spec) ? object.spec : {};
      const mc = isObj(spec.matchConstraints) ? spec.matchConstraints : {};
      const deletes = objs(mc.resourceRules).some((r) => covers(strs(r.operations), 'DELETE'));
      if (!deletes) return [];
      return objs(spec.validations)
        .map((v, i) => ({ e: str(v.expression), i }))
        .filter(({ e }) => /\bobject\./.test(e) && !/object\s*(==|!=)\s*null|has\(object/.test(e))
        .map(({ i }) => ({
          field: String(fieldPath('spec', 'validations').index(i).child('expression')),
          message: 'the policy matches DELETE, where object is null: this expression then errors and failurePolicy decides',
          hint: "Guard it (request.operation == 'DELETE' || …) or drop DELETE from the operations.",
        }));
    },
  },
  {
    id: 'P06',
    name: 'params-unchecked',
    severity: 'info',
    kinds: POLICY_KINDS,
    check: ({ object }) => {
      const spec = isObj(object.spec) ? object.spec : {};
      if (!isObj(spec.paramKind)) return [];
      const exprs = [...objs(spec.validations).map((v) => str(v.expression)), ...objs(spec.matchConditions).map((c) => str(c.expression))];
      if (exprs.some((e) => /params\s*(!=|==)\s*null/.test(e))) return [];
      return [{ field: 'spec.paramKind', message: 'no expression checks params != null', hint: 'params is null when a binding has no paramRef; guard with params != null (the Kubernetes docs recommend it).' }];
    },
  },
  {
    id: 'P07',
    name: 'paramkind-paramref-mismatch',
    severity: 'warning',
    kinds: BINDING_KINDS,
    check: ({ object, workspace }) => {
      const spec = isObj(object.spec) ? object.spec : {};
      const policy = workspace.find((o) => kindOf(o) === kindOf(object).replace(/Binding$/, '') && nameOf(o) === str(spec.policyName));
      if (!isObj(policy)) return [];
      const hasKind = isObj(policy.spec) && isObj(policy.spec.paramKind);
      const hasRef = isObj(spec.paramRef);
      if (hasKind && !hasRef) return [{ field: 'spec.paramRef', message: 'the policy takes params (paramKind) but this binding gives none', hint: 'params is null in every expression: add paramRef.' }];
      if (!hasKind && hasRef) return [{ field: 'spec.paramRef', message: 'the policy has no paramKind: this paramRef is ignored' }];
      return [];
    },
  },
  {
    id: 'P08',
    name: 'parameternotfound-allow',
    severity: 'info',
    kinds: BINDING_KINDS,
    check: ({ object }) => {
      const spec = isObj(object.spec) ? object.spec : {};
      const ref = isObj(spec.paramRef) ? spec.paramRef : undefined;
      if (!ref || str(ref.parameterNotFoundAction) !== 'Allow' || !strs(spec.validationActions).includes('Deny')) return [];
      return [{ field: 'spec.paramRef.parameterNotFoundAction', message: 'a missing param silently turns this Deny binding off', hint: 'Use Deny if the param is required for enforcement.' }];
    },
  },
  {
    id: 'P10',
    name: 'no-message',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicy'],
    check: ({ object }) =>
      objs(isObj(object.spec) ? object.spec.validations : [])
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
      objs(isObj(object.spec) ? object.spec.validations : [])
        .map((v, i) => ({ m: str(v.message), i }))
        .filter(({ m }) => /\b(object|oldObject|params|request|variables)\.[a-zA-Z]/.test(m) && /['"]\s*\+|\+\s*['"]/.test(m))
        .map(({ i }) => ({
          field: String(fieldPath('spec', 'validations').index(i).child('message')),
          message: 'message looks like CEL, but it is shown literally',
          hint: 'Only messageExpression is evaluated.',
        })),
  },
  {
    id: 'G01',
    name: 'pre-v1-version',
    severity: 'info',
    kinds: [...POLICY_KINDS, ...BINDING_KINDS],
    check: ({ object }) =>
      /\/v1(alpha|beta)\d+$/.test(str(object.apiVersion))
        ? [{ field: 'apiVersion', message: `${str(object.apiVersion)} is a pre-release version; admissionregistration.k8s.io/v1 serves this kind in 1.36`, hint: 'Change apiVersion to admissionregistration.k8s.io/v1.' }]
        : [],
  },
];
