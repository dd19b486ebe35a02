/**
 * The third proof of a conversion: the cluster's real traffic. The audit log holds what the source
 * project (Kyverno, Gatekeeper) answered to each request (its webhook's denial in responseStatus);
 * the converted objects replace the cluster's chain (`candidate: 'replace'`: the source's webhook
 * configurations gone) and every event where the native chain decides otherwise than the cluster
 * answered is a difference, attributed to source rules: on the source's side by the rules its
 * denial message names, on the native side by the produced policies that deny (`RuleResult.produced`).
 */
import { isObject } from '../base/json';
import { parseDocuments } from '../yaml';
import type { Conversion, RuleResult, RuleStatus, SourceRule } from '../migrate';
import { analyzeImpact, type ImpactOptions } from './analyze';
import { paramKinds } from '../policy';
import type { Decision } from './decide';
import type { EventImpact } from './events';
import type { TextSource } from './lines';
import type { ImpactSummary } from './summary';

/** A source rule's name on both sides: `<policy>/<rule>` (Kyverno), `<constraint>` (Gatekeeper). */
export type RuleKey = string;

/** How a source project's webhook says who denied: its webhook names, and the rules its denial message names. */
interface SourceWebhook {
  project: string;
  webhook: RegExp;
  rulesOf(message: string): RuleKey[];
}

/**
 * Kyverno (pkg/webhooks/utils GetBlockedMessages): "resource Kind/ns/name was blocked due to the
 * following policies" and a YAML mapping policy → rule → message. Gatekeeper (pkg/webhook
 * policy.go): one "[constraint] message" per violation.
 */
const SOURCE_WEBHOOKS: readonly SourceWebhook[] = [
  {
    project: 'Kyverno',
    webhook: /^(validate|mutate)\.kyverno\.svc/,
    rulesOf(message) {
      const at = message.indexOf('was blocked due to the following policies');
      if (at < 0) return [];
      const yaml = message.slice(message.indexOf('\n', at) + 1);
      const doc = parseDocuments(yaml).documents[0]?.object;
      if (!isObject(doc)) return [];
      // a Pod rule's autogen rules (pkg/autogen) are named after it: autogen-<rule>, autogen-cronjob-<rule>
      const source = (rule: string) => rule.replace(/^autogen-(cronjob-)?/, '');
      return Object.entries(doc).flatMap(([policy, rules]) => (isObject(rules) ? Object.keys(rules).map((rule) => `${policy}/${source(rule)}`) : []));
    },
  },
  {
    project: 'Gatekeeper',
    webhook: /^(validation|mutation)\.gatekeeper\.sh$/,
    rulesOf: (message) => [...message.matchAll(/\[([^\]\s]+)\] /g)].map((m) => m[1]!),
  },
];

const WEBHOOK_DENIAL = /admission webhook "([^"]+)" denied the request/;

/** The source rules an event's live denial names (undefined: not denied by a source webhook). */
export function sourceDenial(message: string | undefined): { project: string; rules: RuleKey[] } | undefined {
  const webhook = WEBHOOK_DENIAL.exec(message ?? '')?.[1];
  const source = webhook === undefined ? undefined : SOURCE_WEBHOOKS.find((s) => s.webhook.test(webhook));
  return source && { project: source.project, rules: source.rulesOf(message!) };
}

/** The key a source's denial uses for a rule of the conversion: Kyverno's legacy policies name policy and rule, the others their object. */
export function ruleKey(source: SourceRule): RuleKey {
  return source.kind === 'ClusterPolicy' || source.kind === 'Policy' ? `${source.name}/${source.rule}` : source.name;
}

/** One event where the native chain decides otherwise than the cluster answered. */
export interface TrafficDifference {
  auditID: string;
  line: number;
  request: EventImpact['request'];
  live: EventImpact['live'];
  native: Decision;
  /** The source rules the live denial names, and those whose produced objects deny natively. */
  sourceRules: RuleKey[];
  nativeRules: RuleKey[];
  /** The native decision reads an old object the log does not hold (`Decision.undetermined`). */
  undetermined?: true;
}

