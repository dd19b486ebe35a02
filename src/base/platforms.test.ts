import { describe, expect, it } from 'vitest';
import { isPlatformId, nearestKubernetesVersion, nearestPlatform, PLATFORMS, targetRelease } from './platforms';
import { isKubernetesVersion, releaseOf } from './releases';

describe('the platform table', () => {
  it('maps each OpenShift minor to a Kubernetes release of the table, one minor apart, each with its source', () => {
    expect(PLATFORMS.map((p) => `${p.id} → ${p.kubernetesVersion}`)).toEqual([
      'openshift-4.17 → 1.30',
      'openshift-4.18 → 1.31',
      'openshift-4.19 → 1.32',
      'openshift-4.20 → 1.33',
      'openshift-4.21 → 1.34',
      'openshift-4.22 → 1.35',
    ]);
    for (const p of PLATFORMS) {
      expect(isKubernetesVersion(p.kubernetesVersion)).toBe(true);
      expect(p.label).toBe(`OpenShift ${p.id.slice('openshift-'.length)}`);
      expect(p.source).not.toBe('');
      expect(p.criticalNamespaces.map((c) => c.pattern)).toEqual(['openshift-*', 'default']);
      for (const c of p.criticalNamespaces) expect(c.example === c.pattern || c.example.startsWith(c.pattern.replace('*', ''))).toBe(true);
    }
  });

  it('resolves a platform to its Kubernetes release with its own critical namespaces; upstream has none extra', () => {
    const os = targetRelease('1.37', 'openshift-4.19');
    expect(os.kubernetesVersion).toBe('1.32');
    expect(os.label).toBe('OpenShift 4.19 (Kubernetes 1.32)');
    // no gate default confirmed to differ from upstream (docs/versions.md): the Kubernetes row's
    expect(os.gates).toEqual(releaseOf('1.32').gates);
    expect(os.served).toEqual(releaseOf('1.32').served);
    expect(os.criticalNamespaces.map((c) => c.example)).toEqual(['openshift-ingress', 'default']);
    const upstream = targetRelease('1.32');
    expect(upstream.label).toBe('Kubernetes 1.32');
    expect(upstream.criticalNamespaces).toEqual([]);
    expect(targetRelease().kubernetesVersion).toBe('1.37');
  });

  it('finds the nearest release or platform for one this Workbench lacks, and nothing for what is no version', () => {
    expect(isPlatformId('openshift-4.19')).toBe(true);
    expect(isPlatformId('openshift-4.12')).toBe(false);
    expect(nearestPlatform('openshift-4.12')).toBe('openshift-4.17');
    expect(nearestPlatform('openshift-4.30')).toBe('openshift-4.22');
    expect(nearestPlatform('openshift-5.1')).toBeUndefined();
    expect(nearestPlatform('rancher-2.9')).toBeUndefined();
    expect(nearestKubernetesVersion('1.29')).toBe('1.30');
    expect(nearestKubernetesVersion('1.40')).toBe('1.38');
    expect(nearestKubernetesVersion('v1.33')).toBeUndefined();
    expect(nearestKubernetesVersion(33)).toBeUndefined();
  });
});
