/**
 * Does an admission request match a policy's `spec.matchConstraints`, a binding's
 * `spec.matchResources`, or a webhook's `rules` and selectors? Ported from k8s.io/apiserver's
 * policy matching and webhook predicates; errors are values. The sources and how
 * `matchPolicy: Equivalent` is tried: README.md ("Matching").
 */
import { isObject, labelsOf, list, obj, str, strList } from '../base/json';
import { ADMISSION_KINDS } from '../k8s/resources';
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../request/model';

/** A resource equivalent to the request's, with its kind (discovery's EquivalentResourcesFor + KindFor). */
export interface EquivalentResource {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

/** What matching needs besides the request (object and oldObject are the request's). */
export interface MatchInput {
  request: AdmissionRequest;
  /** The request's Namespace object (its labels are what namespaceSelector sees). */
  namespaceObject?: unknown;
  /** matchPolicy Equivalent: the resources equivalent to a resource/subresource (the resource itself excluded or not). */
  equivalents?: (resource: GroupVersionResource, subResource: string) => readonly EquivalentResource[];
}

export type MatchCheck = 'namespaceSelector' | 'objectSelector' | 'excludeResourceRules' | 'resourceRules' | 'rules';

export interface MatchStep {
  check: MatchCheck;
  passed: boolean;
  detail: string;
}

export interface MatchResult {
  matches: boolean;
  /** One sentence: why it matches or not. */
  reason: string;
  /** A configuration or lookup error (the apiserver applies failurePolicy); `matches` is false. */
  error?: string;
  /** The error's metav1.StatusReason: the namespace does not exist (404), or a selector error (500). */
  errorReason?: 'NotFound' | 'InternalError';
  steps: MatchStep[];
  /** Index of the rule that matched (resourceRules / rules). */
  matchedRule?: number;
  /** matchPolicy is Equivalent and no rule matched the request's own resource: equivalent resources (needs discovery) were not tried. */
  equivalentNotChecked?: boolean;
  /** Matched through matchPolicy Equivalent: the equivalent resource and kind the request is converted to. */
  matchedResource?: GroupVersionResource;
  matchedKind?: GroupVersionKind;
}

// ---------------------------------------------------------------------------
// Label selectors (k8s.io/apimachinery LabelSelectorAsSelector + labels.Selector.Matches)

export type SelectorResult = { ok: true; matches: boolean; empty: boolean } | { ok: false; error: string };

/**
 * Matches a metav1.LabelSelector against labels. `null`/absent selects nothing
 * (LabelSelectorAsSelector(nil) is labels.Nothing()); `{}` selects everything.
 */
export function matchLabelSelector(selector: unknown, labels: Readonly<Record<string, string>>): SelectorResult {
  if (selector === undefined || selector === null) return { ok: true, matches: false, empty: false };
  if (!isObject(selector)) return { ok: false, error: 'label selector is not an object' };
  const matchLabels = obj(selector.matchLabels);
  const exprs = list(selector.matchExpressions);
  if (Object.keys(matchLabels).length === 0 && exprs.length === 0) return { ok: true, matches: true, empty: true };
  let matches = true;
  for (const [k, v] of Object.entries(matchLabels)) {
    if (typeof v !== 'string') return { ok: false, error: `invalid label value for key ${JSON.stringify(k)}` };
    if (labels[k] !== v) matches = false;
  }
  for (const e of exprs) {
    const r = obj(e);
    const key = str(r.key);
    const op = str(r.operator);
    const values = strList(r.values);
    const has = Object.hasOwn(labels, key);
    switch (op) {
      case 'In':
        if (values.length === 0) return { ok: false, error: "for 'in', 'notin' operators, values set can't be empty" };
        if (!has || !values.includes(labels[key]!)) matches = false;
        break;
      case 'NotIn':
        if (values.length === 0) return { ok: false, error: "for 'in', 'notin' operators, values set can't be empty" };
        if (has && values.includes(labels[key]!)) matches = false;
        break;
      case 'Exists':
        if (values.length > 0) return { ok: false, error: 'values set must be empty for exists and does not exist' };
        if (!has) matches = false;
        break;
      case 'DoesNotExist':
        if (values.length > 0) return { ok: false, error: 'values set must be empty for exists and does not exist' };
        if (has) matches = false;
        break;
      default:
        return { ok: false, error: `${JSON.stringify(op)} is not a valid label selector operator` };
    }
  }
  return { ok: true, matches, empty: false };
}

// ---------------------------------------------------------------------------
// The request's attributes

/** The resource the request is for (attr.GetResource(): the resource as requested). */
function attrResource(r: AdmissionRequest): GroupVersionResource {
  const gvr: Partial<GroupVersionResource> = r.requestResource ?? r.resource ?? {};
  return { group: str(gvr.group), version: str(gvr.version), resource: str(gvr.resource) };
}
const attrSubresource = (r: AdmissionRequest): string => str(r.requestSubResource ?? r.subResource);
const gvrString = (g: GroupVersionResource) => `${g.group || 'core'}/${g.version}, resource ${g.resource}`;

const isNamespaceResource = (g: GroupVersionResource) => g.group === '' && g.version === 'v1' && g.resource === 'namespaces';

// ---------------------------------------------------------------------------
// rules.go

/** Why a single rule (RuleWithOperations / NamedRuleWithOperations) does not match; undefined when it matches. */
export function ruleMismatch(rule: unknown, request: AdmissionRequest, resource?: GroupVersionResource): string | undefined {
  const r = obj(rule);
  const gvr = resource ?? attrResource(request);
  const ns = str(request.namespace);
  // scope (absent = "*", the default)
  const scope = r.scope === undefined || r.scope === null ? '*' : str(r.scope);
  if (scope === 'Namespaced') {
    if (isNamespaceResource(gvr) || ns === '') return 'scope Namespaced, but the request is cluster-scoped';
  } else if (scope === 'Cluster') {
    if (!(isNamespaceResource(gvr) || ns === '')) return 'scope Cluster, but the request is namespaced';
  } else if (scope !== '*') return `scope ${JSON.stringify(scope)} matches nothing`;
  const op = str(request.operation);
  const ops = strList(r.operations);
  if (!ops.some((o) => o === '*' || o === op)) return `operation ${op || '""'} not in [${ops.join(', ')}]`;
  const exactOrWildcard = (items: string[], v: string) => items.some((i) => i === '*' || i === v);
  const groups = strList(r.apiGroups);
  if (!exactOrWildcard(groups, gvr.group)) return `apiGroup ${JSON.stringify(gvr.group)} not in [${groups.map((g) => JSON.stringify(g)).join(', ')}]`;
  const versions = strList(r.apiVersions);
  if (!exactOrWildcard(versions, gvr.version)) return `apiVersion ${JSON.stringify(gvr.version)} not in [${versions.join(', ')}]`;
  const sub = attrSubresource(request);
  const resources = strList(r.resources);
  const ok = resources.some((rs) => {
    const i = rs.indexOf('/');
    const res = i < 0 ? rs : rs.slice(0, i);
    const s = i < 0 ? '' : rs.slice(i + 1);
    return (res === '*' || res === gvr.resource) && (s === '*' || s === sub);
  });
  const full = sub ? `${gvr.resource}/${sub}` : gvr.resource;
  if (!ok) return `resource ${JSON.stringify(full)} not in [${resources.join(', ')}]`;
  return undefined;
}

/** matchesResourceRules: the index of the first matching named rule (resourceNames checked), or -1 with a reason. */
function matchNamedRules(rules: unknown[], request: AdmissionRequest, resource?: GroupVersionResource): { index: number; why: string[] } {
  const why: string[] = [];
  const name = str(request.name);
  for (let i = 0; i < rules.length; i++) {
    const m = ruleMismatch(rules[i], request, resource);
    if (m) {
      why.push(`[${i}]: ${m}`);
      continue;
    }
    const names = strList(obj(rules[i]).resourceNames);
    // an empty name list always matches
    if (names.length === 0 || names.includes(name)) return { index: i, why };
    why.push(`[${i}]: name ${JSON.stringify(name)} not in resourceNames [${names.join(', ')}]`);
  }
  return { index: -1, why };
}

/**
 * matchPolicy Equivalent after the request's own resource matched no rule: rule by rule (earlier
 * rules first), each equivalent resource other than the request's own. `named`: resourceNames
 * are checked (policies); webhooks have none.
 */
function matchEquivalent(rules: unknown[], input: MatchInput, named: boolean): { index: number; equivalent: EquivalentResource } | undefined {
  if (!input.equivalents) return undefined;
  const own = attrResource(input.request);
  const equivalents = input
    .equivalents(own, attrSubresource(input.request))
    .filter((e) => !(e.resource.group === own.group && e.resource.version === own.version && e.resource.resource === own.resource));
  for (let i = 0; i < rules.length; i++) {
    for (const e of equivalents) {
      const ok = named ? matchNamedRules([rules[i]], input.request, e.resource).index === 0 : !ruleMismatch(rules[i], input.request, e.resource);
      if (ok) return { index: i, equivalent: e };
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Selectors (namespace/matcher.go, object/matcher.go)

function namespaceSelectorStep(selector: unknown, input: MatchInput): { matches: boolean; error?: string; notFound?: boolean; detail: string } {
  const r = input.request;
  const gvr = attrResource(r);
  const nsName = str(r.namespace);
  if (nsName === '' && gvr.resource !== 'namespaces') {
    return { matches: true, detail: 'cluster-scoped request (not a namespace): never exempted by namespaceSelector' };
  }
  const empty = matchLabelSelector(selector, {});
  if (!empty.ok) return { matches: false, error: `Internal error occurred: ${empty.error}`, detail: empty.error };
  if (empty.empty) return { matches: true, detail: 'empty namespaceSelector matches every namespace' };
  let labels: Record<string, string>;
  let from: string;
  const op = str(r.operation);
  if (gvr.resource === 'namespaces' && attrSubresource(r) === '' && (op === 'CREATE' || op === 'UPDATE')) {
    // the request creates/updates the namespace itself: its labels come from the object
    labels = labelsOf(r.object);
    from = 'the Namespace object in the request';
  } else {
    if (!isObject(input.namespaceObject)) {
      // the apiserver answers 404 when the namespace does not exist
      const msg = `namespaces "${nsName}" not found`;
      return { matches: false, error: msg, notFound: true, detail: `${msg} (give the test a namespaceObject)` };
    }
    labels = labelsOf(input.namespaceObject);
    from = `namespace ${JSON.stringify(nsName)}`;
  }
  const m = matchLabelSelector(selector, labels);
  if (!m.ok) return { matches: false, error: `Internal error occurred: ${m.error}`, detail: m.error };
  return { matches: m.matches, detail: `labels of ${from} ${m.matches ? 'match' : 'do not match'} namespaceSelector` };
}

function objectSelectorStep(selector: unknown, input: MatchInput): { matches: boolean; error?: string; detail: string } {
  const empty = matchLabelSelector(selector, {});
  if (!empty.ok) return { matches: false, error: `Internal error occurred: ${empty.error}`, detail: empty.error };
  if (empty.empty) return { matches: true, detail: 'empty objectSelector matches every object' };
  const one = (o: unknown): boolean => {
    if (!isObject(o)) return false;
    const m = matchLabelSelector(selector, labelsOf(o));
    return m.ok && m.matches;
  };
  if (one(input.request.object)) return { matches: true, detail: 'object labels match objectSelector' };
  if (one(input.request.oldObject)) return { matches: true, detail: 'oldObject labels match objectSelector' };
  return { matches: false, detail: 'neither object nor oldObject labels match objectSelector' };
}

// ---------------------------------------------------------------------------
// matching.go Matcher.Matches

/**
 * Policy `spec.matchConstraints` or binding `spec.matchResources` (MatchResources). Pass
 * the defaulted object (withDefaults): an absent namespaceSelector/objectSelector here
 * selects nothing, as in the apiserver (the API defaults them to `{}`).
 */
export function matchResources(mr: unknown, input: MatchInput): MatchResult {
  const m = obj(mr);
  const steps: MatchStep[] = [];
  const ns = namespaceSelectorStep(m.namespaceSelector, input);
  steps.push({ check: 'namespaceSelector', passed: ns.matches, detail: ns.detail });
  if (!ns.matches && !ns.error) return { matches: false, reason: ns.detail, steps };
  const os = objectSelectorStep(m.objectSelector, input);
  steps.push({ check: 'objectSelector', passed: os.matches, detail: os.detail });
  if (!os.matches && !os.error) return { matches: false, reason: os.detail, steps };

  const equivalent = m.matchPolicy === undefined || m.matchPolicy === null ? false : m.matchPolicy === 'Equivalent';
  const exclude = matchNamedRules(list(m.excludeResourceRules), input.request);
  const excludeEquivalent = exclude.index < 0 && equivalent ? matchEquivalent(list(m.excludeResourceRules), input, true) : undefined;
  if (excludeEquivalent) exclude.index = excludeEquivalent.index;
  if (exclude.index >= 0) {
    const via = excludeEquivalent ? ` (through the equivalent ${gvrString(excludeEquivalent.equivalent.resource)})` : '';
    const detail = `excluded by excludeResourceRules[${exclude.index}]${via}`;
    steps.push({ check: 'excludeResourceRules', passed: false, detail });
    return { matches: false, reason: detail, steps };
  }
  steps.push({
    check: 'excludeResourceRules',
    passed: true,
    detail: list(m.excludeResourceRules).length === 0 ? 'no excludeResourceRules' : 'no excludeResourceRules match',
  });

  const rules = list(m.resourceRules);
  let matchedRule: number | undefined;
  let matchedEquivalent: EquivalentResource | undefined;
  if (rules.length === 0) {
    steps.push({ check: 'resourceRules', passed: true, detail: 'no resourceRules: every resource matches' });
  } else {
    const inc = matchNamedRules(rules, input.request);
    const eq = inc.index < 0 && equivalent ? matchEquivalent(rules, input, true) : undefined;
    if (eq) {
      matchedRule = eq.index;
      matchedEquivalent = eq.equivalent;
      steps.push({
        check: 'resourceRules',
        passed: true,
        detail: `resourceRules[${eq.index}] matches the equivalent ${gvrString(eq.equivalent.resource)} (matchPolicy Equivalent)`,
      });
    } else if (inc.index < 0) {
      const detail = `no resourceRules match: ${inc.why.join('; ')}`;
      steps.push({ check: 'resourceRules', passed: false, detail });
      const res: MatchResult = { matches: false, reason: detail, steps };
      if (equivalent && !input.equivalents) {
        res.equivalentNotChecked = true;
        res.reason += ' (matchPolicy Equivalent: equivalent resources of other groups/versions need discovery and were not tried)';
      }
      return res;
    } else {
      matchedRule = inc.index;
      steps.push({ check: 'resourceRules', passed: true, detail: `resourceRules[${inc.index}] matches ${gvrString(attrResource(input.request))}` });
    }
  }
  // the rules apply: now selector errors count
  const error = ns.error ?? os.error;
  if (error) return { matches: false, error, errorReason: ns.error && ns.notFound ? 'NotFound' : 'InternalError', reason: error, steps, matchedRule };
  const via = matchedEquivalent ? ` through the equivalent ${gvrString(matchedEquivalent.resource)}` : '';
  const res: MatchResult = {
    matches: true,
    reason: matchedRule === undefined ? 'matches (no resourceRules)' : `matches resourceRules[${matchedRule}]${via}`,
    steps,
    matchedRule,
  };
  if (matchedEquivalent) {
    res.matchedResource = matchedEquivalent.resource;
    res.matchedKind = matchedEquivalent.kind;
  }
  return res;
}

/**
 * generic/webhook.go ShouldCallHook: would this webhook be called for the request
 * (before its matchConditions)? Pass the defaulted webhook. A webhook without rules
 * matches nothing.
 */
export function matchWebhook(webhook: unknown, input: MatchInput, options: { static?: boolean } = {}): MatchResult {
  const w = obj(webhook);
  // generic/webhook.go Dispatch (1.37): static webhooks are called for admission configuration resources too
  if (!options.static && isExemptAdmissionConfigurationResource(input.request)) {
    return { matches: false, reason: 'admission configuration resources are never sent to webhooks', steps: [] };
  }
  const steps: MatchStep[] = [];
  const ns = namespaceSelectorStep(w.namespaceSelector, input);
  steps.push({ check: 'namespaceSelector', passed: ns.matches, detail: ns.detail });
  if (!ns.matches && !ns.error) return { matches: false, reason: ns.detail, steps };
  const os = objectSelectorStep(w.objectSelector, input);
  steps.push({ check: 'objectSelector', passed: os.matches, detail: os.detail });
  if (!os.matches && !os.error) return { matches: false, reason: os.detail, steps };
  const rules = list(w.rules);
  const why: string[] = [];
  let matchedRule = -1;
  for (let i = 0; i < rules.length; i++) {
    const mm = ruleMismatch(rules[i], input.request);
    if (!mm) {
      matchedRule = i;
      break;
    }
    why.push(`[${i}]: ${mm}`);
  }
  const eq = matchedRule < 0 && w.matchPolicy === 'Equivalent' ? matchEquivalent(rules, input, false) : undefined;
  if (eq) {
    matchedRule = eq.index;
    steps.push({
      check: 'rules',
      passed: true,
      detail: `rules[${eq.index}] matches the equivalent ${gvrString(eq.equivalent.resource)} (matchPolicy Equivalent)`,
    });
  } else if (matchedRule < 0) {
    const detail = rules.length === 0 ? 'no rules: the webhook matches nothing' : `no rules match: ${why.join('; ')}`;
    steps.push({ check: 'rules', passed: false, detail });
    const res: MatchResult = { matches: false, reason: detail, steps };
    if (w.matchPolicy === 'Equivalent' && rules.length > 0 && !input.equivalents) {
      res.equivalentNotChecked = true;
      res.reason += ' (matchPolicy Equivalent: equivalent resources of other groups/versions need discovery and were not tried)';
    }
    return res;
  } else {
    steps.push({ check: 'rules', passed: true, detail: `rules[${matchedRule}] matches ${gvrString(attrResource(input.request))}` });
  }
  const error = ns.error ?? os.error;
  if (error) return { matches: false, error, errorReason: ns.error && ns.notFound ? 'NotFound' : 'InternalError', reason: error, steps, matchedRule };
  const res: MatchResult = {
    matches: true,
    reason: `matches rules[${matchedRule}]${eq ? ` through the equivalent ${gvrString(eq.equivalent.resource)}` : ''}`,
    steps,
    matchedRule,
  };
  if (eq) {
    res.matchedResource = eq.equivalent.resource;
    res.matchedKind = eq.equivalent.kind;
  }
  return res;
}

/** rules.IsExemptAdmissionConfigurationResource: requests for these kinds never reach webhooks or policies. */
export function isExemptAdmissionConfigurationResource(request: AdmissionRequest): boolean {
  const k: Partial<GroupVersionKind> = request.kind ?? {};
  return str(k.group) === 'admissionregistration.k8s.io' && ADMISSION_KINDS.has(str(k.kind));
}