export interface RuleTraffic {
  source: SourceRule;
  status: RuleStatus;
  key: RuleKey;
  /** Events replayed (every write the log determines); of them, the rule denied on the source's side, natively. */
  replayed: number;
  deniedBySource: number;
  deniedNatively: number;
  agreeing: number;
  /** The auditIDs of the events where one side's rule denies and the other's does not. */
  differing: string[];
}

export interface TrafficProof {
  events: number;
  agreeing: number;
  differences: TrafficDifference[];
  rules: RuleTraffic[];
  summary: ImpactSummary;
}

export interface ReplayConversionInput {
  conversion: Conversion;
  audit: TextSource;
  /** The cluster's objects (a snapshot): Namespaces and the old objects of updates and deletes. */
  cluster?: unknown[];
  /**
   * The source documents the conversion read: those the produced policies read as params stay in
   * the cluster with them (Gatekeeper's constraints, the params of its generated policies).
   */
  sources?: readonly unknown[];
  options?: Pick<ImpactOptions, 'kubernetesVersion' | 'signal' | 'onProgress'>;
}

function nativeRules(d: Decision, byObject: Map<string, RuleResult[]>): RuleKey[] {
  const denials = d.denials ?? (d.deniedBy ? [d.deniedBy] : []);
  const keys = new Set<RuleKey>();
  // the policy's rule and, through the binding that denied, the rule of that binding (a Gatekeeper constraint shares its template's policy)
  for (const x of denials)
    for (const ref of [`${x.kind}/${x.name}`, ...(x.binding ? [`${x.kind}Binding/${x.binding}`] : [])])
      for (const r of byObject.get(ref) ?? []) keys.add(ruleKey(r.source));
  return [...keys];
}

/** The conversion's objects in place of the cluster's chain, on the log; per event and per source rule, agreement with what the cluster answered. */
export async function replayConversion({ conversion, audit, cluster, sources, options }: ReplayConversionInput): Promise<TrafficProof> {
  const kinds = paramKinds(conversion.objects);
  const params = (sources ?? []).filter((o) => isObject(o) && kinds.has(`${String(o.apiVersion)}/${String(o.kind)}`));
  const report = await analyzeImpact({
    workspace: [...conversion.objects, ...params],
    audit,
    ...(cluster ? { cluster } : {}),
    options: { ...options, candidate: 'replace', existing: false, keepUnchanged: true },
  });
  const byObject = new Map<string, RuleResult[]>();
  for (const r of conversion.rules) for (const p of r.produced) byObject.set(p, [...(byObject.get(p) ?? []), r]);
  const rules: RuleTraffic[] = conversion.rules.map((r) => ({
    source: r.source,
    status: r.status,
    key: ruleKey(r.source),
    replayed: 0,
    deniedBySource: 0,
    deniedNatively: 0,
    agreeing: 0,
    differing: [],
  }));
  const differences: TrafficDifference[] = [];
  for (const e of report.events) {
    const liveAllowed = e.live.code < 400;
    const source = liveAllowed ? [] : (sourceDenial(e.live.message)?.rules ?? []);
    const native = e.candidate.allowed ? [] : nativeRules(e.candidate, byObject);
    for (const r of rules) {
      r.replayed++;
      const bySource = source.includes(r.key);
      const natively = native.includes(r.key);
      if (bySource) r.deniedBySource++;
      if (natively) r.deniedNatively++;
      if (bySource === natively) r.agreeing++;
      else r.differing.push(e.auditID);
    }
    if (liveAllowed !== e.candidate.allowed || e.candidate.undetermined)
      differences.push({
        auditID: e.auditID,
        line: e.line,
        request: e.request,
        live: e.live,
        native: e.candidate,
        sourceRules: source,
        nativeRules: native,
        ...(e.candidate.undetermined ? { undetermined: true as const } : {}),
      });
  }
  return { events: report.events.length, agreeing: report.events.length - differences.length, differences, rules, summary: report.summary };
}
