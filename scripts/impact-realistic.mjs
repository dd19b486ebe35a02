/**
 * The realistic impact benchmark's inputs (scripts/bench-impact.mjs): a genuine kube-apiserver
 * audit log cloned to any length, a candidate that changes much of it, and snapshots.
 *
 * The log is the admission oracle's (tools/admission-oracle/testdata/audit/audit.log: 46 events
 * written by a real apiserver: creates, an update, JSON, merge and strategic merge patches and
 * deletes of ConfigMaps, Deployments and Namespaces, reads, a per-namespace param created and
 * raised, Namespaces relabelled). Copy k renames its Namespaces (`shop` → `shop-k`, …) and the
 * `default` ConfigMaps it patches and deletes (`legacy` → `legacy-k`), and makes its uids,
 * resourceVersions and times its own; the cluster-wide writes (the candidate's param
 * `policy-params/registry-allowlist` patched, the baseline policy `team-label` created and
 * patched) are kept once, in the middle copy: a log with a param and a policy changed mid-way.
 * Selectors on `kubernetes.io/metadata.name: apps` select the copies' `apps` Namespaces by a
 * label they all carry (`workbench.example.com/role: apps`).
 *
 * The candidate is the fixture's (params, a MutatingAdmissionPolicy with its binding, validating
 * webhooks) with a mutating webhook added, meant for `--candidate replace`; `webhookAnswers`
 * assumes an answer for every webhook (a deny, warnings, a patch). `snapshotBefore` is the
 * cluster before the log (what it patches and deletes without creating); `snapshotAfter(n)` n
 * objects as the cluster is after copies of the log (Namespaces, ConfigMaps, Deployments).
 */
import { readFileSync, createWriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'admission-oracle', 'testdata', 'audit');
const read = (name) => readFileSync(join(fixture, name), 'utf8');

/** The genuine log's events, parsed. */
export const FIXTURE_EVENTS = read('audit.log')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));

const NAMESPACES = ['shop', 'scratch', 'apps'];
const DEFAULT_CONFIGMAPS = ['legacy', 'old-settings'];
/** The label every copy's `apps` Namespace carries, for the selectors that named `apps`. */
const ROLE = 'workbench.example.com/role';

/** A write of the cluster-wide state (a policy, the candidate's global param): once in the log, not per copy. */
const clusterWide = (e) => e.objectRef?.namespace === 'policy-params' || (!e.objectRef?.namespace && e.objectRef?.resource !== 'namespaces');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const times = FIXTURE_EVENTS.map((e) => Date.parse(e.requestReceivedTimestamp));
/** How far apart two copies are in time: the genuine log's span, and a second. */
const SPAN_MS = Math.max(...times) - Math.min(...times) + 1000;

/** A time `ms` later, at the precision it was written with (microseconds in the events' own times). */
function later(text, ms) {
  const frac = /\.(\d+)Z$/.exec(text)?.[1];
  const t = new Date(Date.parse(text) + ms).toISOString();
  if (!frac) return t.replace(/\.\d+Z$/, 'Z');
  return `${t.slice(0, 19)}.${(t.slice(20, 23) + frac.slice(3)).padEnd(frac.length, '0').slice(0, frac.length)}Z`;
}

/** Selectors that named `apps` by `kubernetes.io/metadata.name` select by the copies' label. */
function selectRole(v) {
  if (Array.isArray(v)) return v.map(selectRole);
  if (!v || typeof v !== 'object') return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = selectRole(x);
  if (out.matchLabels?.['kubernetes.io/metadata.name'] === 'apps') {
    const { 'kubernetes.io/metadata.name': _, ...rest } = out.matchLabels;
    out.matchLabels = { ...rest, [ROLE]: 'apps' };
  }
  if (Array.isArray(out.matchExpressions))
    out.matchExpressions = out.matchExpressions.map((m) =>
      m.key === 'kubernetes.io/metadata.name' && m.values?.length === 1 && m.values[0] === 'apps' ? { ...m, key: ROLE } : m,
    );
  return out;
}

