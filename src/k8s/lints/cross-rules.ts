/**
 * Lint rules that read more than one webhook or document: policy ↔ binding pairing,
 * scope across a binding and its policy, webhooks of one configuration, and policies
 * and webhooks that act on the same requests.
 * Ideas and sources: the Kubernetes documentation on admission webhook good practices and on admission policies.
 */
import { createBinding, excludeNamespaces } from '../fixes/edits';
import { deepEqual, valueKey } from '../../base/json';
import { isObj, kindOf, nameOf, objs, ruleCovers, selectorExcludesNamespace, str, strs, type Obj } from './helpers';
import { conditionsExcludeNamespace } from './namespace-guards';
import { broadPolicy, resourceRulesOf } from './policy-rules';
import type { Finding, LintRule } from './rule-types';

const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'];
const BINDING_KINDS = ['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding'];
const WEBHOOK_KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});
const policyOf = (binding: Obj, workspace: readonly unknown[]): Obj | undefined => {
  const found = workspace.find((o) => kindOf(o) === kindOf(binding).replace(/Binding$/, '') && nameOf(o) === str(specOf(binding).policyName));
  return isObj(found) ? found : undefined;
};

/** Projections for `reads`: the parts of other objects a rule looks at. */
const POLICY_KIND_SET = new Set(POLICY_KINDS);
const policyNamed = (o: Obj) => (POLICY_KIND_SET.has(kindOf(o)) ? [kindOf(o), nameOf(o)] : undefined);
const bindingOf = (o: Obj) => (BINDING_KINDS.includes(kindOf(o)) ? [kindOf(o), str(specOf(o).policyName)] : undefined);
const policyScope = (o: Obj) =>
  POLICY_KIND_SET.has(kindOf(o)) ? [kindOf(o), nameOf(o), isObj(specOf(o).paramKind), specOf(o).matchConstraints ?? null] : undefined;

/** The (group, resource) pairs rules name, wildcards as '*'. */
const pairs = (rules: Obj[]): [string, string][] =>
  rules.flatMap((r) => strs(r.apiGroups).flatMap((g) => strs(r.resources).map((res): [string, string] => [g, res.split('/')[0]!])));
const overlap = (a: Obj[], b: Obj[]) =>
  pairs(a).some(([g, res]) => b.some((r) => ruleCovers(r, g, res))) || pairs(b).some(([g, res]) => a.some((r) => ruleCovers(r, g, res)));

/**
 * W23 for two (defaulted) webhooks: the same clientConfig and overlapping rules. Remembered by
 * what it compares (each webhook's clientConfig and rules as a valueKey, worked out once per webhook
 * object), so an edit elsewhere in a webhook (its timeout) asks nothing again, even of the
 * 10,000 webhooks compared with it; every pair is still asked, so a finding across webhooks
 * follows each edit.
 */
const comparedKeys = new WeakMap<Obj, string>();
function comparedKey(w: Obj): string {
  let key = comparedKeys.get(w);
  if (key === undefined) comparedKeys.set(w, (key = valueKey([w.clientConfig, w.rules])));
  return key;
}
const consolidatable = new Map<string, Map<string, boolean>>();
function callsSameEndpoint(earlier: Obj, w: Obj): boolean {
  const a = comparedKey(earlier);
  const b = comparedKey(w);
  let row = consolidatable.get(b);
  if (!row) {
    // a bounded memo: a long session's keys do not pile up
    if (consolidatable.size > 50_000) consolidatable.clear();
    consolidatable.set(b, (row = new Map()));
  }
  let answer = row.get(a);
  if (answer === undefined) row.set(a, (answer = deepEqual(earlier.clientConfig, w.clientConfig) && overlap(objs(earlier.rules), objs(w.rules))));
  return answer;
}

/** The same string for clientConfigs that are deepEqual (other configs may share it): webhooks that could call the same endpoint. */
const endpoints = new WeakMap<Obj, string>();
function endpointOf(clientConfig: unknown): string {
  const part = (v: unknown) => (typeof v === 'object' && v !== null ? typeof v : `${typeof v}:${String(v)}`);
  if (!isObj(clientConfig)) return part(clientConfig);
  let endpoint = endpoints.get(clientConfig);
  if (endpoint === undefined) {
    const service = isObj(clientConfig.service) ? clientConfig.service : {};
    endpoint = [clientConfig.url, service.namespace, service.name, service.path, service.port].map(part).join('\0');
    endpoints.set(clientConfig, endpoint);
  }
  return endpoint;
}

