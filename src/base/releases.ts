/**
 * The Kubernetes releases the Workbench targets, one row each: everything that differs
 * between releases and is not wording (validation's words: src/k8s/validation/releases.ts)
 * is read from here. Adding a release is a row here plus the engine's dependency bump
 * (docs/versions.md, "How to add a Kubernetes release"). Every fact names its source in
 * k8s.io/kubernetes or k8s.io/apiserver of that release.
 */

/** The admission kinds of admissionregistration.k8s.io. */
export type AdmissionKind =
  | 'ValidatingWebhookConfiguration'
  | 'MutatingWebhookConfiguration'
  | 'ValidatingAdmissionPolicy'
  | 'ValidatingAdmissionPolicyBinding'
  | 'MutatingAdmissionPolicy'
  | 'MutatingAdmissionPolicyBinding';

/** The apiVersions of admissionregistration.k8s.io. */
export type AdmissionApiVersion = 'v1' | 'v1beta1' | 'v1alpha1';

export interface GroupResource {
  group: string;
  resource: string;
}

/** How a release's kube-apiserver serves an apiVersion of a kind: by default, or only with `--runtime-config`. */
export type Serving = 'served' | 'opt-in';

export interface ReleaseRow {
  version: `1.${number}`;
  /**
   * A release not shipped yet: the pre-release its facts were read from (k8s.io/kubernetes
   * `v1.38.0-beta.0`). The picker names it, and such a row is never the default target.
   */
  preRelease?: `v1.${number}.${number}-${string}`;
  /**
   * The CEL engine build that answers this release: the release whose k8s.io/apiserver and cel-go
   * it is built on (wasm/go.mod, or wasm/go.<engine>.mod for another engine generation). An engine
   * emulates the releases before its own (wasm/versions.go); a release whose cel-go it cannot
   * emulate exactly gets its own build.
   */
  engine: CelEngineBuild;
  /** The compatibility version new CEL expressions compile at (n−1; the engine's `kubernetesVersion` option does the rest). */
  celCompatibility: `1.${number}`;
  /** CEL libraries introduced in this release (environment/base.go IntroducedVersion): evaluated in stored expressions from it, accepted in new ones from the next release. */
  celLibraries: readonly string[];
  /**
   * CEL behaviour that follows the release's cel-go, not a library version (the engine reproduces it per
   * release: wasm/fixes.go). `plainOrValue`: `x.orValue(y)` / `x.or(y)` on an x that is not optional gives x
   * (cel-go up to v0.28, releases before 1.37) or fails with "no such overload" (cel-go v0.29, 1.37).
   */
  cel: { plainOrValue: 'value' | 'error' };
  /** admissionregistration.k8s.io: which kinds each apiVersion has and how (pkg/registry/admissionregistration/rest/storage_apiserver.go, pkg/controlplane/instance.go). */
  served: Readonly<Partial<Record<AdmissionApiVersion, Readonly<Partial<Record<AdmissionKind, Serving>>>>>>;
  /** Defaults of the feature gates that change what the Workbench models (pkg/features/kube_features.go, k8s.io/apiserver pkg/features). Absent: the gate does not exist in that release. */
  gates: Readonly<Partial<Record<Gate, boolean>>>;
  /** The admission chain. */
  chain: {
    /** Resources admission webhooks are never called for (pkg/kubeapiserver/admission/exclusion: Excluded() with ExcludeAdmissionWebhookVirtualResources on). */
    webhookExcludedResources: readonly GroupResource[];
    /** Resources admission policies (validating and mutating) are never called for (the same Excluded(), applied by the policy plugins since 1.30). */
    policyExcludedResources: readonly GroupResource[];
    /**
     * The `validation.policy.admission.k8s.io/validation_failure` audit annotation for bindings with
     * the Audit action: 'first' = one annotation per failure, of which the request keeps the first
     * (AddAnnotation refuses a second value for the key); 'all' = one annotation with every failure
     * of every policy, at most 50 (k8s.io/apiserver pkg/admission/plugin/policy/validating/dispatcher.go).
     */
    auditValidationFailures: 'first' | 'all';
    /**
     * The MutatingAdmissionWebhook plugin's configuration takes `staticOrder` (StaticFirst, StaticLast,
     * ByName: where static manifest webhooks run among the API ones; k8s.io/apiserver
     * pkg/admission/plugin/webhook/config/kubeconfig.go, generic/composite_webhook_source.go). Without it
     * static webhooks always run first, and the field is an unknown field (strict decoding).
     */
    webhookStaticOrder: boolean;
  };
  /** Create-time validation. */
  validation: {
    /** Names ending in `.static.k8s.io`: nothing (before 1.36), a create warning, or an Invalid error at metadata.name (ManifestBasedAdmissionControlConfig on). */
    staticSuffix: 'none' | 'warning' | 'error';
    /** Create warns about webhook rules that name a resource webhooks are not called for (ExcludeAdmissionWebhookVirtualResources). */
    warnExcludedWebhookRules: boolean;
    /** Identical errors are reported once: create runs declarative validation, which filters the list through ErrorList.ToAggregate (k8s.io/apiserver pkg/registry/rest/create.go ValidateCreate). */
    dedupeErrors: boolean;
  };
}

