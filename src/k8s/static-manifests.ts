/**
 * Static admission manifests (`staticManifestsDir`): what the kube-apiserver's manifest loaders
 * check, in their words, every problem at once at its field, and the directory layout of a set
 * (one directory per admission plugin). Sources and rules: docs/versions.md ("Static admission
 * manifests"); checked against the loaders themselves by tools/manifest-oracle.
 */
import { fieldPath } from '../base/path';
import { isObject, list, nameOf, obj, str, type Obj } from '../base/json';
import { releaseOf, type KubernetesVersion } from '../base/releases';
import type { FieldError } from './errors';
import { StaticConfigSuffix, strategyChecks } from './validation/strategy';
import { decodeErrors, decoded, kindSpecOf } from './registry';
import { isUnknownField } from './field-validation';

/** One admission plugin that reads a static manifest directory, and what its loader accepts. */
export interface ManifestPlugin {
  /** The plugin's name in AdmissionConfiguration `plugins[].name`. */
  plugin: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';
  /** The kinds its loader accepts (admissionregistration.k8s.io/v1 only). */
  kinds: readonly string[];
  /** The policy kind of the set (policy plugins: bindings may name only these). */
  policyKind?: string;
  /** The kind of the plugin's own configuration (`plugins[].configuration`, apiserver.config.k8s.io/v1). */
  configurationKind: string;
  /** The directory we export its manifests to (under the base directory). */
  dir: string;
}

/** The four plugins that take `staticManifestsDir` in 1.37 (webhook/config/kubeconfig.go, policy/config/config.go). */
export const MANIFEST_PLUGINS: readonly ManifestPlugin[] = [
  {
    plugin: 'MutatingAdmissionPolicy',
    kinds: ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
    policyKind: 'MutatingAdmissionPolicy',
    configurationKind: 'MutatingAdmissionPolicyConfiguration',
    dir: 'mutating-admission-policies',
  },
  { plugin: 'MutatingAdmissionWebhook', kinds: ['MutatingWebhookConfiguration'], configurationKind: 'WebhookAdmissionConfiguration', dir: 'mutating-webhooks' },
  {
    plugin: 'ValidatingAdmissionPolicy',
    kinds: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
    policyKind: 'ValidatingAdmissionPolicy',
    configurationKind: 'ValidatingAdmissionPolicyConfiguration',
    dir: 'validating-admission-policies',
  },
  {
    plugin: 'ValidatingAdmissionWebhook',
    kinds: ['ValidatingWebhookConfiguration'],
    configurationKind: 'WebhookAdmissionConfiguration',
    dir: 'validating-webhooks',
  },
];

/**
 * Where the MutatingAdmissionWebhook plugin runs its static webhooks among the API ones (its
 * configuration's `staticOrder`, from the release whose row has `chain.webhookStaticOrder`):
 * StaticFirst (the default, and the only order before), StaticLast, or ByName (static and API
 * configurations stably sorted together by name). k8s.io/apiserver
 * pkg/admission/plugin/webhook/generic/composite_webhook_source.go `mergeAccessors`. The
 * ValidatingAdmissionWebhook plugin accepts only StaticFirst (validating/plugin.go).
 */
export const STATIC_ORDERS = ['StaticFirst', 'StaticLast', 'ByName'] as const;
export type StaticOrder = (typeof STATIC_ORDERS)[number];
export const DEFAULT_STATIC_ORDER: StaticOrder = 'StaticFirst';
export const isStaticOrder = (v: unknown): v is StaticOrder => (STATIC_ORDERS as readonly unknown[]).includes(v);

/** The order the release runs static mutating webhooks in: the workspace's, where the release has `staticOrder`; else StaticFirst. */
export const effectiveStaticOrder = (release: KubernetesVersion | undefined, order: StaticOrder | undefined): StaticOrder =>
  releaseOf(release).chain.webhookStaticOrder ? (order ?? DEFAULT_STATIC_ORDER) : DEFAULT_STATIC_ORDER;

