/**
 * withDefaults: admissionregistration.k8s.io objects defaulted as the apiserver defaults them
 * before validation, by the object's apiVersion; only absent fields are filled. Returns a new
 * object, copy-on-write (untouched subtrees are shared: treat both as immutable). Which defaults
 * differ by version: README.md ("Defaulting and conversion").
 */

import { isObject, type Obj } from '../base/json';
import { kindSpecOf } from './registry/kinds';
const isAbsent = (v: unknown): boolean => v === undefined || v === null;

/**
 * Copy-on-write view of one object: the first `set` copies it, later ones write into the copy.
 * `remember`: list elements inside are defaulted through elementMemo (withDefaults) or not
 * (a webhook defaulted for validation, see webhookDefaulting).
 */
class Draft {
  private out: Obj | undefined;
  constructor(
    private readonly src: Obj,
    readonly remember: boolean,
  ) {}
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
const apply = (o: Obj, f: Defaulter, remember: boolean): Obj => {
  const d = new Draft(o, remember);
  f(d);
  return d.done();
};

/** Default the object at `key`; `struct`: a Go struct (not a pointer), so an absent value is defaulted as `{}`. */
function field(d: Draft, key: string, f: Defaulter, struct = false): void {
  const v = d.get(key);
  const o = struct && isAbsent(v) ? {} : v;
  if (!isObject(o)) return;
  const out = apply(o, f, d.remember);
  if (out !== v) d.set(key, out);
}

/**
 * List elements defaulted before, by defaulter: inputs are immutable, so an element that
 * did not change gives the very same defaulted object again, and what was found for it can
 * be reused (the lints keep their findings per defaulted webhook). Only copies are kept:
 * an element with nothing to default is its own result anyway.
 */
const elementMemo = new WeakMap<Defaulter, WeakMap<Obj, Obj>>();
function applyElement(x: Obj, f: Defaulter): Obj {
  let memo = elementMemo.get(f);
  if (!memo) elementMemo.set(f, (memo = new WeakMap()));
  let out = memo.get(x);
  if (!out) {
    out = apply(x, f, true);
    if (out !== x) memo.set(x, out);
  }
  return out;
}

/** One element of a list of structs, defaulted: a null element is Go's zero struct, `{}`; other non-objects stay as they are. */
function defaultedElement(v: unknown, f: Defaulter, remember: boolean): unknown {
  const x = v === null ? {} : v;
  if (!isObject(x)) return v;
  return remember ? applyElement(x, f) : apply(x, f, false);
}

/** Default every element of the list of structs at `key`. */
function elements(d: Draft, key: string, f: Defaulter): void {
  const v = d.get(key);
  if (!Array.isArray(v)) return;
  let list: unknown[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const out = defaultedElement(v[i], f, d.remember);
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
const MATCH_RESOURCES: Defaults = [
  ['matchPolicy', 'Equivalent'],
  ['namespaceSelector', EMPTY_OBJECT],
  ['objectSelector', EMPTY_OBJECT],
];
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

/**
 * A webhook configuration's defaulting: every element of `webhooks`, and (`webhook`) one element
 * alone, not remembered, for validation. `validation: 'as written'` when validation needs no
 * defaulted copy: each default is then a value that validation accepts wherever it accepts the
 * field absent (v1: failurePolicy Fail, matchPolicy Equivalent, namespaceSelector and
 * objectSelector {}, timeoutSeconds 10, reinvocationPolicy Never, rules[].scope *, service.port
 * 443), so defaulting cannot change a webhook's errors. Not so in v1beta1: sideEffects Unknown is
 * rejected on create, and admissionReviewVersions [v1beta1] fills a field that is required.
 */
const webhookConfiguration = (f: Defaulter, validation: 'as written' | 'defaulted'): { f: Defaulter; webhook?: WebhookDefaulting } => ({
  f: (d) => elements(d, 'webhooks', f),
  ...(validation === 'defaulted' ? { webhook: (hook: unknown) => defaultedElement(hook, f, false) } : {}),
});

/** Defaulters by kind, and by `kind/version` where a version defaults differently (served versions: src/k8s/registry/served.ts). */
const defaulters: Readonly<Record<string, { f: Defaulter; webhook?: WebhookDefaulting }>> = {
  ValidatingWebhookConfiguration: webhookConfiguration(defaultValidatingWebhook, 'as written'),
  MutatingWebhookConfiguration: webhookConfiguration(defaultMutatingWebhook, 'as written'),
  'ValidatingWebhookConfiguration/v1beta1': webhookConfiguration(defaultValidatingWebhookV1beta1, 'defaulted'),
  'MutatingWebhookConfiguration/v1beta1': webhookConfiguration(defaultMutatingWebhookV1beta1, 'defaulted'),
  ValidatingAdmissionPolicy: { f: (d) => field(d, 'spec', defaultPolicySpec, true) },
  MutatingAdmissionPolicy: { f: (d) => field(d, 'spec', defaultPolicySpec, true) },
  ValidatingAdmissionPolicyBinding: { f: (d) => field(d, 'spec', defaultBindingSpec) },
  MutatingAdmissionPolicyBinding: { f: (d) => field(d, 'spec', defaultBindingSpec) },
  'ValidatingAdmissionPolicyBinding/v1alpha1': { f: (d) => field(d, 'spec', defaultBindingSpecV1alpha1) },
  'MutatingAdmissionPolicyBinding/v1alpha1': { f: (d) => field(d, 'spec', defaultBindingSpecV1alpha1) },
};

/** The defaulting of an object, by its kind and apiVersion; undefined for other kinds or versions. */
function defaulterOf(object: Obj): (typeof defaulters)[string] | undefined {
  const spec = kindSpecOf(object);
  if (!spec) return undefined;
  const version = String(object.apiVersion).slice(spec.group.length + 1);
  const key = Object.hasOwn(defaulters, `${spec.kind}/${version}`) ? `${spec.kind}/${version}` : spec.kind;
  return Object.hasOwn(defaulters, key) ? defaulters[key] : undefined;
}

/**
 * The object as the apiserver sees it after defaulting (always a new top-level
 * object for the six kinds). Objects of other kinds or versions, and
 * non-objects, are returned unchanged (the same reference).
 */
export function withDefaults<T>(object: T): T {
  if (!isObject(object)) return object;
  const d = defaulterOf(object);
  if (!d) return object;
  const out = apply(object, d.f, true);
  return (out === object ? { ...object } : out) as T;
}

/** One element of `webhooks` as withDefaults leaves it (a null element is defaulted as `{}`, other non-objects stay). */
export type WebhookDefaulting = (hook: unknown) => unknown;

/**
 * How withDefaults treats each element of a webhook configuration's `webhooks` (one function
 * per kind and apiVersion), without remembering results: validation defaults webhook by webhook
 * and keeps what it found per webhook as written (validation/webhooks.ts), so a webhook seen
 * before is not defaulted again and no defaulted copy is kept alive. Undefined for other kinds,
 * and where validation gives the same errors for the webhook as written (v1, see
 * webhookConfiguration above), so no copy is made.
 */
export function webhookDefaulting(object: Obj): WebhookDefaulting | undefined {
  return defaulterOf(object)?.webhook;
}