/** Copy k's name of a Namespace, or of a `default` ConfigMap (others keep theirs). */
const nsOf = (ns, k) => (NAMESPACES.includes(ns) ? `${ns}-${k}` : ns);
const cmOf = (ns, name, k) => (ns === 'default' && DEFAULT_CONFIGMAPS.includes(name) ? `${name}-${k}` : name);

/** Copy k of a value: uids, times and resourceVersions its own, names renamed. */
function copyValue(v, k, key) {
  if (typeof v === 'string') {
    if (UUID.test(v)) return `${v.slice(0, 24)}${(k + 1).toString(16).padStart(12, '0')}`;
    if (TIME.test(v)) return later(v, k * SPAN_MS);
    if (key === 'resourceVersion' && /^\d+$/.test(v)) return String(Number(v) + k * 1000);
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => copyValue(x, k));
  if (!v || typeof v !== 'object') return v;
  const out = {};
  for (const [name, x] of Object.entries(v)) out[name] = copyValue(x, k, name);
  const m = out.metadata;
  if (m && typeof m === 'object') {
    if (out.kind === 'Namespace' && NAMESPACES.includes(m.name)) {
      const original = m.name;
      m.name = nsOf(m.name, k);
      if (m.labels) m.labels = { ...m.labels, 'kubernetes.io/metadata.name': m.name, ...(original === 'apps' ? { [ROLE]: 'apps' } : {}) };
    }
    if (m.namespace) {
      m.name = cmOf(m.namespace, m.name, k);
      m.namespace = nsOf(m.namespace, k);
    }
  }
  return out;
}

/** Copy k of a genuine event. */
export function copyEvent(e, k) {
  const out = selectRole(copyValue(e, k));
  const ref = e.objectRef;
  if (ref) {
    out.objectRef = { ...out.objectRef };
    if (ref.namespace) out.objectRef.namespace = nsOf(ref.namespace, k);
    if (ref.resource === 'namespaces' && ref.name) out.objectRef.name = nsOf(ref.name, k);
    else if (ref.name) out.objectRef.name = cmOf(ref.namespace, ref.name, k);
  }
  out.requestURI = e.requestURI
    .replace(/\/namespaces\/([a-z-]+)(?=[/?]|$)/, (_, ns) => `/namespaces/${nsOf(ns, k)}`)
    .replace(/\/configmaps\/([a-z-]+)(?=[/?]|$)/, (all, name) => (e.objectRef?.namespace === 'default' ? `/configmaps/${cmOf('default', name, k)}` : all));
  return out;
}

/** How many copies make a log of `events` lines, and which one holds the cluster-wide writes. */
function plan(events) {
  const perCopy = FIXTURE_EVENTS.filter((e) => !clusterWide(e)).length;
  const copies = Math.max(1, Math.ceil(events / perCopy));
  return { copies, middle: Math.floor(copies / 2) };
}

/** The log's lines, `events` of them, in order. */
export function* realisticLines(events) {
  const { copies, middle } = plan(events);
  let n = 0;
  for (let k = 0; k < copies; k++)
    for (const e of FIXTURE_EVENTS) {
      if (n === events) return;
      if (clusterWide(e) && k !== middle) continue;
      n++;
      yield JSON.stringify(copyEvent(e, k));
    }
}

/**
 * Writes the log (gzip when `gzip`); resolves with its size before compression and its events by
 * verb (the kinds of a real log: creates, updates, patches, deletes, reads).
 */
export async function writeRealisticLog(path, events, gzip = true) {
  const file = createWriteStream(path);
  const out = gzip ? createGzip() : file;
  if (gzip) out.pipe(file);
  let bytes = 0;
  const verbs = {};
  let piece = '';
  for (const line of realisticLines(events)) {
    const verb = /"verb":"([a-z]+)"/.exec(line)[1];
    verbs[verb] = (verbs[verb] ?? 0) + 1;
    piece += `${line}\n`;
    if (piece.length > 1 << 20) {
      bytes += Buffer.byteLength(piece);
      if (!out.write(piece)) await new Promise((r) => out.once('drain', r));
      piece = '';
    }
  }
  bytes += Buffer.byteLength(piece);
  out.end(piece);
  await finished(file);
  return { bytes, verbs };
}

