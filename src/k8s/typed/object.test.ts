import { beforeAll, describe, expect, it } from 'vitest';
import { apiserverObject, loadTypedData } from './index';
import { canonicalQuantity } from './quantity';
import { formatMicroTime, formatTime, parseDuration } from './time';
import { imageTag } from './conditional';

beforeAll(() => Promise.all([loadTypedData('1.37'), loadTypedData('1.30')]));
const at = (o: unknown, release: '1.37' | '1.30' = '1.37') => apiserverObject(o, release);

describe('apiserverObject: the typed object as ToUnstructured writes it', () => {
  it("keeps a Role's rules: null (no omitempty) and drops empty omitempty maps", () => {
    expect(at({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', labels: {} }, rules: null }).object).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: null,
    });
    expect(at({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } }).object).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r' },
      rules: null,
    });
  });

  it('drops unknown fields and nulls of omitempty fields; custom resources stay as sent but for their metadata', () => {
    expect(at({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: null }, data: { a: 'b' }, extra: 1 }).object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'b' },
    });
    const cr = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: {} }, spec: { x: null, y: {} } };
    expect(at(cr)).toEqual({ object: { ...cr, metadata: { name: 'w' } }, typed: false, problems: [] });
  });

  it("defaults a Pod as the release's defaulters do, conditional defaults included", () => {
    const pod = at({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        serviceAccount: 'builder',
        containers: [
          { name: 'a', image: 'nginx', resources: { limits: { cpu: 0.5, memory: '1.5Gi' } }, ports: [{ containerPort: 80 }] },
          { name: 'b', image: 'nginx:1.27', livenessProbe: { httpGet: { port: 8080 } } },
        ],
        volumes: [{ name: 'v', configMap: { name: 'c' } }, { name: 'e' }],
      },
    }).object as { spec: Record<string, unknown> };
    expect(pod.spec).toMatchObject({
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
      serviceAccountName: 'builder',
      serviceAccount: 'builder',
    });
    const [a, b] = pod.spec.containers as Record<string, unknown>[];
    expect(a).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: { limits: { cpu: '500m', memory: '1536Mi' }, requests: { cpu: '500m', memory: '1536Mi' } },
      ports: [{ containerPort: 80, protocol: 'TCP' }],
    });
    expect(b).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      livenessProbe: { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10 },
    });
    expect(pod.spec.volumes).toEqual([
      { name: 'v', configMap: { name: 'c', defaultMode: 420 } },
      { name: 'e', emptyDir: {} },
    ]);
  });

  it('a Deployment: strategy defaults only for RollingUpdate, the template without the Pod-only defaults', () => {
    const d = (strategy?: unknown) =>
      (
        at({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'd' },
          spec: {
            selector: { matchLabels: { a: 'b' } },
            template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
            strategy,
          },
        }).object as { spec: Record<string, unknown> }
      ).spec;
    expect(d()).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    });
    expect(d({ type: 'Recreate' }).strategy).toEqual({ type: 'Recreate' });
    expect((d().template as { spec: Record<string, unknown> }).spec.enableServiceLinks).toBeUndefined();
  });

  it('a Service: targetPort from port, internalTrafficPolicy by type', () => {
    const spec = (s: Record<string, unknown>) =>
      (at({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: s }).object as { spec: Record<string, unknown> }).spec;
    expect(spec({ ports: [{ port: 80 }] })).toEqual({
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
    });
    expect(spec({ type: 'ExternalName', externalName: 'x.example.com' })).toEqual({
      type: 'ExternalName',
      externalName: 'x.example.com',
      sessionAffinity: 'None',
    });
    expect(spec({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'https' }] })).toMatchObject({
      externalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      ports: [{ port: 443, targetPort: 'https', protocol: 'TCP' }],
    });
  });

  it('says why the apiserver would not decode an object', () => {
    const r = at({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 3 }, data: { a: 1 } });
    expect(r.problems).toEqual(['metadata.name: cannot decode number into a string', 'data["a"]: cannot decode number into a string']);
  });

  it('1.30 writes creationTimestamp: null (no omitzero before 1.34); 1.37 leaves it out', () => {
    expect((at({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, '1.30').object as { metadata: unknown }).metadata).toEqual({ creationTimestamp: null });
    expect((at({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }).object as { metadata: unknown }).metadata).toEqual({});
  });
});

describe('the formats with their own JSON form', () => {
  it.each([
    ['0.5', '500m'],
    ['1.5Gi', '1536Mi'],
    ['1000', '1k'],
    ['1024', '1024'],
    ['1e3', '1e3'],
    ['100Mi', '100Mi'],
    ['0.1Gi', '107374182400m'],
    ['1n', '1n'],
    ['0.0000000001', '1n'],
    ['-1.5', '-1500m'],
    ['2048Ki', '2Mi'],
    ['0', '0'],
    ['12e6', '12e6'],
  ])('Quantity %s → %s', (q, want) => {
    expect(canonicalQuantity(q)).toEqual({ ok: true, value: want });
  });
  it('times in UTC, to the second or the microsecond; durations as Go writes them', () => {
    expect(formatTime('2024-05-01T12:00:00.5+02:00')).toBe('2024-05-01T10:00:00Z');
    expect(formatMicroTime('2024-05-01T10:00:00.123456789Z')).toBe('2024-05-01T10:00:00.123456Z');
    expect(parseDuration('90m')).toBe('1h30m0s');
    expect(parseDuration('1.5s')).toBe('1.5s');
  });
  it('image tags as parsers.ParseImageName finds them', () => {
    expect(imageTag('nginx')).toBe('latest');
    expect(imageTag('nginx:1.27')).toBe('1.27');
    expect(imageTag('registry.example.com:5000/team/app:latest')).toBe('latest');
    expect(imageTag(`nginx@sha256:${'a'.repeat(64)}`)).toBe('');
    expect(imageTag('Nginx')).toBe('');
  });
});

describe('what the decoder refuses, as Go does', () => {
  it('a day past the end of its month, and base64 without its padding', async () => {
    await loadTypedData('1.37');
    const cm = (extra: Record<string, unknown>) => apiserverObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, ...extra }, '1.37').problems;
    const at = (t: string) => cm({ metadata: { name: 'a', creationTimestamp: t } });
    expect(at('2024-02-30T00:00:00Z')).toHaveLength(1);
    expect(at('2023-02-29T00:00:00Z')).toHaveLength(1);
    expect(at('2024-02-29T00:00:00Z')).toEqual([]);
    expect(at('2024-04-31T00:00:00Z')).toHaveLength(1);
    expect(cm({ binaryData: { b: 'YWJj' } })).toEqual([]);
    expect(cm({ binaryData: { b: 'YWI=' } })).toEqual([]);
    expect(cm({ binaryData: { b: 'YWI' } })).toEqual(['binaryData["b"]: illegal base64 data']);
  });
});
