/**
 * Defaulting of admissionregistration.k8s.io objects, as the apiserver runs it
 * before validation (pkg/apis/admissionregistration/{v1,v1beta1,v1alpha1}/defaults.go
 * and zz_generated.defaults.go), by the object's apiVersion: v1beta1 webhooks have
 * their own defaults (failurePolicy Ignore, matchPolicy Exact, timeoutSeconds 30,
 * sideEffects Unknown, admissionReviewVersions [v1beta1]); v1alpha1 bindings default
 * paramRef.parameterNotFoundAction to Deny; the policy kinds otherwise default alike. Only absent (missing or null) fields are filled; explicit values such
 * as `failurePolicy: ""` or `timeoutSeconds: 0` are kept and then rejected.
 * Returns a new object; the input is never mutated. Copy-on-write: objects on
 * the way to a defaulted field are copied once, untouched subtrees are shared
 * with the input (treat both as immutable).
 */

import { isObject, type Obj } from './json';
import { kindSpecOf } from './registry/kinds';
const isAbsent = (v: unknown): boolean => v === undefined || v === null;

/** Copy-on-write view of one object: the first `set` copies it, later ones write into the copy. */
class Draft {
  private out: Obj | undefined;
  constructor(private readonly src: Obj) {}
  get(key: string): unknown {
    return (this.out ?? this.src)[key];
  }
  set(key: string, value: unknown): void {
    // Object.assign, not a spread: V8 adds properties to an assigned copy several times faster
    (this.out ??= Object.assign({}, this.src))[key] = value;
  }
  done(): Obj {
    return this.out ?? this.src;
  }
}

/** A default: a primitive value, EMPTY_OBJECT for a fresh `{}` each time, or a list (set when absent or empty, Go's len()==0). */
const EMPTY_OBJECT = Symbol('{}');
type Defaults = readonly (readonly [string, string | number | typeof EMPTY_OBJECT | readonly string[]])[];

function fill(d: Draft, defaults: Defaults): void {
  for (let i = 0; i < defaults.length; i++) {
    const [key, value] = defaults[i]!;
    const v = d.get(key);
    if (Array.isArray(value)) {
      if (isAbsent(v) || (Array.isArray(v) && v.length === 0)) d.set(key, [...value]);
    } else if (isAbsent(v)) d.set(key, value === EMPTY_OBJECT ? {} : value);
  }
}

type Defaulter = (d: Draft) => void;

/** Run `f` on a copy-on-write view of `o`. */
const apply = (o: Obj, f: Defaulter): Obj => {
  const d = new Draft(o);
  f(d);
  return d.done();
};

/** Default the object at `key`; `struct`: a Go struct (not a pointer), so an absent value is defaulted as `{}`. */
function field(d: Draft, key: string, f: Defaulter, struct = false): void {
  const v = d.get(key);
  const o = struct && isAbsent(v) ? {} : v;
  if (!isObject(o)) return;
  const out = apply(o, f);
  if (out !== v) d.set(key, out);
}

/**
 * List elements defaulted before, by defaulter: inputs are immutable, so an element that
 * did not change gives the very same defaulted object again, and validation can reuse
 * what it found for it (one edited webhook of 1,000 re-validates one webhook).
 */
const elementMemo = new WeakMap<Defaulter, WeakMap<Obj, Obj>>();
function applyElement(x: Obj, f: Defaulter): Obj {
  let memo = elementMemo.get(f);
  if (!memo) elementMemo.set(f, (memo = new WeakMap()));
  let out = memo.get(x);
  if (!out) memo.set(x, (out = apply(x, f)));
  return out;
}

/** Default every element of the list of structs at `key` (a null element is Go's zero struct, `{}`). */
function elements(d: Draft, key: string, f: Defaulter): void {
  const v = d.get(key);
  if (!Array.isArray(v)) return;
  let list: unknown[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i] === null ? {} : v[i];
    if (!isObject(x)) continue;
    const out = applyElement(x, f);
    if (out !== v[i]) (list ??= v.slice())[i] = out;
  }
  if (list) d.set(key, list);
}

