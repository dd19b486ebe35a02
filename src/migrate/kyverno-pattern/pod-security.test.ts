/** validate.podSecurity as CEL (real CEL engine): one validation per check, versions and exclusions as Kyverno's pkg/pss applies them. */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { convertPatternRule } from './rule';
import { chainOf, vapVerdict } from './test-helpers';

useEngine();

const rule = (podSecurity: Obj): Obj => ({ name: 'pss', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: { podSecurity } });
const policy = (r: Obj): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: { validationFailureAction: 'Enforce', rules: [r] },
});
const restrictedOk = { allowPrivilegeEscalation: false, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, capabilities: { drop: ['ALL'] } };
const ctr = (securityContext: Obj = restrictedOk, image = 'nginx', name = 'c'): Obj => ({ name, image, securityContext });
const pod = (spec: Obj, metadata: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec });

async function verdicts(ps: Obj, objects: Obj[]): Promise<{ verdict: string; message?: string }[]> {
  const r = rule(ps);
  const c = convertPatternRule(policy(r), r);
  expect(c.status, c.reason).toBe('exact');
  const chain = chainOf(c.objects);
  const out = [];
  for (const o of objects) out.push(await vapVerdict(chain, o));
  return out;
}

describe('podSecurity', () => {
  it('baseline: privileged, hostPath, host namespaces, capabilities, sysctls by version', async () => {
    const v = await verdicts({ level: 'baseline', version: 'latest' }, [
      pod({ containers: [ctr({})] }),
      pod({ containers: [ctr({ privileged: true })] }),
      pod({ containers: [ctr({ privileged: false })] }),
      pod({ containers: [ctr({})], volumes: [{ name: 'v', hostPath: { path: '/' } }] }),
      pod({ containers: [ctr({})], hostPID: true }),
      pod({ containers: [ctr({ capabilities: { add: ['CHOWN'] } })] }),
      pod({ containers: [ctr({ capabilities: { add: ['SYS_ADMIN'] } })] }),
      pod({ containers: [ctr({})], securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }] } }),
    ]);
    expect(v.map((x) => x.verdict)).toEqual(['allow', 'deny', 'allow', 'deny', 'deny', 'allow', 'deny', 'allow']);
    expect(v[1].message).toContain('privileged (Privileged Containers)');
    const old = await verdicts({ level: 'baseline', version: 'v1.29' }, [
      pod({ containers: [ctr({})], securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }] } }),
    ]);
    expect(old.map((x) => x.verdict)).toEqual(['deny']);
  }, 120_000);

  it('restricted: every container must drop ALL, run as non-root, set seccomp and allowPrivilegeEscalation=false', async () => {
    const v = await verdicts({ level: 'restricted', version: 'latest' }, [
      pod({ containers: [ctr()] }),
      pod({ containers: [ctr({ ...restrictedOk, runAsNonRoot: undefined })] }),
      pod({ containers: [ctr({ ...restrictedOk, runAsNonRoot: undefined })], securityContext: { runAsNonRoot: true } }),
      pod({ containers: [ctr({ ...restrictedOk, runAsUser: 0 })] }),
      pod({ containers: [ctr({ ...restrictedOk, seccompProfile: { type: 'Unconfined' } })] }),
      pod({ containers: [ctr({ ...restrictedOk, allowPrivilegeEscalation: undefined })], os: { name: 'windows' } }),
    ]);
    // a windows Pod is past allowPrivilegeEscalation (and capabilities, seccomp) from v1.25
    expect(v.map((x) => x.verdict)).toEqual(['allow', 'deny', 'allow', 'deny', 'deny', 'allow']);
  }, 120_000);

  it('exclusions: a pod-level exclusion holds one error of a container field; an images exclusion the matching containers', async () => {
    const noSeccomp = { ...restrictedOk, seccompProfile: undefined };
    const v = await verdicts({ level: 'restricted', version: 'latest', exclude: [{ controlName: 'Seccomp' }] }, [
      pod({ containers: [ctr(noSeccomp)] }),
      pod({ containers: [ctr(noSeccomp, 'nginx', 'a'), ctr(noSeccomp, 'nginx', 'b')] }),
    ]);
    expect(v.map((x) => x.verdict)).toEqual(['allow', 'deny']);
    const caps = { ...restrictedOk, capabilities: { add: ['SYS_ADMIN'], drop: ['ALL'] } };
    const i = await verdicts({ level: 'restricted', version: 'latest', exclude: [{ controlName: 'Capabilities', images: ['redis*'] }] }, [
      pod({ containers: [ctr(caps, 'redis:7')] }),
      pod({ containers: [ctr(caps, 'nginx')] }),
      pod({ containers: [ctr(caps, 'redis:7', 'a'), ctr(caps, 'nginx', 'b')] }),
    ]);
    expect(i.map((x) => x.verdict)).toEqual(['allow', 'deny', 'deny']);
  }, 120_000);

  it('says unsupported what it does not read', () => {
    for (const ps of [
      { level: 'restricted', exclude: [{ controlName: 'Capabilities', images: ['*'], restrictedField: 'x', values: ['y'] }] },
      { level: 'restricted', version: 'v2.0' },
      { level: 'strict' },
    ]) {
      const r = rule(ps);
      expect(convertPatternRule(policy(r), r).status).toBe('unsupported');
    }
  }, 120_000);
});