/** Where the exported directories go by default (the AdmissionConfiguration names them absolutely, as ValidateStaticManifestsDir requires). */
export const DEFAULT_MANIFEST_BASE = '/etc/kubernetes/admission-manifests';

export const MANIFEST_API_VERSION = 'admissionregistration.k8s.io/v1';

export const manifestPluginOf = (kind: unknown): ManifestPlugin | undefined => MANIFEST_PLUGINS.find((p) => p.kinds.includes(str(kind)));

/** Whether an object can be a static manifest at all (one of the six kinds; any apiVersion, which the checks judge). */
export const isManifestKind = (object: unknown): boolean => isObject(object) && manifestPluginOf(object.kind) !== undefined;

/** One object of a manifest set: its index among the caller's objects and the file it is written to. */
export interface ManifestEntry {
  index: number;
  object: Obj;
  plugin: ManifestPlugin;
  /** The file's path (absolute: base/dir/name.yaml). */
  file: string;
  /** The file's name inside its directory. */
  fileName: string;
}

const safeFileName = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+/, '') || 'manifest';

/**
 * The layout of an export, one file per object: `<base>/<plugin dir>/<name>.yaml` (a second
 * object of the same name gets `-2`; an object without a name its kind). Files are read in
 * alphabetical order, as the loader reads them.
 */