/** SetDefaults_Rule: scope "*". */
const RULE: Defaults = [['scope', '*']];
/** SetDefaults_ServiceReference: port 443. */
const SERVICE: Defaults = [['port', 443]];
/** SetDefaults_ValidatingWebhook (and the shared part of SetDefaults_MutatingWebhook). */
const WEBHOOK: Defaults = [
  ['failurePolicy', 'Fail'],
  ['matchPolicy', 'Equivalent'],
  ['namespaceSelector', EMPTY_OBJECT],
  ['objectSelector', EMPTY_OBJECT],
  ['timeoutSeconds', 10],
];
/** SetDefaults_MutatingWebhook adds reinvocationPolicy Never. */
const MUTATING_WEBHOOK: Defaults = [...WEBHOOK, ['reinvocationPolicy', 'Never']];
/** v1beta1 SetDefaults_ValidatingWebhook: the old, fail-open defaults. */
const WEBHOOK_V1BETA1: Defaults = [
  ['failurePolicy', 'Ignore'],
  ['matchPolicy', 'Exact'],
  ['namespaceSelector', EMPTY_OBJECT],
  ['objectSelector', EMPTY_OBJECT],
  ['sideEffects', 'Unknown'],
  ['timeoutSeconds', 30],
  ['admissionReviewVersions', ['v1beta1']],
];
/** v1beta1 SetDefaults_MutatingWebhook adds reinvocationPolicy Never. */
const MUTATING_WEBHOOK_V1BETA1: Defaults = [...WEBHOOK_V1BETA1, ['reinvocationPolicy', 'Never']];
/** v1alpha1 SetDefaults_ParamRef (v1beta1 and v1 have no default: v1 requires the field). */
const PARAM_REF_V1ALPHA1: Defaults = [['parameterNotFoundAction', 'Deny']];
/** SetDefaults_MatchResources (only when the object is present). */
const MATCH_RESOURCES: Defaults = [['matchPolicy', 'Equivalent'], ['namespaceSelector', EMPTY_OBJECT], ['objectSelector', EMPTY_OBJECT]];
/** SetDefaults_ValidatingAdmissionPolicySpec / SetDefaults_MutatingAdmissionPolicySpec */
const POLICY_SPEC: Defaults = [['failurePolicy', 'Fail']];

const defaultRule: Defaulter = (d) => fill(d, RULE);
const defaultService: Defaulter = (d) => fill(d, SERVICE);
const defaultClientConfig: Defaulter = (d) => field(d, 'service', defaultService);

const webhookDefaulter =
  (defaults: Defaults): Defaulter =>
  (d) => {
    fill(d, defaults);
    elements(d, 'rules', defaultRule);
    field(d, 'clientConfig', defaultClientConfig);
  };

const defaultValidatingWebhook = webhookDefaulter(WEBHOOK);
const defaultMutatingWebhook = webhookDefaulter(MUTATING_WEBHOOK);
const defaultValidatingWebhookV1beta1 = webhookDefaulter(WEBHOOK_V1BETA1);
const defaultMutatingWebhookV1beta1 = webhookDefaulter(MUTATING_WEBHOOK_V1BETA1);

const defaultMatchResources: Defaulter = (d) => {
  fill(d, MATCH_RESOURCES);
  elements(d, 'resourceRules', defaultRule);
  elements(d, 'excludeResourceRules', defaultRule);
};

const defaultPolicySpec: Defaulter = (d) => {
  fill(d, POLICY_SPEC);
  field(d, 'matchConstraints', defaultMatchResources);
};

/** Binding specs: only matchResources (paramRef.parameterNotFoundAction is not defaulted in v1). */
const defaultBindingSpec: Defaulter = (d) => field(d, 'matchResources', defaultMatchResources);
const defaultBindingSpecV1alpha1: Defaulter = (d) => {
  defaultBindingSpec(d);
  field(d, 'paramRef', (p) => fill(p, PARAM_REF_V1ALPHA1));
};


/** Defaulters by kind, and by `kind/version` where a version defaults differently (served versions: src/k8s/registry/served.ts). */
const defaulters: Readonly<Record<string, { f: Defaulter }>> = {
  ValidatingWebhookConfiguration: { f: (d) => elements(d, 'webhooks', defaultValidatingWebhook) },
  MutatingWebhookConfiguration: { f: (d) => elements(d, 'webhooks', defaultMutatingWebhook) },
  'ValidatingWebhookConfiguration/v1beta1': { f: (d) => elements(d, 'webhooks', defaultValidatingWebhookV1beta1) },
  'MutatingWebhookConfiguration/v1beta1': { f: (d) => elements(d, 'webhooks', defaultMutatingWebhookV1beta1) },
  ValidatingAdmissionPolicy: { f: (d) => field(d, 'spec', defaultPolicySpec, true) },
  MutatingAdmissionPolicy: { f: (d) => field(d, 'spec', defaultPolicySpec, true) },
  ValidatingAdmissionPolicyBinding: { f: (d) => field(d, 'spec', defaultBindingSpec) },
  MutatingAdmissionPolicyBinding: { f: (d) => field(d, 'spec', defaultBindingSpec) },
  'ValidatingAdmissionPolicyBinding/v1alpha1': { f: (d) => field(d, 'spec', defaultBindingSpecV1alpha1) },
  'MutatingAdmissionPolicyBinding/v1alpha1': { f: (d) => field(d, 'spec', defaultBindingSpecV1alpha1) },
};

/**
 * The object as the apiserver sees it after defaulting (always a new top-level
 * object for the six kinds). Objects of other kinds or versions, and
 * non-objects, are returned unchanged (the same reference).
 */
export function withDefaults<T>(object: T): T {
  if (!isObject(object)) return object;
  const spec = kindSpecOf(object);
  if (!spec) return object;
  const version = String(object.apiVersion).slice(spec.group.length + 1);
  const key = Object.hasOwn(defaulters, `${spec.kind}/${version}`) ? `${spec.kind}/${version}` : spec.kind;
  if (!Object.hasOwn(defaulters, key)) return object;
  const d = defaulters[key]!;
  const out = apply(object, d.f);
  return (out === object ? { ...object } : out) as T;
}
