/**
 * The quick fixes themselves: small pure edits by field path, built by the lint rules and
 * the validation-error table (errors.ts). Each returns a Fix whose apply() works on the
 * object as the user wrote it (not the defaulted one): lists keep their indices, so a
 * path found on the defaulted object is the same path in the original.
 */
import { getIn, setIn } from '../edit';
import { apiVersionOf, KINDS } from '../registry';
import { parsePath, type PathSegment } from '../../base/path';
import { obj } from '../../base/json';
import { REVIEW_RESOURCES } from '../../base/releases';
import { groupsOfResource, NAMESPACE_NAME_LABEL } from '../resources';
import { isObj, kindOf, nameOf, objs, str, strs, type Obj } from '../lints/helpers';
import { skipsSystemUsers } from '../lints/system-guards';
import { paramValue, type Fix, type FixInput } from './types';

const at = (path: string): PathSegment[] => parsePath(path);

/** A fix that sets one field. */
export const setField = (title: string, path: string, value: unknown, note?: string): Fix => ({
  title,
  note,
  apply: (object) => ({ object: setIn(object, at(path), value) }),
});

const NAME_KEY = NAMESPACE_NAME_LABEL;

/** Merge `kubernetes.io/metadata.name NotIn [namespaces]` into the selector at `selectorPath` (other requirements kept). */
export function excludeNamespaces(selectorPath: string, namespaces: readonly string[]): Fix {
  const list = [...new Set(namespaces)];
  return {
    title: `Exclude ${list.join(' and ')} in namespaceSelector`,
    note: `Adds "${NAME_KEY} NotIn [${list.join(', ')}]" to the selector; its other requirements stay.`,
    apply: (object) => {
      const selector = getIn(object, at(selectorPath));
      const base: Obj = isObj(selector) ? selector : {};
      const exprs = objs(base.matchExpressions);
      const i = exprs.findIndex((e) => str(e.key) === NAME_KEY && str(e.operator) === 'NotIn');
      const next =
        i >= 0
          ? exprs.map((e, j) => (j === i ? { ...e, values: [...new Set([...strs(e.values), ...list])] } : e))
          : [...exprs, { key: NAME_KEY, operator: 'NotIn', values: list }];
      return { object: setIn(object, at(selectorPath), { ...base, matchExpressions: next }) };
    },
  };
}

/**
 * Skips the control plane and nodes: users named system:* other than service accounts
 * (scheduler, controller-manager, kubelets as system:node:*), and the system:nodes group.
 * Service accounts still go through, so pods made by controllers are still checked.
 */
export const SKIP_SYSTEM_EXPRESSION =
  "!('system:nodes' in request.userInfo.groups) && !(request.userInfo.username.startsWith('system:') && !request.userInfo.username.startsWith('system:serviceaccount:'))";

/** Append a matchCondition skipping system users and nodes to the webhook at `webhookPath`. */
export function skipSystemUsers(webhookPath: string): Fix {
  return {
    title: 'Skip control-plane users and nodes (matchCondition)',
    note: 'Requests from system:* users (scheduler, controller-manager, kubelets) and the system:nodes group no longer reach the webhook; service accounts still do, so pods made by controllers are still checked.',
    apply: (object) => {
      // A guard already there (an equivalent shape, system-guards.ts) is not added twice.
      if (skipsSystemUsers(obj(getIn(object, at(webhookPath))))) return { object };
      const conditions = objs(getIn(object, [...at(webhookPath), 'matchConditions']));
      const taken = new Set(conditions.map((c) => str(c.name)));
      let name = 'exclude-system-users';
      for (let n = 2; taken.has(name); n++) name = `exclude-system-users-${n}`;
      return { object: setIn(object, [...at(webhookPath), 'matchConditions'], [...conditions, { name, expression: SKIP_SYSTEM_EXPRESSION }]) };
    },
  };
}

export const failOpen = (failurePolicyPath: string): Fix =>
  setField(
    'Set failurePolicy: Ignore (fail open)',
    failurePolicyPath,
    'Ignore',
    'While the webhook is down or slow, requests are admitted without it: enforce the final state another way (a ValidatingAdmissionPolicy, or a controller that reconciles).',
  );

