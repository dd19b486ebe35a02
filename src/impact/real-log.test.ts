/**
 * analyzeImpact on the log a real kube-apiserver wrote (tools/admission-oracle/testdata/audit),
 * against that apiserver's own decisions: the baseline must decide every event as it did, and the
 * candidate every event the log determines as it decided dry-run copies with the candidate
 * installed, in both candidate modes. README.md ("Checked against a real apiserver").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { WebhookResponse } from '../admission';
import { analyzeImpact, type Decision, type EventImpact } from './index';

useEngine();

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
const log = readFileSync(join(dir, 'audit.log'), 'utf8');
const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
/** The same cluster before the traffic (the setup's ConfigMaps in default among its objects). */
const snapshotBefore = (JSON.parse(readFileSync(join(dir, 'snapshot-before.json'), 'utf8')) as { items: unknown[] }).items;
const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };

/** The apiserver's answer to one write's dry-run copy (candidate_test.go, candidateDecision). */
interface ApiserverDecision {
  line: number;
  request: string;
  allowed: boolean;
  code?: number;
  message?: string;
  warnings: string[];
  calls: string[];
  annotations: Record<string, string>;
  /**
   * The policy/binding pairs that denied, from the validation_failure annotation (bindings with the
   * Audit action). With several the apiserver names any one: it runs policies in the order of a Go map.
   */
  denials?: string[];
}
const decided = JSON.parse(readFileSync(join(dir, 'candidate-decisions.json'), 'utf8')) as Record<'overlay' | 'replace', ApiserverDecision[]>;

/** The baseline's webhook (frozen-guard) denies, as the test's server answered it. */
const BASELINE_WEBHOOKS: Record<string, WebhookResponse> = { 'frozen.shop.example.com': 'deny' };
const VERSION = '1.37';

const sorted = (xs: readonly string[]) => [...xs].sort();
const show = (x: unknown) => JSON.stringify(x);

/** Who the apiserver's message names: `ValidatingAdmissionPolicy 'p' with binding 'b'`, `admission webhook "w"`. */
function namedIn(message: string): { kind?: string; name: string; binding?: string } | undefined {
  const policy = /(ValidatingAdmissionPolicy|MutatingAdmissionPolicy) '([^']+)' with binding '([^']+)'/.exec(message);
  if (policy) return { kind: policy[1]!, name: policy[2]!, binding: policy[3]! };
  const webhook = /admission webhook "([^"]+)"/.exec(message);
  return webhook ? { name: webhook[1]! } : undefined;
}

/** How analyzeImpact's decision differs from the apiserver's, one line each ([] = they agree). */
function disagreements(mine: Decision, theirs: ApiserverDecision): string[] {
  const out: string[] = [];
  if (mine.allowed !== theirs.allowed)
    out.push(
      `allowed: apiserver ${theirs.allowed}, analyzeImpact ${mine.allowed}${mine.deniedBy ? ` (${mine.deniedBy.message})` : ''}${theirs.message ? ` (${theirs.message})` : ''}`,
    );
  else if (!theirs.allowed) {
    const named = namedIn(theirs.message ?? '');
    const by = mine.deniedBy;
    const several = (theirs.denials?.length ?? 0) > 1;
    if (several) {
      // any one of them may be the one named: analyzeImpact names one of them and lists them all
      const listed = new Set((mine.denials ?? []).filter((d) => d.kind === 'ValidatingAdmissionPolicy').map((d) => `${d.name}/${d.binding}`));
      if (!by || !theirs.denials!.includes(`${by.name}/${by.binding}`))
        out.push(`denied by: apiserver one of ${show(theirs.denials)}, analyzeImpact ${show(by)}`);
      const missing = theirs.denials!.filter((d) => !listed.has(d));
      if (missing.length) out.push(`denials: apiserver ${show(theirs.denials)}, analyzeImpact lists ${show([...listed])}`);
      if (named && by?.name === named.name && by.message !== theirs.message)
        out.push(`message: apiserver ${show(theirs.message)}, analyzeImpact ${show(by.message)}`);
    } else {
      if (by?.message !== theirs.message) out.push(`message: apiserver ${show(theirs.message)}, analyzeImpact ${show(by?.message)}`);
      // a message that names no policy nor webhook (a webhook's matchCondition error): the message alone says who
      if (!by) out.push(`denied by: apiserver ${show(named)}, analyzeImpact ${show(by)}`);
      else if (!named) {
        if (by.message !== theirs.message) out.push(`denied by: apiserver ${show(theirs.message)}, analyzeImpact ${show(by)}`);
      } else if (named.kind ? by.kind !== named.kind || by.name !== named.name || by.binding !== named.binding : by.webhook !== named.name)
        out.push(`denied by: apiserver ${show(named)}, analyzeImpact ${show({ kind: by.kind, name: by.name, binding: by.binding, webhook: by.webhook })}`);
    }
  }
  if (show(sorted(mine.warnings)) !== show(sorted(theirs.warnings)))
    out.push(`warnings: apiserver ${show(theirs.warnings)}, analyzeImpact ${show(mine.warnings)}`);
  if (show(sorted(mine.calls)) !== show(sorted(theirs.calls))) out.push(`webhooks called: apiserver ${show(theirs.calls)}, analyzeImpact ${show(mine.calls)}`);
  if (show(sorted(mine.audited)) !== show(sorted(Object.keys(theirs.annotations))))
    out.push(`audit annotations: apiserver ${show(Object.keys(theirs.annotations))}, analyzeImpact ${show(mine.audited)}`);
  return out;
}

