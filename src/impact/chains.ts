/**
 * The chains the replay decides with, and how the log changes them. The baseline is the
 * cluster's admission objects; the candidate the workspace's over them (or alone); both read
 * params (objects of a policy's paramKind that a binding's paramRef may select) and
 * CustomResourceDefinitions (discovery). The log may change any of these: an admin patches a
 * param, creates or updates a policy or a webhook configuration, a CRD. `chainTracker` follows
 * them in log order on the thread that reads the log, and says when the chains change; the new
 * chains reach the replay (and every shard) with the next line (`LogLine.chain`), so a request is
 * decided with the chains as they were when it came. Namespaces are followed by the replay itself
 * (each request reads its own).
 *
 * When the snapshot was taken: each snapshot object is taken to exist from its creationTimestamp
 * (an object the log creates is not there before its create); where the log shows that the
 * snapshot holds a later version than a write found (resourceVersions), that is said. The
 * workspace's objects (the candidate's params) are taken as installed before the first line.
 */
import { isObject, kindOf, labelsOf, nameOf, namespaceOf, obj, str } from '../base/json';
import { noteSplice } from '../base/splice';
import type { StaticOrder } from '../k8s/static-manifests';
import type { KubernetesVersion } from '../base/releases';
import type { WebhookResponse } from '../admission';
import { BINDING_KIND_OF } from '../k8s/resources';
import { matchLabelSelector, paramKinds, paramReader } from '../policy';
import { readAuditLine } from './audit';
import { createdAt, isAdmissionObject, objectKey, snapshotAgainst, type ObjectState, type SnapshotTime } from './cluster';
import type { ChainSpec } from './decide';
import { specDiscovery, type LogLine } from './events';
import { eventTarget, replayRequest } from './replay';
import { headOf } from './retain';
import { withheldObjects } from './withheld';

export const chainKey = (o: unknown): string => `${kindOf(o)}/${nameOf(o)}`;