/** The CEL engine builds (one per engine generation, named by the release whose modules it is built on). */
export type CelEngineBuild = '1.37' | '1.38';

/** Feature gates whose defaults change behaviour the Workbench models. */
export type Gate =
  | 'AuthorizeWithSelectors'
  | 'MutatingAdmissionPolicy'
  | 'ManifestBasedAdmissionControlConfig'
  | 'ExcludeAdmissionWebhookVirtualResources'
  | 'ConditionalAuthorization';

/**
 * Gates a workspace may turn on where its release has them off by default (`--feature-gates=X=true`):
 * the ones whose consequences the Workbench models when on. ConditionalAuthorization: the
 * AuthorizationConditionsEnforcer admission plugin acts (src/admission/conditions.ts).
 */
export const WORKSPACE_GATES = ['ConditionalAuthorization'] as const satisfies readonly Gate[];
export type WorkspaceGate = (typeof WORKSPACE_GATES)[number];
export const isWorkspaceGate = (v: unknown): v is WorkspaceGate => (WORKSPACE_GATES as readonly unknown[]).includes(v);

/** The gates a workspace on `release` may turn on: the row has them, off by default. */
export const optionalGates = (release?: KubernetesVersion): WorkspaceGate[] => WORKSPACE_GATES.filter((g) => releaseOf(release).gates[g] === false);

/** Whether a gate is on: turned on by the workspace (where the release has it), else the release's default. */
export const gateEnabled = (gate: Gate, release?: KubernetesVersion, turnedOn: readonly string[] = []): boolean => {
  const byDefault = releaseOf(release).gates[gate];
  return byDefault === undefined ? false : byDefault || turnedOn.includes(gate);
};

