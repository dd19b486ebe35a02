/**
 * v1 defaulting of admissionregistration.k8s.io objects, as the apiserver runs it
 * before validation (pkg/apis/admissionregistration/v1/defaults.go and
 * zz_generated.defaults.go; the v1beta1/v1alpha1 policy kinds default the same
 * fields). Only absent (missing or null) fields are filled; explicit values such
 * as `failurePolicy: ""` or `timeoutSeconds: 0` are kept and then rejected.
 * Returns a new object; the input is never mutated (only the objects on the way
 * to a defaulted field are copied).
 */

type Obj = Record<string, unknown>;
type Defaulter = (o: Obj) => Obj;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isAbsent = (v: unknown): boolean => v === undefined || v === null;

/** A default: a primitive value, or EMPTY_OBJECT for a fresh `{}` each time. */
const EMPTY_OBJECT = Symbol('{}');
type DefaultValue = string | number | typeof EMPTY_OBJECT;

/** Fill absent fields with the given defaults; copies `o` only if one is missing. */
function fill(o: Obj, defaults: readonly (readonly [string, DefaultValue])[]): Obj {
  let out: Obj | undefined;
  for (let i = 0; i < defaults.length; i++) {
    const [key, value] = defaults[i]!;
    if (o[key] === undefined || o[key] === null) {
      out ??= { ...o };
      out[key] = value === EMPTY_OBJECT ? {} : value;
    }
  }
  return out ?? o;
}

/**
 * Apply `f` to the object at `key` (when it is an object); copies `o` only if something changed.
 * `struct`: the field is a Go struct, not a pointer, so an absent value is defaulted as `{}`.
 */
function at(o: Obj, key: string, f: Defaulter, struct = false): Obj {
  const v = struct && isAbsent(o[key]) ? {} : o[key];
  if (!isObject(v)) return o;
  const d = f(v);
  return d === v && v === o[key] ? o : { ...o, [key]: d };
}

/** Apply `f` to every element of the list of structs at `key` (a null element is Go's zero struct, `{}`). */
function each(o: Obj, key: string, f: Defaulter): Obj {
  const v = o[key];
  if (!Array.isArray(v)) return o;
  let changed = false;
  const list = v.map((x: unknown) => {
    if (x === null) x = {};
    if (!isObject(x)) return x;
    const d = f(x);
    if (d !== x) changed = true;
    return d;
  });
  return changed ? { ...o, [key]: list } : o;
}

const pipe = (...fs: Defaulter[]): Defaulter => (o) => fs.reduce((acc, f) => f(acc), o);

/** SetDefaults_Rule: scope "*". */
const defaultRule: Defaulter = (r) => fill(r, [['scope', '*']]);

/** SetDefaults_ServiceReference: port 443. */
const defaultService: Defaulter = (s) => fill(s, [['port', 443]]);

/** SetDefaults_ValidatingWebhook */
const defaultValidatingWebhook: Defaulter = pipe(
  (w) =>
    fill(w, [
      ['failurePolicy', 'Fail'],
      ['matchPolicy', 'Equivalent'],
      ['namespaceSelector', EMPTY_OBJECT],
      ['objectSelector', EMPTY_OBJECT],
      ['timeoutSeconds', 10],
    ]),
  (w) => each(w, 'rules', defaultRule),
  (w) => at(w, 'clientConfig', (cc) => at(cc, 'service', defaultService)),
);

/** SetDefaults_MutatingWebhook: as validating, plus reinvocationPolicy Never. */
const defaultMutatingWebhook: Defaulter = pipe(defaultValidatingWebhook, (w) => fill(w, [['reinvocationPolicy', 'Never']]));

/** SetDefaults_MatchResources (only when the object is present). */
const defaultMatchResources: Defaulter = pipe(
  (m) => fill(m, [['matchPolicy', 'Equivalent'], ['namespaceSelector', EMPTY_OBJECT], ['objectSelector', EMPTY_OBJECT]]),
  (m) => each(m, 'resourceRules', defaultRule),
  (m) => each(m, 'excludeResourceRules', defaultRule),
);

/** SetDefaults_ValidatingAdmissionPolicySpec / SetDefaults_MutatingAdmissionPolicySpec */
const defaultPolicySpec: Defaulter = pipe((s) => fill(s, [['failurePolicy', 'Fail']]), (s) => at(s, 'matchConstraints', defaultMatchResources));

/** Binding specs: only matchResources (paramRef.parameterNotFoundAction is not defaulted in v1). */
const defaultBindingSpec: Defaulter = (s) => at(s, 'matchResources', defaultMatchResources);

const GROUP = 'admissionregistration.k8s.io';

/** Defaulters by kind, and the versions each kind is defaulted in. */
const defaulters: Readonly<Record<string, { versions: readonly string[]; f: Defaulter }>> = {
  ValidatingWebhookConfiguration: { versions: ['v1'], f: (o) => each(o, 'webhooks', defaultValidatingWebhook) },
  MutatingWebhookConfiguration: { versions: ['v1'], f: (o) => each(o, 'webhooks', defaultMutatingWebhook) },
  ValidatingAdmissionPolicy: { versions: ['v1', 'v1beta1', 'v1alpha1'], f: (o) => at(o, 'spec', defaultPolicySpec, true) },
  MutatingAdmissionPolicy: { versions: ['v1', 'v1beta1', 'v1alpha1'], f: (o) => at(o, 'spec', defaultPolicySpec, true) },
  ValidatingAdmissionPolicyBinding: { versions: ['v1', 'v1beta1', 'v1alpha1'], f: (o) => at(o, 'spec', defaultBindingSpec) },
  MutatingAdmissionPolicyBinding: { versions: ['v1', 'v1beta1', 'v1alpha1'], f: (o) => at(o, 'spec', defaultBindingSpec) },
};

/**
 * The object as the apiserver sees it after defaulting. Objects of other kinds
 * or versions, and non-objects, are returned unchanged.
 */
export function withDefaults<T>(object: T): T {
  if (!isObject(object)) return object;
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return object;
  const d = defaulters[kind];
  if (!d || !d.versions.some((v) => apiVersion === `${GROUP}/${v}`)) return object;
  return d.f(object) as T;
}
