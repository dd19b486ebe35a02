import { describe, expect, it } from 'vitest';
import { loadTypedData, sameShape } from './index';

describe('sameShape (whether converting between two versions of a kind moves only the apiVersion)', () => {
  it('tells kinds whose versions differ from kinds whose versions are the same', async () => {
    await loadTypedData('1.37');
    const hpa = (version: string) => ({ group: 'autoscaling', version, kind: 'HorizontalPodAutoscaler' });
    // autoscaling/v1 has targetCPUUtilizationPercentage, v2 metrics
    expect(sameShape(hpa('v1'), hpa('v2'), '1.37')).toBe(false);
    expect(sameShape(hpa('v2'), hpa('v2'), '1.37')).toBe(true);
    // the same struct of two API versions, field for field
    const ingressClass = (version: string) => ({ group: 'networking.k8s.io', version, kind: 'IngressClass' });
    expect(sameShape(ingressClass('v1'), ingressClass('v1beta1'), '1.37')).toBe(true);
    // a kind the release does not build in
    expect(sameShape(hpa('v1'), { group: 'example.com', version: 'v1', kind: 'HorizontalPodAutoscaler' }, '1.37')).toBe(false);
  });
});