/** The review resources: never persisted, never sent to admission policies (since 1.30) nor, from 1.37, to webhooks. */
export const REVIEW_RESOURCES: readonly GroupResource[] = [
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
  { group: 'authentication.k8s.io', resource: 'tokenreviews' },
  { group: 'authorization.k8s.io', resource: 'localsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
];

const WEBHOOKS = { ValidatingWebhookConfiguration: 'served', MutatingWebhookConfiguration: 'served' } as const;
const VAP = (s: Serving) => ({ ValidatingAdmissionPolicy: s, ValidatingAdmissionPolicyBinding: s });
const MAP = (s: Serving) => ({ MutatingAdmissionPolicy: s, MutatingAdmissionPolicyBinding: s });

const CEL_BEFORE_137 = { plainOrValue: 'value' } as const;
const CHAIN_BEFORE_137 = {
  webhookExcludedResources: [],
  policyExcludedResources: REVIEW_RESOURCES,
  auditValidationFailures: 'first',
  webhookStaticOrder: false,
} as const;
const VALIDATION_BEFORE_136 = { staticSuffix: 'none', warnExcludedWebhookRules: false, dedupeErrors: false } as const;

/** Oldest first; the newest row that is not a pre-release is the default target. */
export const RELEASES = [
  {
    version: '1.30',
    engine: '1.37',
    celCompatibility: '1.29',
    celLibraries: ['IP and CIDR'],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served') }, v1beta1: VAP('opt-in'), v1alpha1: VAP('opt-in') },
    gates: {},
    chain: CHAIN_BEFORE_137,
    validation: VALIDATION_BEFORE_136,
  },
  {
    version: '1.31',
    engine: '1.37',
    celCompatibility: '1.30',
    celLibraries: ['format', 'authorizer selectors'],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served') }, v1beta1: VAP('opt-in'), v1alpha1: VAP('opt-in') },
    gates: { AuthorizeWithSelectors: false },
    chain: CHAIN_BEFORE_137,
    validation: VALIDATION_BEFORE_136,
  },
  {
    version: '1.32',
    engine: '1.37',
    celCompatibility: '1.31',
    celLibraries: ['two-variable comprehensions'],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served') }, v1beta1: VAP('opt-in'), v1alpha1: { ...VAP('opt-in'), ...MAP('opt-in') } },
    gates: { AuthorizeWithSelectors: true, MutatingAdmissionPolicy: false },
    chain: CHAIN_BEFORE_137,
    validation: VALIDATION_BEFORE_136,
  },
  {
    version: '1.33',
    engine: '1.37',
    celCompatibility: '1.32',
    celLibraries: ['semver'],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served') }, v1beta1: VAP('opt-in'), v1alpha1: MAP('opt-in') },
    gates: { AuthorizeWithSelectors: true, MutatingAdmissionPolicy: false },
    chain: CHAIN_BEFORE_137,
    validation: VALIDATION_BEFORE_136,
  },
  {
    version: '1.34',
    engine: '1.37',
    celCompatibility: '1.33',
    celLibraries: ['cel-go lists v3 (lists.range, sortBy, first, last)'],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served') }, v1beta1: { ...VAP('opt-in'), ...MAP('opt-in') }, v1alpha1: MAP('opt-in') },
    gates: { AuthorizeWithSelectors: true, MutatingAdmissionPolicy: false },
    chain: CHAIN_BEFORE_137,
    validation: VALIDATION_BEFORE_136,
  },
  {
    version: '1.35',
    engine: '1.37',
    celCompatibility: '1.34',
    celLibraries: [],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served') }, v1beta1: { ...VAP('opt-in'), ...MAP('opt-in') }, v1alpha1: MAP('opt-in') },
    gates: { AuthorizeWithSelectors: true, MutatingAdmissionPolicy: false },
    chain: CHAIN_BEFORE_137,
    validation: VALIDATION_BEFORE_136,
  },
  {
    version: '1.36',
    engine: '1.37',
    celCompatibility: '1.35',
    celLibraries: [],
    cel: CEL_BEFORE_137,
    served: { v1: { ...WEBHOOKS, ...VAP('served'), ...MAP('served') }, v1beta1: { ...VAP('opt-in'), ...MAP('opt-in') }, v1alpha1: MAP('opt-in') },
    gates: { AuthorizeWithSelectors: true, MutatingAdmissionPolicy: true, ManifestBasedAdmissionControlConfig: false },
    chain: CHAIN_BEFORE_137,
    validation: { staticSuffix: 'warning', warnExcludedWebhookRules: false, dedupeErrors: false },
  },
  {
    version: '1.37',
    engine: '1.37',
    celCompatibility: '1.36',
    celLibraries: ['Kubernetes lists v1 (includes())'],
    cel: { plainOrValue: 'error' },
    served: { v1: { ...WEBHOOKS, ...VAP('served'), ...MAP('served') }, v1beta1: { ...VAP('opt-in'), ...MAP('opt-in') }, v1alpha1: MAP('opt-in') },
    gates: { MutatingAdmissionPolicy: true, ManifestBasedAdmissionControlConfig: true, ExcludeAdmissionWebhookVirtualResources: true },
    chain: { webhookExcludedResources: REVIEW_RESOURCES, policyExcludedResources: REVIEW_RESOURCES, auditValidationFailures: 'all', webhookStaticOrder: false },
    validation: { staticSuffix: 'error', warnExcludedWebhookRules: true, dedupeErrors: true },
  },
  {
    version: '1.38',
    preRelease: 'v1.38.0-beta.0',
    engine: '1.38',
    celCompatibility: '1.37',
    celLibraries: ['CIDR v1 (isMask())'],
    cel: { plainOrValue: 'error' },
    served: { v1: { ...WEBHOOKS, ...VAP('served'), ...MAP('served') }, v1beta1: { ...VAP('opt-in'), ...MAP('opt-in') }, v1alpha1: MAP('opt-in') },
    gates: {
      MutatingAdmissionPolicy: true,
      ManifestBasedAdmissionControlConfig: true,
      ExcludeAdmissionWebhookVirtualResources: true,
      ConditionalAuthorization: false,
    },
    chain: { webhookExcludedResources: REVIEW_RESOURCES, policyExcludedResources: REVIEW_RESOURCES, auditValidationFailures: 'all', webhookStaticOrder: true },
    validation: { staticSuffix: 'error', warnExcludedWebhookRules: true, dedupeErrors: true },
  },
] as const satisfies readonly ReleaseRow[];

export type KubernetesVersion = (typeof RELEASES)[number]['version'];

/** The Kubernetes releases the Workbench targets: a workspace chooses one (default the newest). */
export const KUBERNETES_VERSIONS: readonly KubernetesVersion[] = RELEASES.map((r) => r.version);

const ROWS: readonly ReleaseRow[] = RELEASES;

/** The newest shipped release (a pre-release row is offered, never the default). */
export const DEFAULT_KUBERNETES_VERSION = ROWS.filter((r) => !r.preRelease).at(-1)!.version as KubernetesVersion;

export const isKubernetesVersion = (v: unknown): v is KubernetesVersion => (KUBERNETES_VERSIONS as readonly unknown[]).includes(v);

/** The minor number of a version ('1.31' → 31), for comparisons such as "from 1.32 on". */
export const minorOf = (v: KubernetesVersion): number => Number(v.slice(2));

/** The row of a release (absent: the default). */
export const releaseOf = (v: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): ReleaseRow =>
  ROWS.find((r) => r.version === v) ?? ROWS.find((r) => r.version === DEFAULT_KUBERNETES_VERSION)!;

/** How the picker and messages name a release: `1.38 (pre-release v1.38.0-beta.0)` for a pre-release row. */
export const releaseLabel = (v: KubernetesVersion): string => {
  const pre = releaseOf(v).preRelease;
  return pre ? `${v} (pre-release ${pre})` : v;
};
