/**
 * Target platforms beside the upstream Kubernetes releases: a distribution's minor maps to the
 * Kubernetes release it is built on (a row of releases.ts) plus what it changes in what the
 * Workbench models: feature-gate defaults and the namespaces a cluster cannot live without.
 * Data, not branches: code asks `targetRelease(version, platform)` for the effective row and
 * never whether a platform is OpenShift. Sources of each row: docs/versions.md.
 */
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS, minorOf, releaseOf, type Gate, type KubernetesVersion, type ReleaseRow } from './releases';

/**
 * A namespace pattern whose workloads keep the cluster running: the Lockout report sends a Pod
 * create into `example` (a real namespace that matches `pattern`) by the replicaset controller.
 */
export interface CriticalNamespace {
  pattern: string;
  example: string;
  /** What breaks, in the report's words. */
  impact: string;
}

export interface PlatformRow {
  id: `openshift-4.${number}`;
  label: string;
  kubernetesVersion: KubernetesVersion;
  /** Gate defaults that differ from the Kubernetes release's (none confirmed from source yet: docs/versions.md). */
  gates: Readonly<Partial<Record<Gate, boolean>>>;
  criticalNamespaces: readonly CriticalNamespace[];
  /** Where the Kubernetes release of this minor is stated. */
  source: string;
}

const OPENSHIFT_DOCS_OLM =
  'OpenShift Container Platform docs, "Image template for custom catalog sources" (openshift-docs modules/olm-catalogsource-image-template.adoc)';
const ONE_PER_MINOR = `each OpenShift 4 minor rebases on the next Kubernetes minor (4.17 → 1.30 and 4.22 → 1.35 in ${OPENSHIFT_DOCS_OLM})`;

/** openshift-*, kube-* and default: the namespaces OpenShift's own operators and control plane run in. */
const OPENSHIFT_CRITICAL: readonly CriticalNamespace[] = [
  {
    pattern: 'openshift-*',
    example: 'openshift-ingress',
    impact: 'the cluster operators (ingress routers, DNS, the OpenShift apiservers, authentication) cannot recreate their pods',
  },
  { pattern: 'default', example: 'default', impact: 'pods in the default namespace cannot be recreated' },
];

const openshift = (minor: number, kubernetesVersion: KubernetesVersion, source: string): PlatformRow => ({
  id: `openshift-4.${minor}`,
  label: `OpenShift 4.${minor}`,
  kubernetesVersion,
  gates: {},
  criticalNamespaces: OPENSHIFT_CRITICAL,
  source,
});

/** Oldest first; only minors whose Kubernetes release is in releases.ts. */
export const PLATFORMS: readonly PlatformRow[] = [
  openshift(17, '1.30', `${OPENSHIFT_DOCS_OLM} (4.17: "uses Kubernetes 1.30")`),
  openshift(18, '1.31', ONE_PER_MINOR),
  openshift(19, '1.32', ONE_PER_MINOR),
  openshift(20, '1.33', ONE_PER_MINOR),
  openshift(21, '1.34', ONE_PER_MINOR),
  openshift(22, '1.35', `${OPENSHIFT_DOCS_OLM} (4.22: "uses Kubernetes 1.35")`),
];

export type PlatformId = PlatformRow['id'];

export const PLATFORM_IDS: readonly PlatformId[] = PLATFORMS.map((p) => p.id);

export const isPlatformId = (v: unknown): v is PlatformId => (PLATFORM_IDS as readonly unknown[]).includes(v);

export const platformOf = (id: PlatformId): PlatformRow | undefined => PLATFORMS.find((p) => p.id === id);

/** The release row a cluster behaves as: a platform's gate overrides on its Kubernetes release, plus its critical namespaces. */
export interface TargetRow extends ReleaseRow {
  kubernetesVersion: KubernetesVersion;
  /** "Kubernetes 1.34" or "OpenShift 4.19 (Kubernetes 1.32)". */
  label: string;
  criticalNamespaces: readonly CriticalNamespace[];
}

export function targetRelease(version?: KubernetesVersion, platform?: PlatformId): TargetRow {
  const p = platform ? platformOf(platform) : undefined;
  const kubernetesVersion = p?.kubernetesVersion ?? version ?? DEFAULT_KUBERNETES_VERSION;
  const row = releaseOf(kubernetesVersion);
  if (!p) return { ...row, kubernetesVersion, label: `Kubernetes ${row.version}`, criticalNamespaces: [] };
  return {
    ...row,
    kubernetesVersion,
    gates: { ...row.gates, ...p.gates },
    label: `${p.label} (Kubernetes ${row.version})`,
    criticalNamespaces: p.criticalNamespaces,
  };
}

const numbers = (s: string): number[] | undefined => {
  const m = /^(\d+)\.(\d+)/.exec(s);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};

const nearestBy = <T>(items: readonly T[], target: number, key: (t: T) => number): T =>
  items.reduce((best, t) => (Math.abs(key(t) - target) < Math.abs(key(best) - target) ? t : best), items[0]!);

/** A Kubernetes release a file names that this Workbench lacks ('1.29', '1.40'): the nearest one it has, or undefined when it is no version at all. */
export function nearestKubernetesVersion(v: unknown): KubernetesVersion | undefined {
  const n = typeof v === 'string' ? numbers(v) : undefined;
  if (n?.[0] !== 1) return undefined;
  return nearestBy(KUBERNETES_VERSIONS, n[1]!, minorOf);
}

/** A platform a file names that this Workbench lacks ('openshift-4.12', 'openshift-4.30'): the nearest one of the same family, or undefined. */
export function nearestPlatform(v: unknown): PlatformId | undefined {
  if (typeof v !== 'string' || !v.startsWith('openshift-')) return undefined;
  const n = numbers(v.slice('openshift-'.length));
  if (n?.[0] !== 4) return undefined;
  return nearestBy(PLATFORMS, n[1]!, (p) => Number(p.id.split('.')[1])).id;
}