const listOf = (text: string): string[] => [
  ...new Set(
    text
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

// The entries of a rule's resources that narrowing replaces: every resource (and with `*/*` every subresource).
const wildcardResource = (r: string) => r === '*' || r === '*/*';

/**
 * The groups among a rule's `groups` that serve a resource it lists (`deployments/scale` → apps):
 * a rule matches each of its groups with each of its resources, so these must stay when its
 * apiGroups is narrowed. All of `groups` where that is not known (a custom resource, `*` as the
 * resource), and for a review resource: named in its group, the rule draws the apiserver's
 * warning that it has no effect (1.37), which under `*` it does not.
 */
function groupsServing(entry: string, groups: readonly string[]): readonly string[] {
  const resource = entry.split('/')[0]!;
  const served = groupsOfResource(resource).filter((g) => !REVIEW_RESOURCES.some((r) => r.group === g && r.resource === resource));
  if (!served.length) return groups;
  return groups.includes('*') ? served : served.filter((g) => groups.includes(g));
}

/** What narrowing a rule to `typed` resources in `typedGroups` gives: only the wildcards give way. */
function narrowed(rule: Obj, typed: readonly string[], typedGroups: readonly string[]): { resources: string[]; apiGroups: string[] } {
  const resources = strs(rule.resources);
  const groups = strs(rule.apiGroups);
  // The entries listed beside `*` stay where they are (with their comments); the typed ones take the first wildcard's place.
  const listed = resources.filter((r) => !wildcardResource(r));
  const first = resources.findIndex(wildcardResource);
  const nextResources = resources.flatMap((r, i) => (i === first ? typed.filter((t) => !listed.includes(t)) : wildcardResource(r) ? [] : [r]));
  const wanted = [...new Set([...typedGroups, ...listed.flatMap((r) => groupsServing(r, groups))])];
  // A listed resource whose groups are not known keeps `*`; else `*` gives way to the groups wanted, in its place.
  const apiGroups = wanted.includes('*')
    ? groups
    : groups.includes('*')
      ? groups.flatMap((g) => (g === '*' ? wanted.filter((w) => !groups.includes(w)) : [g]))
      : wanted;
  return { resources: nextResources, apiGroups };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Replace the wildcard resources (and a wildcard apiGroups) of one rule with what the user lists;
 * the resources listed beside them stay, and so do the groups those are served in. Undefined when
 * nothing can be narrowed (only `*` in apiGroups, beside resources whose groups are not known).
 */
export function narrowResources(rulePath: string, rule: Obj): Fix | undefined {
  const groups = strs(rule.apiGroups);
  const wildcard = strs(rule.resources).some(wildcardResource);
  const listed = strs(rule.resources).filter((r) => !wildcardResource(r));
  const fromListed = [...new Set(listed.flatMap((r) => groupsServing(r, groups)))];
  if (!wildcard && fromListed.includes('*')) return undefined;
  const shown = (list: readonly string[]) => list.map((g) => (g === '' ? '""' : g)).join(', ');
  const fix: Fix = {
    title: 'Narrow the rule to the resources you list',
    note: listed.length
      ? 'Only the wildcards are replaced: the resources listed beside them stay, and so do the API groups they are served in (a rule matches each of its groups with each of its resources).'
      : undefined,
    params: [
      ...(wildcard
        ? [{ name: 'resources', label: 'Resources (comma-separated, e.g. pods, deployments, pods/status)', default: 'pods', placeholder: 'pods, deployments' }]
        : []),
      {
        name: 'apiGroups',
        label: 'API groups ("" is the core group)',
        default: !groups.includes('*') ? shown(groups) : wildcard ? '""' : shown(fromListed),
        placeholder: '"", apps',
      },
    ],
    apply: (object, input?: FixInput) => {
      const typed = wildcard ? listOf(paramValue(fix, input, 'resources')) : [];
      const typedGroups = listOf(paramValue(fix, input, 'apiGroups')).map((g) => (g === '""' || g === "''" ? '' : g));
      if ((wildcard && !typed.length) || !typedGroups.length) return { object };
      const current = obj(getIn(object, at(rulePath)));
      const next = narrowed(current, typed, typedGroups);
      if (sameList(next.resources, strs(current.resources)) && sameList(next.apiGroups, strs(current.apiGroups))) return { object };
      return { object: setIn(setIn(object, [...at(rulePath), 'resources'], next.resources), [...at(rulePath), 'apiGroups'], next.apiGroups) };
    },
  };
  return fix;
}

/** Put `expression` behind `params != null &&`. */
export const guardParamsExpression = (e: string): string => `params != null && (${e.trim()})`;

/** Guard each listed expression (paths to `…expression` fields) with params != null. */
export function guardParams(expressionPaths: readonly string[]): Fix {
  return {
    title: 'Guard expressions with params != null',
    note: 'Without params these expressions now evaluate to false instead of failing with an error.',
    apply: (object) => ({
      object: expressionPaths.reduce((o, p) => {
        const e = getIn(o, at(p));
        return typeof e === 'string' ? setIn(o, at(p), guardParamsExpression(e)) : o;
      }, object),
    }),
  };
}

/** A name not used by any object of `kind` in the workspace. */
function freeName(base: string, kind: string, workspace: readonly unknown[] = []): string {
  const taken = new Set(workspace.filter((o) => kindOf(o) === kind).map(nameOf));
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

/** A new binding document for a policy (Warn+Audit for a VAP: a safe first rollout). */
export function createBinding(policy: Obj): Fix {
  const kind = `${kindOf(policy)}Binding`;
  const spec = KINDS.find((k) => k.kind === kind);
  const takesParams = isObj(policy.spec) && isObj(policy.spec.paramKind);
  const policyName = nameOf(policy);
  const fix: Fix = {
    title: `Create a ${kind} for this policy`,
    note:
      kind === 'ValidatingAdmissionPolicyBinding'
        ? 'The new binding warns and audits (validationActions: [Warn, Audit]) so you can roll out safely; switch to Deny when no warnings remain.'
        : undefined,
    params: takesParams ? [{ name: 'paramName', label: 'Name of the param object', default: `${policyName}-params` }] : undefined,
    apply: (object, input) => {
      const bindingSpec: Obj = { policyName };
      if (takesParams) bindingSpec.paramRef = { name: paramValue(fix, input, 'paramName'), parameterNotFoundAction: 'Deny' };
      if (kind === 'ValidatingAdmissionPolicyBinding') bindingSpec.validationActions = ['Warn', 'Audit'];
      const binding = {
        apiVersion: spec ? apiVersionOf(spec) : 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name: freeName(`${policyName}-binding`, kind, input?.workspace) },
        spec: bindingSpec,
      };
      return { object, newDocuments: [binding] };
    },
  };
  return fix;
}

/** Remove one rule from the list at `rulesPath` (the other rules keep their order). */
export function dropRule(rulesPath: string, index: number, title: string, note?: string): Fix {
  return {
    title,
    note,
    apply: (object) => ({
      object: setIn(
        object,
        at(rulesPath),
        objs(getIn(object, at(rulesPath))).filter((_, i) => i !== index),
      ),
    }),
  };
}

/** Remove DELETE from the operations of the given rules ('*' becomes CREATE, UPDATE). */
export function removeDelete(rulePaths: readonly string[]): Fix {
  return {
    title: 'Stop matching DELETE',
    note: "'*' becomes CREATE, UPDATE (CONNECT also has no object).",
    apply: (object) => ({
      object: rulePaths.reduce((o, p) => {
        const ops = strs(getIn(o, [...at(p), 'operations']));
        const next = ops.includes('*') ? ['CREATE', 'UPDATE'] : ops.filter((x) => x !== 'DELETE');
        return setIn(o, [...at(p), 'operations'], next);
      }, object),
    }),
  };
}

/** A valid DNS-1123 subdomain made from an invalid name (lower case, other characters become '-'). */
export function suggestDnsName(name: string, minSegments = 1): string {
  let labels = name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .split('.')
    .map((l) =>
      l
        .replace(/-+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 63)
        .replace(/-+$/, ''),
    )
    .filter(Boolean);
  if (!labels.length) labels = ['name'];
  while (labels.length < minSegments) labels = [...labels, ...['example', 'com'].slice(-(minSegments - labels.length))];
  let out = labels.join('.');
  if (out.length > 253) out = out.slice(0, 253).replace(/[.-]+$/, '');
  return out;
}

/** Replace an invalid name with a valid suggestion. */
export function renameTo(path: string, current: string, minSegments = 1): Fix | undefined {
  const next = suggestDnsName(current, minSegments);
  if (next === current) return undefined;
  return setField(
    `Rename to "${next}"`,
    path,
    next,
    minSegments > 1 ? 'Webhook names are fully qualified (at least three segments): use a domain you own.' : undefined,
  );
}

/**
 * A webhook's clientConfig that calls a URL instead of a service (static webhooks take a URL
 * only): the service's name, namespace, port and path as its in-cluster address, which the user
 * can change; the caBundle stays, the service goes (no field of it is left behind).
 */
export function serviceToUrl(clientConfigPath: string, service: unknown): Fix {
  const svc = isObj(service) ? service : {};
  const port = typeof svc.port === 'number' && svc.port !== 443 ? `:${svc.port}` : '';
  const path = str(svc.path);
  const fix: Fix = {
    title: 'Call a URL instead of the service',
    note: "The kube-apiserver calls a static webhook at this URL itself, before the cluster's DNS and services may be up: a host-network or node address is the usual choice. The caBundle stays.",
    params: [
      {
        name: 'url',
        label: 'URL (https://, no query or fragment)',
        default: `https://${str(svc.name) || 'webhook'}.${str(svc.namespace) || 'default'}.svc${port}${path.startsWith('/') ? path : path ? `/${path}` : ''}`,
        placeholder: 'https://10.0.0.5:8443/validate',
      },
    ],
    apply: (object, input) => {
      const url = paramValue(fix, input, 'url').trim();
      if (!/^https:\/\/[^/?#\s]+[^?#\s]*$/.test(url)) return { object };
      const { service: _service, ...rest } = obj(getIn(object, at(clientConfigPath)));
      return { object: setIn(object, at(clientConfigPath), { ...rest, url }) };
    },
  };
  return fix;
}
