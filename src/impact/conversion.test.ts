/**
 * The third proof of a Kyverno conversion: the log a real kube-apiserver wrote while Kyverno v1.19's
 * own webhook decided (tools/admission-oracle/testdata/kyverno-audit, TestKyvernoAuditLog), replayed
 * with the converted policies in place of Kyverno's webhook configuration. Every event the native
 * chain decides otherwise than the cluster answered is a difference; the rules called exact must
 * have none but those explained below.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { Obj } from '../base/json';
import { parseDocuments } from '../yaml';
import { convertPolicies } from '../migrate';
import { replayConversion, ruleKey, sourceDenial } from './index';

useEngine();

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/kyverno-audit');
const policies = parseDocuments(readFileSync(join(dir, 'policies.yaml'), 'utf8')).documents.map((d) => d.object as Obj);
const log = readFileSync(join(dir, 'audit.log'), 'utf8');
const snapshotBefore = (JSON.parse(readFileSync(join(dir, 'snapshot-before.json'), 'utf8')) as { items: unknown[] }).items;

describe('Kyverno denials in an audit log', () => {
  it('names the policies and rules of a Kyverno webhook denial, and nothing for other webhooks', () => {
    const message =
      'admission webhook "validate.kyverno.svc-fail" denied the request: \n\nresource ConfigMap/shop/x was blocked due to the following policies \n\nno-debug-mode:\n  deny-debug: debug mode is not allowed\nrequire-team-label:\n  check-team: \'validation error: The label `team` is required. rule check-team failed at path /metadata/labels/team/\'\n';
    expect(sourceDenial(message)).toEqual({ project: 'Kyverno', rules: ['no-debug-mode/deny-debug', 'require-team-label/check-team'] });
    expect(sourceDenial('admission webhook "frozen.shop.example.com" denied the request: no')).toBeUndefined();
    expect(sourceDenial('admission webhook "validation.gatekeeper.sh" denied the request: [must-have-owner] you must provide labels: {"owner"}')).toEqual({
      project: 'Gatekeeper',
      rules: ['must-have-owner'],
    });
  });
});

describe('a Kyverno conversion on the traffic Kyverno decided', () => {
  it('replays every write; the exact rules decide as Kyverno did except where Kyverno was not asked', { timeout: 60_000 }, async () => {
    const conversion = convertPolicies(policies, { kubernetesVersion: '1.37', gatekeeper: 'as-gatekeeper' });
    expect(conversion.rules.map((r) => `${r.status} ${ruleKey(r.source)}`)).toEqual([
      'exact require-team-label/check-team',
      'exact disallow-latest-tag/validate-image-tag',
      'exact limit-replicas/max-five',
      'exact no-debug-mode/deny-debug',
    ]);
    const proof = await replayConversion({ conversion, audit: log, cluster: snapshotBefore, options: { kubernetesVersion: '1.37' } });
    const writes = log.split('\n').filter((l) => l && !/"verb":"(get|list)"/.test(l)).length;
    expect(proof.events).toBe(writes);
    // Kyverno denied these, as the traffic expects (kyverno_test.go): each rule is seen denying
    for (const r of proof.rules) expect(r.deniedBySource, r.key).toBeGreaterThan(0);
    const differences = proof.differences.map(
      (d) =>
        `line ${d.line} ${d.request.operation} ${d.request.resource} ${d.request.namespace}/${d.request.name}: live ${d.live.code}, native ${d.native.allowed ? 'allowed' : d.nativeRules.join(',')}`,
    );
    expect(differences).toEqual(EXPECTED_DIFFERENCES);
    for (const r of proof.rules) expect(r.agreeing + r.differing.length).toBe(proof.events);
    expect(
      proof.rules.map((r) => `${r.key}: ${r.agreeing} agree, ${r.differing.length} differ (source ${r.deniedBySource}, native ${r.deniedNatively})`),
    ).toEqual(RULES);
  });
});

/**
 * The differences the replay finds, each a real one. Line 40: Kyverno's webhook configuration
 * leaves the Namespace kyverno out (the namespaceSelector of Kyverno's own configuration, not of
 * the policy), so Kyverno was never asked and the ConfigMap with `mode: debug` was admitted; the
 * converted no-debug-mode has no such exclusion and denies it. The conversion is exact to the
 * policy; a cluster's Kyverno configuration (webhook namespaceSelector, resourceFilters) is not
 * carried over.
 */
/** Each rule on the 37 writes (the log's 40 events less its 3 reads); one request may be denied by two rules. */
const RULES: string[] = [
  'require-team-label/check-team: 37 agree, 0 differ (source 5, native 5)',
  'disallow-latest-tag/validate-image-tag: 37 agree, 0 differ (source 3, native 3)',
  'limit-replicas/max-five: 37 agree, 0 differ (source 2, native 2)',
  'no-debug-mode/deny-debug: 36 agree, 1 differ (source 5, native 6)',
];
const EXPECTED_DIFFERENCES: string[] = ['line 40 CREATE configmaps kyverno/debug: live 201, native no-debug-mode/deny-debug'];
