/**
 * Which apiVersions of the admission kinds each Kubernetes release serves: the `versions` of every
 * KindSpec, read from the release table (`served` of each row in src/base/releases.ts), with how
 * to enable a version that is off by default and the source of each fact. How to re-check them:
 * docs/versions.md.
 */
import { KUBERNETES_VERSIONS, RELEASES, type AdmissionApiVersion, type AdmissionKind, type KubernetesVersion, type ReleaseRow } from '../../base/releases';
import type { KindSpec, KindVersion, Serving } from './types';

/** How each target release serves `version` of `kind` (its row's `served`). */
function releases(kind: AdmissionKind, version: AdmissionApiVersion): Partial<Record<KubernetesVersion, Serving>> {
  const out: Partial<Record<KubernetesVersion, Serving>> = {};
  for (const row of RELEASES as readonly ReleaseRow[]) {
    const serving = row.served[version]?.[kind];
    if (serving) out[row.version as KubernetesVersion] = serving;
  }
  return out;
}

const STORAGE = 'pkg/registry/admissionregistration/rest/storage_apiserver.go';
const runtimeConfig = (version: string): string => `--runtime-config=admissionregistration.k8s.io/${version}=true`;

/** Validating/MutatingWebhookConfiguration: v1 only; v1beta1 went in Kubernetes 1.22. */
export const WEBHOOK_CONFIGURATION_VERSIONS: readonly KindVersion[] = [
  { name: 'v1', releases: releases('ValidatingWebhookConfiguration', 'v1'), source: `${STORAGE} v1Storage, all releases` },
  { name: 'v1beta1', releases: {}, removedIn: '1.22', source: `${STORAGE}: no webhook configurations in v1beta1Storage (removed in 1.22)` },
];

/** ValidatingAdmissionPolicy(+Binding): v1 from 1.30; v1beta1 opt-in; v1alpha1 opt-in until 1.32. */
export const VALIDATING_POLICY_VERSIONS: readonly KindVersion[] = [
  { name: 'v1', releases: releases('ValidatingAdmissionPolicy', 'v1'), source: `${STORAGE} v1Storage, all releases` },
  {
    name: 'v1beta1',
    releases: releases('ValidatingAdmissionPolicy', 'v1beta1'),
    enable: runtimeConfig('v1beta1'),
    source: `${STORAGE} v1beta1Storage, all releases; off by default (pkg/controlplane/instance.go)`,
  },
  {
    name: 'v1alpha1',
    releases: releases('ValidatingAdmissionPolicy', 'v1alpha1'),
    enable: runtimeConfig('v1alpha1'),
    removedIn: '1.33',
    source: `${STORAGE} v1alpha1Storage until 1.32, gone in 1.33; off by default (pkg/controlplane/instance.go)`,
  },
];

const MAP_GATE = '--feature-gates=MutatingAdmissionPolicy=true';

/** MutatingAdmissionPolicy(+Binding): v1alpha1 from 1.32, v1beta1 from 1.34 (both opt-in), v1 served from 1.36. */
export const MUTATING_POLICY_VERSIONS: readonly KindVersion[] = [
  { name: 'v1', releases: releases('MutatingAdmissionPolicy', 'v1'), source: `${STORAGE} v1Storage from 1.36; feature gate GA and on from 1.36` },
  {
    name: 'v1beta1',
    releases: releases('MutatingAdmissionPolicy', 'v1beta1'),
    enable: `${runtimeConfig('v1beta1')} (and ${MAP_GATE} before 1.36 for the policies to take effect)`,
    source: `${STORAGE} v1beta1Storage from 1.34; off by default; feature gate beta (off) in 1.34–1.35`,
  },
  {
    name: 'v1alpha1',
    releases: releases('MutatingAdmissionPolicy', 'v1alpha1'),
    enable: `${runtimeConfig('v1alpha1')} (and ${MAP_GATE} before 1.36 for the policies to take effect)`,
    source: `${STORAGE} v1alpha1Storage from 1.32; off by default; feature gate alpha (off) in 1.32–1.33`,
  },
];

/** How `release` serves `version` of a kind: 'served', 'opt-in', or undefined (the release does not have it). */
export function servingOf(spec: KindSpec, version: string, release: KubernetesVersion): Serving | undefined {
  return spec.versions.find((v) => v.name === version)?.releases[release];
}

/** The versions of a kind `release` has, with how it serves them. */
export const versionsIn = (spec: KindSpec, release: KubernetesVersion): readonly KindVersion[] =>
  spec.versions.filter((v) => v.releases[release] !== undefined);

/** The first target release that serves `version` by default, if any. */
export const firstServedIn = (kv: KindVersion): KubernetesVersion | undefined => KUBERNETES_VERSIONS.find((r) => kv.releases[r] === 'served');
