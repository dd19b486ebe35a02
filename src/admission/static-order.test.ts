/**
 * Where static mutating webhooks run among the API ones (the MutatingAdmissionWebhook plugin's
 * `staticOrder`, k8s.io/apiserver v0.38 webhook/generic/composite_webhook_source.go
 * mergeAccessors): the workspace's order, honoured only by a release whose row has
 * chain.webhookStaticOrder; validating webhooks keep static first. The apiserver's own merge
 * decides the same fixtures in tools/manifest-oracle (order.go).
 */
import { describe, expect, it } from 'vitest';
import { releaseOf } from '../base/releases';
import { admissionConfiguration, effectiveStaticOrder, manifestLayout } from '../k8s/static-manifests';
import { lockoutReport } from './lockout';
import { collectWorkspace } from './workspace';
import { hook, mutating, validating } from './test-helpers';

const objects = [
  mutating('b.static.k8s.io', hook('s1.example.com')),
  mutating('z.static.k8s.io', hook('s2.example.com')),
  mutating('a', hook('a.example.com')),
  mutating('b', hook('b.example.com')),
  mutating('b-x', hook('bx.example.com')),
  mutating('c', hook('c.example.com')),
  validating('v', hook('v.example.com')),
  validating('v.static.k8s.io', hook('vs.example.com')),
];
const statics = new Set([0, 1, 7]);
const order = (o: Parameters<typeof collectWorkspace>[3]) => {
  const ws = collectWorkspace(objects, [], (i) => statics.has(i), o);
  return { mutating: ws.webhooks.mutating.map((w) => w.configName), validating: ws.webhooks.validating.map((w) => w.configName) };
};

describe('staticOrder', () => {
  it('StaticFirst (the default): static configurations by name, then the API ones by name', () => {
    expect(order(undefined).mutating).toEqual(['b.static.k8s.io', 'z.static.k8s.io', 'a', 'b', 'b-x', 'c']);
    expect(order('StaticFirst')).toEqual(order(undefined));
  });

  it('StaticLast: the API configurations first', () => {
    expect(order('StaticLast').mutating).toEqual(['a', 'b', 'b-x', 'c', 'b.static.k8s.io', 'z.static.k8s.io']);
  });

  it('ByName: all of them by name (b-x sorts before b.static.k8s.io)', () => {
    expect(order('ByName').mutating).toEqual(['a', 'b', 'b-x', 'b.static.k8s.io', 'c', 'z.static.k8s.io']);
  });

  it('validating webhooks keep static first whatever the order', () => {
    for (const o of ['StaticFirst', 'StaticLast', 'ByName'] as const) expect(order(o).validating).toEqual(['v.static.k8s.io', 'v']);
  });

  it('a release without the field runs static webhooks first; 1.38 has it', () => {
    expect(releaseOf('1.37').chain.webhookStaticOrder).toBe(false);
    expect(effectiveStaticOrder('1.37', 'ByName')).toBe('StaticFirst');
    expect(effectiveStaticOrder('1.38', 'ByName')).toBe('ByName');
    expect(effectiveStaticOrder('1.38', undefined)).toBe('StaticFirst');
  });

  it('the AdmissionConfiguration carries a non-default order on the mutating webhook plugin only', () => {
    const entries = manifestLayout(objects, (i) => statics.has(i));
    const plugins = (o: Parameters<typeof admissionConfiguration>[2]) =>
      (admissionConfiguration(entries, undefined, o).plugins as { name: string; configuration: Record<string, unknown> }[]).map((p) => [
        p.name,
        p.configuration.staticOrder,
      ]);
    expect(plugins('StaticLast')).toEqual([
      ['MutatingAdmissionWebhook', 'StaticLast'],
      ['ValidatingAdmissionWebhook', undefined],
    ]);
    // the default is not written: a release without the field refuses it (strict decoding)
    expect(plugins('StaticFirst').every(([, o]) => o === undefined)).toBe(true);
  });

  it('the lockout report follows the order: the first webhook a critical request meets, static or not, is found first', async () => {
    const all = { rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*/*'] }] };
    const docs = [mutating('guard.static.k8s.io', hook('guard.example.com', all)), mutating('a', hook('a.example.com', all))];
    const first = (staticOrder: Parameters<typeof collectWorkspace>[3], kubernetesVersion: '1.37' | '1.38' = '1.38') =>
      lockoutReport(docs, { staticDocuments: [0], staticOrder, kubernetesVersion }).then((r) => {
        const lease = r.findings.filter((f) => f.request === 'kubelet-lease');
        return { webhooks: lease.map((f) => f.webhook), headline: r.headline };
      });
    const staticFirst = await first('StaticFirst');
    expect(staticFirst.webhooks).toEqual(['guard.example.com', 'a.example.com']);
    expect(staticFirst.headline).toMatch(/while 'guard\.example\.com', 'a\.example\.com' are down/);
    const staticLast = await first('StaticLast');
    expect(staticLast.webhooks).toEqual(['a.example.com', 'guard.example.com']);
    expect(staticLast.headline).toMatch(/while 'a\.example\.com', 'guard\.example\.com' are down/);
    // ByName: 'a' sorts before 'guard.static.k8s.io'; 1.37 has no staticOrder: static first whatever the setting
    expect((await first('ByName')).webhooks).toEqual(['a.example.com', 'guard.example.com']);
    expect((await first('StaticLast', '1.37')).webhooks).toEqual(['guard.example.com', 'a.example.com']);
  });
});
