/** The Kubernetes releases the Workbench targets: a workspace chooses one (default the newest). */
export const KUBERNETES_VERSIONS = ['1.30', '1.31', '1.32', '1.33', '1.34', '1.35', '1.36'] as const;

export type KubernetesVersion = (typeof KUBERNETES_VERSIONS)[number];

export const DEFAULT_KUBERNETES_VERSION: KubernetesVersion = '1.36';

export const isKubernetesVersion = (v: unknown): v is KubernetesVersion => (KUBERNETES_VERSIONS as readonly unknown[]).includes(v);

/** The minor number of a version ('1.31' → 31), for comparisons such as "from 1.32 on". */
export const minorOf = (v: KubernetesVersion): number => Number(v.slice(2));