/** W23's finding for webhook `i` and the earlier `j`, the same object while they stay (10,000 webhooks: the findings of the others are kept). */
const consolidateFindings = new WeakMap<Obj, { i: number; j: number; finding: Finding }>();
function consolidateFinding(w: Obj, i: number, j: number): Finding {
  const hit = consolidateFindings.get(w);
  if (hit && hit.i === i && hit.j === j) return hit.finding;
  const finding: Finding = {
    field: `webhooks[${i}].clientConfig`,
    message: `calls the same endpoint as webhooks[${j}] for overlapping rules: each matching request calls it twice`,
    hint: 'One webhook with both rule sets (one call per request) cuts latency.',
  };
  consolidateFindings.set(w, { i, j, finding });
  return finding;
}

export const CROSS_RULES: readonly LintRule[] = [
  {
    id: 'P01',
    name: 'policy-without-binding',
    severity: 'warning',
    kinds: POLICY_KINDS,
    reads: bindingOf,
    check: ({ object, workspace }) => {
      const bindingKind = `${kindOf(object)}Binding`;
      const name = nameOf(object);
      const bound = workspace.some((o) => kindOf(o) === bindingKind && isObj(o) && str(specOf(o).policyName) === name);
      return bound || !name
        ? []
        : [
            {
              field: 'metadata.name',
              message: `no ${bindingKind} in the workspace names this policy`,
              hint: 'A policy does nothing until a binding puts it into effect.',
              fixes: [createBinding(object)],
            },
          ];
    },
  },
  {
    id: 'P02',
    name: 'dangling-binding',
    severity: 'warning',
    kinds: BINDING_KINDS,
    reads: policyNamed,
    check: ({ object, workspace }) => {
      const policyKind = kindOf(object).replace(/Binding$/, '');
      const name = str(specOf(object).policyName);
      if (!name || workspace.some((o) => kindOf(o) === policyKind && nameOf(o) === name)) return [];
      return [
        {
          field: 'spec.policyName',
          message: `no ${policyKind} named "${name}" in the workspace`,
          hint: 'The binding does nothing unless the policy exists in the cluster.',
        },
      ];
    },
  },
  {
    id: 'P07',
    name: 'paramkind-paramref-mismatch',
    severity: 'warning',
    kinds: BINDING_KINDS,
    reads: policyScope,
    check: ({ object, workspace }) => {
      const policy = policyOf(object, workspace);
      if (!policy) return [];
      const hasKind = isObj(specOf(policy).paramKind);
      const hasRef = isObj(specOf(object).paramRef);
      if (hasKind && !hasRef)
        return [
          {
            field: 'spec.paramRef',
            message: 'the policy takes params (paramKind) but this binding gives none',
            hint: 'params is null in every expression: add paramRef.',
          },
        ];
      if (!hasKind && hasRef)
        return [
          {
            field: 'spec.paramRef',
            message: 'the policy has no paramKind: this paramRef is ignored',
            hint: 'Remove paramRef, or give the policy a paramKind if its expressions should read params.',
          },
        ];
      return [];
    },
  },
  {
    id: 'P15',
    name: 'kube-system-unexcluded',
    severity: 'warning',
    kinds: BINDING_KINDS,
    reads: policyScope,
    check: ({ object, workspace }) => {
      const spec = specOf(object);
      const policy = policyOf(object, workspace);
      if (!policy || !broadPolicy(policy)) return [];
      if (kindOf(object) === 'ValidatingAdmissionPolicyBinding' && !strs(spec.validationActions).includes('Deny')) return [];
      const mr = isObj(spec.matchResources) ? spec.matchResources : {};
      const mc = isObj(specOf(policy).matchConstraints) ? (specOf(policy).matchConstraints as Obj) : {};
      if (
        selectorExcludesNamespace(mr.namespaceSelector, 'kube-system') ||
        selectorExcludesNamespace(mc.namespaceSelector, 'kube-system') ||
        conditionsExcludeNamespace(specOf(policy), 'kube-system')
      )
        return [];
      return [
        {
          field: 'spec.matchResources.namespaceSelector',
          message: `the binding ${kindOf(object) === 'ValidatingAdmissionPolicyBinding' ? 'denies' : 'mutates'} requests in kube-system too (the policy covers pods or wildcard resources)`,
          hint: 'System workloads can be blocked like with a webhook: exclude kube-system in the binding (or the policy) namespaceSelector.',
          fixes: [excludeNamespaces('spec.matchResources.namespaceSelector', ['kube-system'])],
        },
      ];
    },
  },
  {
    id: 'W23',
    name: 'consolidate',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    check: ({ object }) => {
      const hooks = objs(object.webhooks);
      // the first earlier webhook that calls the same endpoint for overlapping rules, among those that could
      const earlierByEndpoint = new Map<string, number[]>();
      const out: Finding[] = [];
      hooks.forEach((w, i) => {
        const endpoint = endpointOf(w.clientConfig);
        const earlier = earlierByEndpoint.get(endpoint);
        const j = earlier?.find((k) => callsSameEndpoint(hooks[k]!, w)) ?? -1;
        if (earlier) earlier.push(i);
        else earlierByEndpoint.set(endpoint, [i]);
        if (j >= 0) out.push(consolidateFinding(w, i, j));
      });
      return out;
    },
  },
  {
    id: 'W25',
    name: 'ha-hint',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    check: ({ object }) => {
      const i = objs(object.webhooks).findIndex((w) => str(w.failurePolicy) === 'Fail' && isObj(w.clientConfig) && isObj(w.clientConfig.service));
      return i < 0
        ? []
        : [
            {
              field: `webhooks[${i}].clientConfig.service`,
              message: 'a fail-closed webhook served in the cluster: every matching request needs its pods up',
              hint: 'Check the serving Deployment: at least 2 replicas on different nodes, a PodDisruptionBudget, readiness probes, and resource requests.',
            },
          ];
    },
  },
  {
    id: 'G03',
    name: 'overlapping-policies',
    severity: 'info',
    kinds: ['ValidatingAdmissionPolicy'],
    reads: (o) => (kindOf(o) === 'MutatingAdmissionPolicy' ? [nameOf(o), resourceRulesOf(o)] : undefined),
    check: ({ object, workspace }) => {
      const mine = resourceRulesOf(object);
      const maps = workspace.filter((o): o is Obj => kindOf(o) === 'MutatingAdmissionPolicy' && isObj(o) && overlap(resourceRulesOf(o), mine));
      return maps.length === 0
        ? []
        : [
            {
              field: 'spec.matchConstraints.resourceRules',
              message: `MutatingAdmissionPolicy "${nameOf(maps[0])}" changes the same resources before this policy validates them`,
              hint: 'Mutation runs first: run both in the policy test panel to check the mutated object still passes this policy.',
            },
          ];
    },
  },
  {
    id: 'G04',
    name: 'policy-and-webhook-mutate',
    severity: 'info',
    kinds: ['MutatingAdmissionPolicy'],
    reads: (o) => (kindOf(o) === 'MutatingWebhookConfiguration' ? [nameOf(o), objs(o.webhooks).map((w) => w.rules ?? null)] : undefined),
    check: ({ object, workspace }) => {
      const mine = resourceRulesOf(object);
      const hook = workspace.find(
        (o) => kindOf(o) === 'MutatingWebhookConfiguration' && isObj(o) && objs(o.webhooks).some((w) => overlap(objs(w.rules), mine)),
      );
      return hook === undefined
        ? []
        : [
            {
              field: 'spec.matchConstraints.resourceRules',
              message: `mutating webhooks of "${nameOf(hook)}" change the same resources`,
              hint: 'Mutating policies and webhooks run in one phase whose order you should not rely on; if both set the same fields, the last writer wins, and reinvocation can flip it. Make them touch different fields.',
            },
          ];
    },
  },
];