/** Why the log cannot determine the candidate's decision on an event (undefined: it can): the replay says so itself. */
function undeterminable(e: EventImpact): string | undefined {
  if (e.change === 'undetermined') return `undetermined: the old object is unknown and ${e.candidate.undetermined?.join(', ')} read it`;
  return undefined;
}

describe('a real apiserver audit log', () => {
  it('the baseline decides every write as the apiserver did; the candidate (the same chain) changes nothing', async () => {
    const r = await analyzeImpact({
      workspace: [],
      cluster: snapshot,
      audit: log,
      options: { kubernetesVersion: VERSION, webhooks: BASELINE_WEBHOOKS, existing: false },
    });
    const wrong = r.events
      .filter((e) => e.baseline.allowed !== e.live.code < 400)
      .map(
        (e) =>
          `line ${e.line} ${e.request.operation} ${e.request.resource} ${e.request.namespace}/${e.request.name}: live ${e.live.code} ${e.live.message ?? ''}, baseline ${e.baseline.allowed ? 'allowed' : `denied by ${e.baseline.deniedBy?.name}`}`,
      );
    expect(wrong).toEqual([]);
    expect(r.summary.baselineDisagrees).toBe(0);
    expect(r.summary.events).toBeGreaterThanOrEqual(20);
    expect(r.events.filter((e) => e.request.dryRun)).toHaveLength(2);
    // the five of the baseline the snapshot holds, and one by team-label, a policy the log creates (and patches after it)
    expect(r.events.filter((e) => !e.baseline.allowed).map((e) => e.baseline.deniedBy?.name)).toEqual([
      'frozen-guard',
      'max-three-keys',
      'max-three-keys',
      'frozen-guard',
      'max-three-keys',
      'team-label',
    ]);
    expect(r.summary.changes.unchanged).toBe(r.summary.events);
    expect(r.summary.skipped.read).toBeGreaterThan(0);
  });

  it('without the cluster chain (the workspace alone, empty) the six denials are no longer denied', async () => {
    const r = await analyzeImpact({
      workspace: [],
      cluster: snapshot,
      audit: log,
      options: { kubernetesVersion: VERSION, webhooks: BASELINE_WEBHOOKS, candidate: 'replace', existing: false },
    });
    expect(r.summary.changes['no-longer-denied']).toBe(6);
  });

  it('the chains as the log changes them: params patched, a policy created and patched, a Namespace relabelled, whenever the snapshot was taken', async () => {
    for (const [cluster, taken] of [
      [snapshot, 'after'],
      [snapshotBefore, 'before'],
    ] as const) {
      const r = await analyzeImpact({
        workspace: candidate.objects,
        cluster,
        audit: log,
        options: { kubernetesVersion: VERSION, webhooks: { ...BASELINE_WEBHOOKS, ...candidate.webhooks }, existing: false },
      });
      const apps = r.events.filter((e) => e.request.namespace === 'apps' && e.request.resource === 'deployments.apps');
      expect(apps.map((e) => `${e.request.name} ${e.candidate.allowed ? 'allowed' : e.candidate.deniedBy?.message}`)).toEqual([
        'api allowed',
        // the limit in apps is 2 (the admin creates it in the log) …
        "worker deployments.apps \"worker\" is forbidden: ValidatingAdmissionPolicy 'replica-cap' with binding 'replica-cap' denied request: at most 2 replicas in apps",
        // … then 5
        'queue allowed',
        // the allowlist loses ghcr.io
        "cache deployments.apps \"cache\" is forbidden: ValidatingAdmissionPolicy 'allowed-registries' with binding 'allowed-registries' denied request: images come from docker.io",
        'proxy allowed',
        // team-label v1 (the baseline, created in the log), then v2
        "batch deployments.apps \"batch\" is forbidden: ValidatingAdmissionPolicy 'team-label' with binding 'team-label' denied request: a team label (v1)",
        'batch allowed',
        // apps relabelled registry-policy=off: the allowlist no longer applies
        'search allowed',
        expect.stringMatching(
          /^ledger deployments\.apps "ledger" is forbidden: expression 'object\.metadata\.annotations\['tier'\] == 'gold'' resulted in error/,
        ),
        'vault allowed',
        'queue allowed',
      ]);
      expect(r.summary.baselineDisagrees).toBe(0);
      expect(r.summary.notes.find((n) => n.startsWith('the snapshot was taken'))).toMatch(new RegExp(`^the snapshot was taken ${taken} the log's line \\d+`));
      // before the traffic the snapshot holds the ConfigMaps the setup made: their update and delete are determined
      expect(r.events.filter((e) => e.change === 'undetermined').map((e) => e.line)).toEqual(taken === 'after' ? [25, 26] : []);
    }
  });

  for (const mode of ['overlay', 'replace'] as const) {
    it(`the candidate (${mode}) decides every write the log determines as the apiserver decided its dry-run copy`, async () => {
      const decisions = decided[mode];
      const r = await analyzeImpact({
        workspace: candidate.objects,
        cluster: snapshot,
        audit: log,
        options: { kubernetesVersion: VERSION, candidate: mode, webhooks: { ...BASELINE_WEBHOOKS, ...candidate.webhooks }, existing: false },
      });
      const byLine = new Map(r.events.map((e) => [e.line, e]));
      expect(decisions.map((d) => d.line)).toEqual(r.events.map((e) => e.line));
      const failures: string[] = [];
      const unknown: string[] = [];
      for (const d of decisions) {
        const e = byLine.get(d.line)!;
        const why = undeterminable(e);
        if (why) {
          unknown.push(
            `line ${d.line} ${d.request}: ${why} (apiserver: ${d.allowed ? 'allowed' : d.message}; analyzeImpact: ${e.candidate.allowed ? 'allowed' : e.candidate.deniedBy?.message})`,
          );
          continue;
        }
        const diffs = disagreements(e.candidate, d);
        if (diffs.length) failures.push([`✗ line ${d.line} ${d.request}`, ...diffs.map((x) => `    ${x}`)].join('\n'));
      }
      console.info(
        `candidate (${mode}) vs apiserver: ${decisions.length - unknown.length} determinable writes compared, ${failures.length} disagreements; not determinable:\n  ${unknown.join('\n  ')}`,
      );
      expect(failures, `${failures.length} disagreements with the apiserver:\n\n${failures.join('\n\n')}`).toEqual([]);
      // what the log cannot determine: the two writes on objects the setup made outside the log (the snapshot was taken after it)
      expect(unknown.map((u) => u.split(':')[0])).toEqual([
        'line 25 patch configmaps default/legacy by bob (application/merge-patch+json)',
        'line 26 delete configmaps default/old-settings by alice',
      ]);
      expect(r.summary.changes.undetermined).toBe(2);

      // the fixture covers what it claims: changes in both directions, by several kinds, several users
      const live = (d: ApiserverDecision) => byLine.get(d.line)!.live.code < 400;
      expect(decisions.some((d) => live(d) && !d.allowed)).toBe(true);
      expect(decisions.some((d) => !live(d) && d.allowed)).toBe(true);
      // several policies deny the same write only where the baseline still acts
      expect(decisions.filter((d) => (d.denials?.length ?? 0) > 1).length >= 2).toBe(mode === 'overlay');
      const changes = r.summary.changes;
      expect(changes['newly-denied']).toBeGreaterThanOrEqual(6);
      // thaw, and in replace team-label's denial too (the baseline it is in is gone)
      expect(changes['no-longer-denied']).toBe(mode === 'overlay' ? 2 : 3);
      expect(changes['newly-warned']).toBeGreaterThan(0);
      const deniers = new Set(
        r.events.filter((e) => e.change === 'newly-denied' && !undeterminable(e)).map((e) => `${e.candidate.deniedBy?.kind} ${e.candidate.deniedBy?.name}`),
      );
      expect([...deniers].sort()).toEqual([
        'ValidatingAdmissionPolicy allowed-registries',
        'ValidatingAdmissionPolicy max-keys',
        'ValidatingAdmissionPolicy namespaces-have-team',
        'ValidatingAdmissionPolicy protect-app-configs',
        'ValidatingAdmissionPolicy replica-cap',
        'ValidatingWebhookConfiguration deployment-guard',
        'ValidatingWebhookConfiguration strict-guard',
      ]);
      expect(new Set(r.events.map((e) => e.request.username))).toEqual(new Set(['alice', 'bob', 'carol', 'admin']));
    });
  }
});