const candidateFile = JSON.parse(read('candidate.json'));

/** A mutating webhook of the candidate: Deployments and ConfigMaps created get an annotation (its assumed answer, a patch). */
const MUTATING_WEBHOOK = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'annotate' },
  webhooks: [
    {
      name: 'annotate.shop.example.com',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 5,
      reinvocationPolicy: 'Never',
      rules: [
        { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
      ],
      clientConfig: { url: 'https://annotate.shop.example.com/mutate' },
    },
  ],
};

/** The candidate's documents (for `--candidate replace`): the fixture's, selecting the copies' `apps`, and the mutating webhook. */
export const realisticCandidate = () => [...selectRole(candidateFile.objects), MUTATING_WEBHOOK];

/** Every webhook's assumed answer (`--webhook-answers`): the baseline's denies (as the fixture's server did), the candidate's as in the fixture, the mutating one patches. */
export const webhookAnswers = () => ({
  'frozen.shop.example.com': 'deny',
  ...candidateFile.webhooks,
  'annotate.shop.example.com': { patch: [{ op: 'add', path: '/metadata/annotations', value: { 'annotate.shop.example.com/seen': 'true' } }] },
});

const before = JSON.parse(read('snapshot-before.json')).items;
const after = JSON.parse(read('snapshot.json')).items;

/** The cluster before a log of `events` lines: the fixture's, with each copy's `default` ConfigMaps. */
export function snapshotBefore(events) {
  const { copies } = plan(events);
  const items = before.filter((o) => !(o.kind === 'ConfigMap' && o.metadata.namespace === 'default'));
  const configMaps = before.filter((o) => o.kind === 'ConfigMap' && o.metadata.namespace === 'default');
  for (let k = 0; k < copies; k++) for (const o of configMaps) items.push(copyValue(o, k));
  return { apiVersion: 'v1', kind: 'List', items };
}

/** `n` objects as the cluster is after copies of the log: its cluster-wide objects once, its Namespaces, ConfigMaps and Deployments per copy. */
export function snapshotAfter(n) {
  const once = after.filter((o) => !NAMESPACES.includes(o.metadata.namespace ?? (o.kind === 'Namespace' ? o.metadata.name : '')));
  const perCopy = after.filter((o) => !once.includes(o));
  const items = once.map((o) => selectRole(o)).slice(0, n);
  for (let k = 0; items.length < n; k++) for (const o of perCopy) if (items.length < n) items.push(selectRole(copyValue(o, k)));
  return { apiVersion: 'v1', kind: 'List', items };
}

/** CHANGES of src/impact/decide.ts that are a changed outcome (all but `unchanged` and `undetermined`). */
export const OUTCOME_CHANGES = ['newly-denied', 'no-longer-denied', 'newly-warned', 'newly-audited', 'newly-mutated'];

/** The share of decided events (or existing objects) whose outcome changed, from counts by change (a summary's `changes`). */
export function changedShare(changes) {
  const decided = Object.values(changes).reduce((a, b) => a + b, 0);
  const changed = OUTCOME_CHANGES.reduce((a, c) => a + (changes[c] ?? 0), 0);
  return { changed, decided, share: decided ? changed / decided : 0 };
}

/** The changes table of `impact`'s text report: counts by change of the writes, and of the existing objects when judged. */
export function changesTable(text) {
  const writes = {};
  const existing = {};
  for (const m of text.matchAll(/^([a-z-]+) +(\d+) +(\d+|not judged)$/gm)) {
    writes[m[1]] = Number(m[2]);
    if (m[3] !== 'not judged') existing[m[1]] = Number(m[3]);
  }
  return { writes, existing };
}
