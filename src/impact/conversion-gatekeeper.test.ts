/**
 * The third proof of a Gatekeeper conversion: the log a real kube-apiserver wrote while Gatekeeper
 * v3.23's own webhook decided (tools/admission-oracle/testdata/gatekeeper-audit, TestGatekeeperAuditLog),
 * replayed with the converted policies (as Gatekeeper generates them, and standalone) in place of
 * Gatekeeper's webhook configuration. Every event the native chain decides otherwise than the
 * cluster answered is a difference; each is listed below with why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { Obj } from '../base/json';
import { parseDocuments } from '../yaml';
import { convertPolicies, type ConvertOptions } from '../migrate';
import { replayConversion, ruleKey } from './index';

useEngine();

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/gatekeeper-audit');
const sources = parseDocuments(readFileSync(join(dir, 'policies.yaml'), 'utf8'))
  .documents.map((d) => d.object as Obj)
  .filter(Boolean);
const log = readFileSync(join(dir, 'audit.log'), 'utf8');
const snapshotBefore = (JSON.parse(readFileSync(join(dir, 'snapshot-before.json'), 'utf8')) as { items: unknown[] }).items;
const writes = log.split('\n').filter((l) => l && !/"verb":"(get|list)"/.test(l)).length;

async function replay(gatekeeper: ConvertOptions['gatekeeper']) {
  const conversion = convertPolicies(sources, { kubernetesVersion: '1.37', gatekeeper });
  const proof = await replayConversion({ conversion, audit: log, cluster: snapshotBefore, sources, options: { kubernetesVersion: '1.37' } });
  return {
    statuses: conversion.rules.map((r) => `${r.status} ${r.source.kind}/${ruleKey(r.source)}`),
    events: proof.events,
    differences: proof.differences.map(
      (d) =>
        `line ${d.line} ${d.request.operation} ${d.request.resource} ${d.request.namespace ?? ''}/${d.request.name}: live ${d.live.code}, native ${d.native.allowed ? 'allowed' : d.nativeRules.join(',')}`,
    ),
    rules: proof.rules
      .filter((r) => r.source.kind !== 'ConstraintTemplate')
      .map((r) => `${r.key}: ${r.agreeing} agree, ${r.differing.length} differ (source ${r.deniedBySource}, native ${r.deniedNatively})`),
  };
}

describe('a Gatekeeper conversion on the traffic Gatekeeper decided', () => {
  it('as-gatekeeper: every write replayed; the constraints decide as Gatekeeper did except where Gatekeeper was not asked', { timeout: 60_000 }, async () => {
    const r = await replay('as-gatekeeper');
    expect(r.events).toBe(writes);
    expect(r.statuses).toEqual(AS_GATEKEEPER_STATUSES);
    expect(r.differences).toEqual(EXPECTED_DIFFERENCES_AS_GATEKEEPER);
    expect(r.rules).toEqual(RULES);
  });

  it('standalone: the same verdicts with no Gatekeeper left', { timeout: 60_000 }, async () => {
    const r = await replay('standalone');
    expect(r.events).toBe(writes);
    expect(r.statuses.every((x) => x.startsWith('different '))).toBe(true);
    expect(r.differences).toEqual(EXPECTED_DIFFERENCES_AS_GATEKEEPER);
    expect(r.rules).toEqual(RULES);
  });
});

const AS_GATEKEEPER_STATUSES: string[] = [
  'exact ConstraintTemplate/k8srequiredlabels',
  'exact K8sRequiredLabels/ns-must-have-owner',
  'exact K8sRequiredLabels/cm-must-have-team',
  'exact ConstraintTemplate/k8spspprivilegedcontainer',
  'exact K8sPSPPrivilegedContainer/no-privileged',
  'exact ConstraintTemplate/k8spsphostnamespace',
  'exact K8sPSPHostNamespace/warn-host-namespace',
  'exact ConstraintTemplate/k8spspreadonlyrootfilesystem',
  'exact K8sPSPReadOnlyRootFilesystem/audit-readonly-root',
];

/**
 * The one difference, a real one, in both modes. Line 33: Gatekeeper's webhook configuration leaves
 * the Namespace gatekeeper-system out (its namespaceSelector, not the constraint), so Gatekeeper was
 * never asked and the Namespace without an `owner` label was admitted; the converted
 * ns-must-have-owner has no such exclusion and denies it. A cluster's Gatekeeper installation
 * (its webhook's namespaceSelector, its Config's excluded namespaces) is not carried over.
 */
const EXPECTED_DIFFERENCES_AS_GATEKEEPER: string[] = ['line 33 CREATE namespaces /gatekeeper-system: live 201, native k8srequiredlabels,ns-must-have-owner'];

/**
 * Each constraint on the 31 writes (the log's 34 events less its 3 reads). warn-host-namespace (warn)
 * and audit-readonly-root (dryrun) deny nothing on either side: their violations are a warning and
 * nothing at admission.
 */
const RULES: string[] = [
  'ns-must-have-owner: 30 agree, 1 differ (source 2, native 3)',
  'cm-must-have-team: 31 agree, 0 differ (source 6, native 6)',
  'no-privileged: 31 agree, 0 differ (source 2, native 2)',
  'warn-host-namespace: 31 agree, 0 differ (source 0, native 0)',
  'audit-readonly-root: 31 agree, 0 differ (source 0, native 0)',
];