export function manifestLayout(objects: readonly unknown[], isStatic: (index: number) => boolean, base = DEFAULT_MANIFEST_BASE): ManifestEntry[] {
  const taken = new Set<string>();
  const out: ManifestEntry[] = [];
  objects.forEach((o, index) => {
    if (!isStatic(index) || !isObject(o)) return;
    const plugin = manifestPluginOf(o.kind);
    if (!plugin) return;
    const stem = safeFileName(nameOf(o) || str(o.kind).toLowerCase());
    let fileName = `${stem}.yaml`;
    for (let n = 2; taken.has(`${plugin.dir}/${fileName}`); n++) fileName = `${stem}-${n}.yaml`;
    taken.add(`${plugin.dir}/${fileName}`);
    out.push({ index, object: o, plugin, file: `${base.replace(/\/+$/, '')}/${plugin.dir}/${fileName}`, fileName });
  });
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** A loader's complaint about one object, at its field, in the loader's words (without its `error loading <file>: ` prefix). */
export interface ManifestProblem {
  /** Index of the object among the caller's objects. */
  index: number;
  field: string;
  message: string;
  /** The file the loader would name (`error loading <file>: <message>`). */
  file: string;
  /** Found after every file was read (binding references): the loader returns the message without the file. */
  set?: true;
}

/** The Go type the loader names for an object it does not accept (`%T`). */
const goType = (o: Obj): string => {
  const version = str(o.apiVersion).split('/').pop() || str(o.apiVersion);
  return `*${version}.${str(o.kind)}`;
};

/** One rule of the loaders, as data: the kinds it applies to, and its problems for an entry. */
interface ManifestRule {
  kinds: 'all' | 'webhooks' | 'policies' | 'bindings';
  /** Checked once every file was read (its message names no file). */
  set?: true;
  check(e: ManifestEntry, set: ManifestSet): { field: string; message: string }[];
}

interface ManifestSet {
  entries: readonly ManifestEntry[];
  /** First file per plugin dir and name, per kind group (policies and bindings are separate namespaces in the policy loader). */
  firstFile: Map<string, ManifestEntry>;
}

const nameGroup = (e: ManifestEntry): string => `${e.plugin.dir}\n${e.plugin.policyKind && e.plugin.policyKind !== str(e.object.kind) ? 'binding' : 'object'}`;

const WEBHOOK_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy']);
const BINDING_KINDS = new Set(['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding']);
const applies = (r: ManifestRule, kind: string): boolean =>
  r.kinds === 'all' || (r.kinds === 'webhooks' ? WEBHOOK_KINDS : r.kinds === 'policies' ? POLICY_KINDS : BINDING_KINDS).has(kind);

/** The loaders' rules, in the order a loader meets them. */
export const MANIFEST_RULES: readonly ManifestRule[] = [
  // the decoder knows every version, the accept functions only v1 (extractValidating, acceptVAP …)
  {
    kinds: 'all',
    check: (e) =>
      str(e.object.apiVersion) === MANIFEST_API_VERSION ? [] : [{ field: 'apiVersion', message: `unsupported resource type ${goType(e.object)}` }],
  },
  // manifest.ValidateManifestName
  {
    kinds: 'all',
    check: (e, set) => {
      const name = nameOf(e.object);
      const field = String(fieldPath('metadata', 'name'));
      if (!name) return [{ field, message: `resource in file "${e.file}" must have a name` }];
      if (!name.endsWith(StaticConfigSuffix)) return [{ field, message: `"${name}" in file "${e.file}" must have a name ending with "${StaticConfigSuffix}"` }];
      const first = set.firstFile.get(`${nameGroup(e)}\n${name}`);
      return first && first !== e ? [{ field, message: `duplicate name "${name}" found in file "${e.file}" (previously seen in "${first.file}")` }] : [];
    },
  },
  // webhook loader ValidateWebhookClientConfig
  {
    kinds: 'webhooks',
    check: (e) =>
      list(e.object.webhooks).flatMap((w, i) => {
        const cc = obj(obj(w).clientConfig);
        const at = fieldPath('webhooks').index(i).child('clientConfig');
        const who = `webhook "${str(obj(w).name)}" in "${nameOf(e.object)}" (file "${e.file}")`;
        if (cc.service !== undefined && cc.service !== null)
          return [
            { field: String(at.child('service')), message: `${who}: clientConfig.service is not supported for static manifests; use clientConfig.url instead` },
          ];
        if (!str(cc.url)) return [{ field: String(at.child('url')), message: `${who}: clientConfig.url is required for static manifests` }];
        return [];
      }),
  },
  // policy loader validatePolicyManifestConstraints
  {
    kinds: 'policies',
    check: (e) =>
      obj(e.object.spec).paramKind !== undefined && obj(e.object.spec).paramKind !== null
        ? [{ field: 'spec.paramKind', message: `${str(e.object.kind)} "${nameOf(e.object)}": spec.paramKind is not supported for static manifests` }]
        : [],
  },
  // policy loader validateBindingConstraints
  {
    kinds: 'bindings',
    check: (e) => {
      const spec = obj(e.object.spec);
      const name = nameOf(e.object);
      const policyName = str(spec.policyName);
      const out: { field: string; message: string }[] = [];
      if (!policyName) out.push({ field: 'spec.policyName', message: `binding "${name}" must reference a policy (spec.policyName)` });
      else if (!policyName.endsWith(StaticConfigSuffix))
        out.push({ field: 'spec.policyName', message: `binding "${name}": spec.policyName "${policyName}" must end with "${StaticConfigSuffix}"` });
      if (spec.paramRef !== undefined && spec.paramRef !== null)
        out.push({ field: 'spec.paramRef', message: `binding "${name}": spec.paramRef is not supported for static manifests` });
      return out;
    },
  },
  // policy loader validateBindingReferences (after every file)
  {
    kinds: 'bindings',
    set: true,
    check: (e, set) => {
      const policyName = str(obj(e.object.spec).policyName);
      if (!policyName.endsWith(StaticConfigSuffix)) return [];
      const found = set.entries.some((p) => p.plugin === e.plugin && str(p.object.kind) === e.plugin.policyKind && nameOf(p.object) === policyName);
      return found
        ? []
        : [
            {
              field: 'spec.policyName',
              message: `binding "${nameOf(e.object)}" references policy "${policyName}" which does not exist in the manifest directory`,
            },
          ];
    },
  },
];

/** Every loader problem of the static objects among `objects`, at once. */
export function manifestProblems(objects: readonly unknown[], isStatic: (index: number) => boolean, base = DEFAULT_MANIFEST_BASE): ManifestProblem[] {
  const entries = manifestLayout(objects, isStatic, base);
  const firstFile = new Map<string, ManifestEntry>();
  for (const e of entries) {
    const key = `${nameGroup(e)}\n${nameOf(e.object)}`;
    if (nameOf(e.object) && !firstFile.has(key)) firstFile.set(key, e);
  }
  const set: ManifestSet = { entries, firstFile };
  const out: ManifestProblem[] = [];
  for (const e of entries)
    for (const rule of MANIFEST_RULES)
      if (applies(rule, str(e.object.kind)))
        for (const p of rule.check(e, set)) out.push({ index: e.index, file: e.file, ...p, ...(rule.set ? { set: true as const } : {}) });
  return out;
}

/**
 * What the static objects' own checks become: the kind's validation without the registry's
 * additions (the loaders call validation.go directly: no static-suffix rule, no create
 * warnings) and strict decoding (an unknown field is an error: `strict decoding error: …`).
 * `fields` are validate()'s answers for the object at the release (kept as they are otherwise).
 */
export function asManifestErrors(object: unknown, fields: readonly FieldError[], release: KubernetesVersion): FieldError[] {
  const spec = kindSpecOf(object);
  if (!spec || !isObject(object)) return [...fields];
  const key = (e: FieldError) => `${e.severity ?? 'error'}\n${e.field}\n${e.message}`;
  const registry = new Set(strategyChecks(spec.kind, decoded(object), releaseOf(release)).map(key));
  // The loader's own strict decoding, whatever directive `fields` were checked with (Strict, Warn or Ignore).
  const unknown = decodeErrors(object, 'Warn').filter(isUnknownField);
  const unknownKey = (e: FieldError) => `${e.field}\n${e.message}`;
  const isUnknown = new Set(unknown.map(unknownKey));
  const strict = unknown.map((e) => ({
    ...e,
    severity: 'error' as const,
    message: `strict decoding error: ${e.message}`,
    hint: 'The manifest loader decodes strictly: an unknown field stops the set from loading.',
  }));
  // another version is decoded (strictly) and then refused before any validation (MANIFEST_RULES' first rule)
  const v1 = object.apiVersion === MANIFEST_API_VERSION;
  const rest = v1 ? fields.filter((e) => !registry.has(key(e)) && !(isUnknownField(e) && isUnknown.has(unknownKey(e)))) : [];
  return [...strict, ...rest];
}

/** A release's support for static manifests: undefined when the target loads them by default, else why not. */
export function manifestSupport(release: KubernetesVersion): string | undefined {
  const gate = releaseOf(release).gates.ManifestBasedAdmissionControlConfig;
  if (gate) return undefined;
  if (gate === false)
    return `Kubernetes ${release} has static manifests behind the alpha gate ManifestBasedAdmissionControlConfig (off by default): without --feature-gates=ManifestBasedAdmissionControlConfig=true the apiserver refuses staticManifestsDir ("staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled") and does not start`;
  return `Kubernetes ${release} has no static manifests (staticManifestsDir is new in 1.36, on by default from 1.37): its strict decoding of the plugin configuration rejects the field, and the apiserver does not start`;
}

/** The headline of an invalid manifest set. */
export const MANIFEST_SET_HEADLINE =
  "This static manifest set does not load: a kube-apiserver started with it exits with the loader's error, and a running one that reloads it keeps its last good set (and reports the error in its log and metrics)";

/** The AdmissionConfiguration that points each plugin with objects at its directory (one `plugins` entry each). */
export function admissionConfiguration(entries: readonly ManifestEntry[], base = DEFAULT_MANIFEST_BASE, staticOrder: StaticOrder = DEFAULT_STATIC_ORDER): Obj {
  const plugins = MANIFEST_PLUGINS.filter((p) => entries.some((e) => e.plugin === p));
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: plugins.map((p) => ({
      name: p.plugin,
      configuration: {
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: p.configurationKind,
        staticManifestsDir: `${base.replace(/\/+$/, '')}/${p.dir}`,
        // only when it is not the default: a release without the field refuses it (strict decoding)
        ...(p.plugin === 'MutatingAdmissionWebhook' && staticOrder !== DEFAULT_STATIC_ORDER ? { staticOrder } : {}),
      },
    })),
  };
}