/** The candidate chain: overlay (the cluster's, same-named objects replaced) or replace. */
export function candidateChain(clusterChain: readonly unknown[], workspace: readonly unknown[], mode: 'overlay' | 'replace' = 'overlay'): unknown[] {
  const mine = workspace.filter(isAdmissionObject);
  if (mode === 'replace') return mine;
  const replaced = new Set(mine.map(chainKey));
  return [...clusterChain.filter((o) => !replaced.has(chainKey(o))), ...mine];
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

export interface Chain {
  objects: unknown[];
  /** timeoutSeconds per webhook name. */
  timeouts: Map<string, number>;
}

/** Whether a chain of `admission` objects reads an object besides them: a param its paramRefs may find (paramReader), a CustomResourceDefinition. */
const readBy = (admission: readonly unknown[]) => {
  const param = paramReader(admission);
  return (o: unknown) => param(o) || obj(o).kind === 'CustomResourceDefinition';
};

/** A chain: its admission objects, the params its paramRefs may find and the CustomResourceDefinitions among `others`. */
export function chainOf(admission: readonly unknown[], others: readonly unknown[]): Chain {
  const params = others.filter(readBy(admission));
  const timeouts = new Map<string, number>();
  for (const c of admission)
    for (const w of Array.isArray(obj(c).webhooks) ? (obj(c).webhooks as unknown[]) : []) {
      const t = obj(w).timeoutSeconds;
      timeouts.set(str(obj(w).name), typeof t === 'number' ? t : 10);
    }
  return { objects: [...admission, ...params], timeouts };
}

/** What the chains are made of besides the cluster's objects. */
export interface ChainInputs {
  /** The candidate's documents. */
  workspace: readonly unknown[];
  candidate?: 'overlay' | 'replace';
  kubernetesVersion: KubernetesVersion;
  webhooks?: Record<string, WebhookResponse>;
  /** The workspace's documents loaded from static manifests. */
  statics: ReadonlySet<unknown>;
  /** Where the candidate's static mutating webhooks run (SimOptions.staticOrder). */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults. */
  featureGates?: readonly string[];
}

/** The options' chain settings (ImpactOptions' candidate, webhooks, staticOrder, featureGates) as ChainInputs take them. */
export const chainSettingsOf = (
  o: Pick<ChainInputs, 'candidate' | 'webhooks' | 'staticOrder' | 'featureGates'>,
): Pick<ChainInputs, 'candidate' | 'webhooks' | 'staticOrder' | 'featureGates'> => ({
  candidate: o.candidate,
  webhooks: o.webhooks,
  staticOrder: o.staticOrder,
  featureGates: o.featureGates,
});

/** Both chains from the cluster's admission objects and the other objects they may read (the cluster's, then the workspace's). */
export function chainSpec(
  inputs: ChainInputs,
  clusterChain: readonly unknown[],
  others: readonly unknown[],
): { spec: ChainSpec; timeouts: Map<string, number>; webhooks: string[] } {
  const baseline = chainOf(clusterChain, others);
  const candidate = chainOf(candidateChain(clusterChain, inputs.workspace, inputs.candidate), others);
  const staticDocuments = candidate.objects.flatMap((o, i) => (inputs.statics.has(o) ? [i] : []));
  return {
    spec: {
      baseline: baseline.objects,
      candidate: candidate.objects,
      kubernetesVersion: inputs.kubernetesVersion,
      ...(inputs.webhooks ? { webhooks: inputs.webhooks } : {}),
      ...(staticDocuments.length ? { staticDocuments } : {}),
      ...(inputs.staticOrder ? { staticOrder: inputs.staticOrder } : {}),
      ...(inputs.featureGates?.length ? { featureGates: inputs.featureGates } : {}),
    },
    timeouts: candidate.timeouts,
    webhooks: [...baseline.timeouts.keys(), ...candidate.timeouts.keys()],
  };
}

/** Objects of a paramKind a binding's paramRef may select (any namespace when it names none). */
interface ParamTarget {
  group: string;
  /** The paramKind's version (the resource's name is looked up with it). */
  version: string;
  kind: string;
  namespace?: string;
  name?: string;
  selector?: unknown;
}

function paramTargets(admission: readonly unknown[]): ParamTarget[] {
  const kinds = new Map<string, unknown>();
  for (const o of admission) if (kindOf(o) in BINDING_KIND_OF && isObject(obj(obj(o).spec).paramKind)) kinds.set(chainKey(o), obj(obj(o).spec).paramKind);
  const out: ParamTarget[] = [];
  for (const o of admission) {
    const policyKind = Object.entries(BINDING_KIND_OF).find(([, b]) => b === kindOf(o))?.[0];
    const spec = obj(obj(o).spec);
    const pk = obj(kinds.get(`${policyKind}/${str(spec.policyName)}`));
    if (!policyKind || !str(pk.kind) || !isObject(spec.paramRef)) continue;
    const ref = spec.paramRef;
    const apiVersion = str(pk.apiVersion);
    out.push({
      group: groupOf(apiVersion),
      version: apiVersion.slice(apiVersion.indexOf('/') + 1),
      kind: str(pk.kind),
      ...(str(ref.namespace) ? { namespace: str(ref.namespace) } : {}),
      ...(str(ref.name) ? { name: str(ref.name) } : {}),
      ...(ref.selector !== undefined && ref.selector !== null ? { selector: ref.selector } : {}),
    });
  }
  return out;
}

const selects = (t: ParamTarget, o: unknown): boolean =>
  isObject(o) &&
  groupOf(str(o.apiVersion)) === t.group &&
  o.kind === t.kind &&
  (!t.namespace || namespaceOf(o) === t.namespace) &&
  (!t.name || nameOf(o) === t.name) &&
  (t.selector === undefined ||
    (() => {
      const m = matchLabelSelector(t.selector, labelsOf(o));
      return !m.ok || m.matches;
    })());

const ADMISSION_RESOURCES = new Set([
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
]);
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const REF = '"objectRef":{"resource":"';

const describeObject = (o: unknown, key: string): string => {
  const [, kind, namespace, name] = key.split('/');
  return isObject(o) ? `${kindOf(o)} ${namespaceOf(o) ? `${namespaceOf(o)}/` : ''}${nameOf(o)}` : `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
};

/** When the snapshot was taken, as the log shows it: the first line of each answer, with what it is about. */
export type SnapshotEvidence = Partial<Record<Exclude<SnapshotTime, 'unknown'>, { line: number; what: string }>>;

export interface ChainTracker {
  /** The chains as the snapshot holds them (every snapshot object there): before the first line, and for the existing objects. */
  readonly now: ChainSpec;
  /** timeoutSeconds per candidate webhook, of every chain so far. */
  readonly timeouts: Map<string, number>;
  /** The webhooks of either chain, of every chain so far (what webhook answers may name). */
  readonly webhooks: ReadonlySet<string>;
  /** A line, in log order: the chains from this line on when they differ from the last ones. */
  line(l: LogLine): ChainSpec | undefined;
  /** What the log showed about the chains' objects (for the report's notes). */
  notes(): string[];
  readonly evidence: SnapshotEvidence;
}

/**
 * An object state that notes which entries were replaced in place (a param written), which were
 * added under a key it never held (they iterate last), and whether any other change was made (removed, emptied, set again).
 */
class RecordedState extends Map<string, { object: unknown; source: 'log' | 'snapshot' | 'workspace' } | null> {
  constructor(private readonly changes: { replaced: Set<string>; added: Set<string>; whole: boolean }) {
    super();
  }
  override set(key: string, value: { object: unknown; source: 'log' | 'snapshot' | 'workspace' } | null): this {
    if (value && this.get(key)) this.changes.replaced.add(key);
    else if (value && !this.has(key)) this.changes.added.add(key);
    else this.changes.whole = true;
    return super.set(key, value);
  }
  override delete(key: string): boolean {
    this.changes.whole = true;
    return super.delete(key);
  }
}

/** `requestReceivedTimestamp` of a line, read from its end (the apiserver writes it after the objects); NaN when there is none. */
function lineTime(text: string): number {
  const at = text.lastIndexOf('"requestReceivedTimestamp":"');
  return at < 0 ? Number.NaN : Date.parse(text.slice(at + 28, text.indexOf('"', at + 28)));
}

/** See the module comment. `clusterChain`, `clusterOthers`: the snapshot's admission objects and the others. */
export function chainTracker(inputs: ChainInputs, clusterChain: readonly unknown[], clusterOthers: readonly unknown[]): ChainTracker {
  const workspaceOthers = inputs.workspace.filter((o) => isObject(o) && !isAdmissionObject(o));
  // overlay: a workspace object (a param) replaces the snapshot's of the same key, as in the log's state below and in Simulate
  const mine = new Set(workspaceOthers.filter(nameOf).map(objectKey));
  const now = chainSpec(inputs, clusterChain, [...clusterOthers.filter((o) => !mine.has(objectKey(o))), ...workspaceOthers]);
  const timeouts = new Map(now.timeouts);
  const webhooks = new Set(now.webhooks);
  const evidence: SnapshotEvidence = {};
  const notes: string[] = [];
  /** What changed in the state since the chains were last built: entries replaced in place, entries added under new keys, or more (`whole`: an entry removed …). */
  const changes = { replaced: new Set<string>(), added: new Set<string>(), whole: true };
  /** The chains' objects as the log left them so far: the cluster's (from the snapshot, then the log's) and the workspace's params. */
  const state: ObjectState = new RecordedState(changes);
  /** Snapshot objects not there yet: created in the second of the first line or after it (until their second is over, or the log writes them). */
  const withheld = withheldObjects();
  const withhold = (key: string, o: unknown, created: number) => withheld.hold(key, o, created + 1000);
  let kinds = new Set<string>();
  let targets: ParamTarget[] = [];
  const admissionNow = () => [...state.values()].flatMap((e) => (e && isAdmissionObject(e.object) ? [e.object] : []));
  const relevantKinds = () => {
    const all = [...admissionNow(), ...inputs.workspace.filter(isAdmissionObject)];
    kinds = paramKinds(all);
    targets = paramTargets(all);
  };
  const tracked = (o: unknown) =>
    isAdmissionObject(o) || kindOf(o) === 'CustomResourceDefinition' || kinds.has(`${str(obj(o).apiVersion)}/${str(obj(o).kind)}`);
  /**
   * Adds the objects of kinds the chains read now that the tracker does not hold: the
   * workspace's (installed before the first line), then the snapshot's (from their creation on).
   */
  const admit = (t: number) => {
    for (const o of workspaceOthers)
      if (tracked(o) && nameOf(o) && !state.has(objectKey(o))) {
        state.set(objectKey(o), { object: o, source: 'workspace' });
      }
    for (const o of [...clusterChain, ...clusterOthers]) {
      if (!tracked(o) || !nameOf(o)) continue;
      const key = objectKey(o);
      if (state.has(key) || withheld.has(key)) continue;
      const created = createdAt(o);
      if (Number.isFinite(t) && Number.isFinite(created) && created + 1000 > t) withhold(key, o, created);
      else state.set(key, { object: o, source: 'snapshot' });
    }
  };
  for (const o of clusterChain) if (nameOf(o)) state.set(objectKey(o), { object: o, source: 'snapshot' });
  relevantKinds();
  let started = false;
  let spec = now.spec;
  let discovery = specDiscovery(spec);
  /** The resources whose writes may change the chains (the admission kinds, CustomResourceDefinitions, the params' kinds, as discovery names them). */
  let watched = new Set<string>();
  const watch = () => {
    watched = new Set([...ADMISSION_RESOURCES, 'customresourcedefinitions']);
    for (const t of targets) {
      const info = discovery.resourceFor({ group: t.group, version: t.version, kind: t.kind });
      if (info) watched.add(info.resource);
    }
  };
  watch();
  /** The chains changed with the last line: the next line brings them. */
  let dirty = false;

  /**
   * Where each object other than an admission object stands in the last chains built whole (by
   * its state key): a log that writes a param in place changes that place only (inPlace).
   */
  let placed:
    | { object: Map<string, unknown>; at: [Map<string, number>, Map<string, number>]; reads: [(o: unknown) => boolean, (o: unknown) => boolean] }
    | undefined;

  /** The chains from the tracker's state, when they differ (by object) from the last ones. */
  const rebuild = (): ChainSpec | undefined => {
    const quick = !changes.whole && placed ? inPlace(placed) : undefined;
    const whole = !quick;
    changes.whole = false;
    changes.replaced.clear();
    changes.added.clear();
    let next: { spec: ChainSpec; timeouts: Map<string, number>; webhooks: string[] };
    if (quick) next = { spec: quick, timeouts: new Map(), webhooks: [] };
    else {
      const admission: unknown[] = [];
      const others: unknown[] = [];
      const keys: string[] = [];
      for (const [key, e] of state)
        if (e && isAdmissionObject(e.object)) admission.push(e.object);
        else if (e) others.push(e.object), keys.push(key);
      next = chainSpec(inputs, admission, others);
      const reads = [readBy(admission), readBy(candidateChain(admission, inputs.workspace, inputs.candidate))] as const;
      const at = [next.spec.baseline.length, next.spec.candidate.length].map((length, c) => {
        const m = new Map<string, number>();
        let i = length - others.filter(reads[c]!).length;
        others.forEach((o, j) => reads[c]!(o) && m.set(keys[j]!, i++));
        return m;
      });
      placed = { object: new Map(keys.map((k, j) => [k, others[j]])), at: [at[0]!, at[1]!], reads: [reads[0], reads[1]] };
    }
    const same = (a: unknown[], b: unknown[]) => a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
    // (inPlace copies an array only to change it)
    if (
      quick
        ? quick.baseline === spec.baseline && quick.candidate === spec.candidate
        : same(next.spec.baseline, spec.baseline) && same(next.spec.candidate, spec.candidate)
    )
      return undefined;
    for (const [w, t] of next.timeouts) timeouts.set(w, t);
    for (const w of next.webhooks) webhooks.add(w);
    spec = next.spec;
    if (whole) {
      discovery = specDiscovery(spec);
      watch();
    }
    return spec;
  };

  /**
   * The chains when the state changed only by params written in place or added under new keys (no
   * admission object, CustomResourceDefinition or static document among them, each still read by
   * the same chains): the last chains with those places changed, the new params last (where a
   * whole build puts them: a new key iterates last). Undefined: build them whole. A log that
   * creates a param per namespace built the chains whole each time, a pass over every object.
   */
  function inPlace(p: NonNullable<typeof placed>): ChainSpec | undefined {
    const arrays: [unknown[], unknown[]] = [spec.baseline, spec.candidate];
    const copied = [false, false];
    /** The first and last index changed in each (noted on the new arrays: base/splice.ts). */
    const first = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    const last = [-1, -1];
    const plain = (o: unknown) => !isAdmissionObject(o) && kindOf(o) !== 'CustomResourceDefinition' && !inputs.statics.has(o);
    for (const key of changes.added) {
      const now = state.get(key)?.object;
      if (now === undefined || p.object.has(key) || !plain(now)) return undefined;
      for (const c of [0, 1] as const) {
        if (!p.reads[c](now)) continue;
        if (!copied[c]) arrays[c] = arrays[c].slice();
        copied[c] = true;
        p.at[c].set(key, arrays[c].length);
        first[c] = Math.min(first[c]!, arrays[c].length);
        last[c] = arrays[c].length;
        arrays[c].push(now);
      }
      p.object.set(key, now);
    }
    for (const key of changes.replaced) {
      const before = p.object.get(key);
      const now = state.get(key)?.object;
      if (before === now) continue;
      if (before === undefined || now === undefined) return undefined;
      if (!plain(before) || !plain(now)) return undefined;
      for (const c of [0, 1] as const) {
        const at = p.at[c].get(key);
        if ((at !== undefined) !== p.reads[c](now)) return undefined;
        if (at === undefined) continue;
        if (!copied[c]) arrays[c] = arrays[c].slice();
        copied[c] = true;
        arrays[c][at] = now;
        first[c] = Math.min(first[c]!, at);
        last[c] = Math.max(last[c]!, at);
      }
      p.object.set(key, now);
    }
    for (const c of [0, 1] as const) if (copied[c]) noteSplice(arrays[c], c ? spec.candidate : spec.baseline, first[c]!, arrays[c].length - 1 - last[c]!);
    return { ...spec, baseline: arrays[0], candidate: arrays[1] };
  }

  const relevant = (ref: Record<string, unknown>, verb: string): boolean => {
    if (!WRITE_VERBS.has(verb)) return false;
    const group = str(ref.apiGroup);
    const resource = str(ref.resource);
    if (group === 'admissionregistration.k8s.io' && ADMISSION_RESOURCES.has(resource)) return true;
    if (group === 'apiextensions.k8s.io' && resource === 'customresourcedefinitions') return true;
    return targets.some((t) => {
      const info = discovery.resourceFor({ group: t.group, version: str(ref.apiVersion), kind: t.kind });
      return (
        info?.resource === resource &&
        info.group === group &&
        (!t.namespace || t.namespace === str(ref.namespace)) &&
        (!t.name || !str(ref.name) || t.name === str(ref.name))
      );
    });
  };

  return {
    now: now.spec,
    timeouts,
    webhooks,
    evidence,
    notes: () => notes,
    line(l) {
      if (l.error !== undefined || l.tooLong || !l.text) return undefined;
      let changed = dirty;
      dirty = false;
      if (!started) {
        // (a log without timestamps: every snapshot object is there from the start)
        const t = lineTime(l.text);
        started = true;
        // the snapshot's objects from their creation on (the cluster's chain is there already)
        for (const [key, e] of [...state]) {
          const created = e ? createdAt(e.object) : Number.NaN;
          if (e && Number.isFinite(created) && created + 1000 > t) {
            state.delete(key);
            withhold(key, e.object, created);
          }
        }
        admit(t);
        watch();
        changed = true;
      } else if (withheld.size) {
        for (const [key, o] of withheld.due(lineTime(l.text))) {
          state.set(key, { object: o, source: 'snapshot' });
          changed = true;
        }
      }
      // the chains this line is decided with (what the lines before it changed), then its own write
      const next = changed ? rebuild() : undefined;
      if (mayWatch(l.text)) {
        const head = headOf(l, true);
        if (head && relevant(head.ref, head.verb)) dirty = follow(l);
      }
      return next;
    },
  };

  /** Whether a line may be about a watched resource: the objectRef's resource read where the apiserver writes it (first), else the line is read. */
  function mayWatch(text: string): boolean {
    const at = text.indexOf(REF);
    if (at < 0) return text.includes('"objectRef"');
    return watched.has(text.slice(at + REF.length, text.indexOf('"', at + REF.length)));
  }

  /** A write of an object the chains read, applied to the state in log order; whether the chains may have changed. */
  function follow(l: LogLine): boolean {
    const read = readAuditLine(l.text, l.line, l.terminated);
    if (!read) return false;
    if (read.kind === 'skip') {
      if (read.reason === 'metadata-level' || read.reason === 'deletecollection')
        notes.push(
          `line ${l.line} changes an object the chains read in a way the log does not show (${read.reason}): the replay goes on with the version before it`,
        );
      return false;
    }
    const ev = read.event;
    const { key, stored } = eventTarget(ev, discovery);
    const target = ev.operation === 'CREATE' ? stored : key;
    const prior = state.get(target);
    const what = describeObject(prior?.object ?? ev.responseObject ?? ev.requestObject, target);
    if (withheld.has(target) && ev.status.code < 300 && !ev.dryRun) {
      // the log writes an object the snapshot holds as created later: from here on the log's state
      withheld.delete(target);
      if (ev.operation === 'CREATE') evidence.after ??= { line: ev.line, what };
    } else if (prior?.source === 'snapshot' && ev.operation !== 'CREATE') {
      const when = snapshotAgainst(prior.object, ev);
      if (when.time !== 'unknown') evidence[when.time] ??= { line: ev.line, what };
      if (when.later)
        notes.push(`the snapshot holds ${what} as line ${ev.line} or a later one left it (${when.later}): before line ${ev.line} the replay used that version`);
    } else if (!prior && ev.operation !== 'CREATE' && ev.status.code < 300 && !ev.dryRun)
      notes.push(`line ${ev.line} changes ${what}, which neither the snapshot nor the workspace holds: before it the replay did not know it`);
    replayRequest(ev, state, discovery);
    if (state.get(target) === prior) return false;
    if (isAdmissionObject(state.get(target)?.object ?? prior?.object)) {
      const before = kinds;
      relevantKinds();
      if ([...kinds].some((k) => !before.has(k))) admit(ev.time);
      watch();
      return true;
    }
    return (
      kindOf(state.get(target)?.object ?? prior?.object) === 'CustomResourceDefinition' ||
      targets.some((t) => selects(t, prior?.object) || selects(t, state.get(target)?.object))
    );
  }
}
