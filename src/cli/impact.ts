/**
 * `admission-workbench impact`: what a candidate (the workspace files) would have done to a
 * cluster's real traffic (an audit log, streamed, gzip or not) and to its running objects (a
 * `kubectl get -o yaml|json` snapshot), beside the cluster's own chain. Exit 0 nothing at or above
 * --fail-on, 1 something is, 2 usage error or unreadable input (the report's input errors
 * included: a log with no audit event, a snapshot that is none). Never throws.
 */
import {
  DEFAULT_KUBERNETES_VERSION,
  isKubernetesVersion,
  KUBERNETES_VERSIONS,
  WORKSPACE_GATES,
  type KubernetesVersion,
  type WorkspaceGate,
} from '../base/releases';
import type { StaticOrder } from '../k8s/static-manifests';
import { parseFeatureGates, parseStaticOrder } from './args';
import { celEngines, celStatus, loadCelFor } from '../cel';
import {
  analyzeImpact,
  IN_FLIGHT_PER_ENGINE,
  isAdmissionObject,
  isLocalShard,
  laterReads,
  readSnapshot,
  type LaterReads,
  type OpenShard,
  CHANGES,
  type Change,
  type ImpactReport,
} from '../impact';
import { readWebhookAnswers, type WebhookResponse } from '../request/scenario';
import { parseDocuments } from '../yaml';
import type { WorkerPool } from './impact-workers';
import { IMPACT_FORMATS, reportWriter, type ReportFormat, type Spool } from './impact-report';
import { listInputs, readInputs, type FileSystem } from './inputs';

/** What the command needs of its surroundings (the CLI's `CliIO`). */
interface ImpactIO {
  fs: FileSystem;
  stdout(text: string): void;
  stderr(text: string): void;
  isTTY?(): boolean;
  impactPool?(workers?: number): WorkerPool;
  /** `impact`'s replay shards (the built CLI on Node: one on this thread, the others worker threads; src/impact/shard.ts). */
  impactShards?(n: number): OpenShard[];
  /** The machine's cores (default 1). */
  cores?(): number;
  /** Where the JSON report's events wait for its summary (default: memory). */
  spool?(): Spool;
}

export const IMPACT_USAGE = `Usage: admission-workbench impact [options] [workspace files…]

Replays a cluster's audit log and its existing objects through the cluster's admission chain
(the baseline, from the snapshot) and through the candidate (the cluster's chain with the
workspace files' admission objects added or replacing same-named ones), and reports what
changes: newly denied, newly warned, newly audited, newly mutated, no longer denied.

Options:
  --cluster FILE|DIR           kubectl get … -A -o yaml|json output (several allowed; any size, streamed; .gz accepted)
  --audit FILE|-               kube-apiserver audit log (JSON lines, audit.k8s.io/v1; .gz read as gzip)
  --candidate overlay|replace  overlay (default): the cluster's chain plus the workspace's (same-named objects
                               replaced); replace: the workspace's alone
  --webhook NAME=ANSWER        a webhook's assumed answer: allow (default), deny, unavailable
  --webhook-answers FILE       assumed answers, YAML or JSON, as the app's Impact view reads them: webhook name →
                               allow | deny | unavailable | {patch: [JSON Patch]} | {warnings: [text]}
                               (--webhook flags win over the file)
  --user NAME                  who creates the existing objects when they are judged (default kubernetes-admin,
                               groups system:masters)
  --group GROUP                a group of --user (several allowed; system:authenticated is added, as the apiserver does)
  --all-events                 --format json: every write's event, not only the changed ones (the summary counts them all)
  --no-existing                do not judge the snapshot's existing objects
  --static                     the workspace's admission objects are a static manifest set (1.37+
                               staticManifestsDir): the candidate runs them first, as the apiserver does
  --static-order StaticFirst|StaticLast|ByName   where the candidate's static mutating webhooks run among
                               the API ones (1.38+; default StaticFirst)
  --feature-gates NAME=true,…  gates turned on in the candidate's chain (${WORKSPACE_GATES.join(', ')})
  --workers N                  worker threads that decide, one CEL engine each (0: this thread; default: this thread
                               with the native engine, else the machine's cores)
  --engines N                  native engine processes this thread's decisions go to (default the machine's cores
                               when this thread decides; ignored with worker threads and the WebAssembly engine)
  --shards N                   shards that replay the audit log, split by object: this thread and N−1 worker threads
                               with a CEL engine each (0: this thread, unsplit; default: the machine's cores less one
                               with the native engine and two or more cores, else 0)
  --kubernetes-version 1.3x    target release (${KUBERNETES_VERSIONS[0]}–${KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]}; default ${DEFAULT_KUBERNETES_VERSION})
  --format text|json|markdown|github   report format (default text)
  --fail-on newly-denied|newly-warned|any-change   exit 1 when the candidate changes this much (default newly-denied)
  -h, --help                   this help

Writes whose decision reads what neither the log nor the snapshot holds (an old object, a
Namespace's labels, the authorizer's answers but for system:masters, whom the apiserver allows
everything) are counted as undetermined, never as a change (--fail-on does not count them).

Exit status: 0 nothing at or above --fail-on, 1 something is, 2 usage error or unreadable input (a
file that cannot be read, an audit log with no audit event, a snapshot with no object or that is a log).
`;

const FAIL_ON = ['newly-denied', 'newly-warned', 'any-change'] as const;
const ANSWERS: Readonly<Record<string, WebhookResponse>> = { allow: 'allow', deny: 'deny', unavailable: 'unavailable' };

export interface ImpactArgs {
  workspace: string[];
  cluster: string[];
  audit?: string;
  candidate: 'overlay' | 'replace';
  webhooks: Record<string, WebhookResponse>;
  /** A file of assumed answers (readWebhookAnswers); `webhooks` win over it. */
  webhookAnswers?: string;
  user?: string;
  groups: string[];
  existing: boolean;
  kubernetesVersion?: KubernetesVersion;
  format: ReportFormat;
  failOn: (typeof FAIL_ON)[number];
  /** Worker threads (undefined: none with the native engine, else the machine's cores; 0: decide on the main thread). */
  workers?: number;
  /** Native engine processes of the main thread (undefined: the machine's cores). */
  engines?: number;
  /** Shards that replay the log split by object (undefined: with the native engine the machine's cores less one, else none). */
  shards?: number;
  /** The workspace's admission objects are a static manifest set (as `check --static`). */
  static?: boolean;
  /** `--format json` holds every event, not only the changed ones. */
  allEvents?: boolean;
  /** --static-order (ImpactOptions.staticOrder). */
  staticOrder?: StaticOrder;
  /** --feature-gates: the gates turned on (ImpactOptions.featureGates). */
  featureGates?: WorkspaceGate[];
}

export function parseImpactArgs(argv: readonly string[]): ImpactArgs | { help: true } | { error: string } {
  const out: ImpactArgs = {
    workspace: [],
    cluster: [],
    candidate: 'overlay',
    webhooks: {},
    groups: [],
    existing: true,
    format: 'text',
    failOn: 'newly-denied',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      out.workspace.push(arg);
      continue;
    }
    if (arg === '-h' || arg === '--help') return { help: true };
    if (arg === '--no-existing') {
      out.existing = false;
      continue;
    }
    if (arg === '--static') {
      out.static = true;
      continue;
    }
    if (arg === '--all-events') {
      out.allEvents = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (v === undefined || v === '') return { error: `${name} needs a value` };
    switch (name) {
      case '--cluster':
        out.cluster.push(v);
        break;
      case '--audit':
        out.audit = v;
        break;
      case '--candidate':
        if (v !== 'overlay' && v !== 'replace') return { error: '--candidate must be overlay or replace' };
        out.candidate = v;
        break;
      case '--webhook': {
        const at = v.lastIndexOf('=');
        const answer = ANSWERS[v.slice(at + 1)];
        if (at <= 0 || !answer) return { error: '--webhook takes NAME=allow|deny|unavailable' };
        out.webhooks[v.slice(0, at)] = answer;
        break;
      }
      case '--webhook-answers':
        out.webhookAnswers = v;
        break;
      case '--user':
        out.user = v;
        break;
      case '--group':
        out.groups.push(v);
        break;
      case '--workers':
        if (!/^\d{1,3}$/.test(v)) return { error: '--workers takes a number (0: decide on the main thread)' };
        out.workers = Number(v);
        break;
      case '--engines':
        if (!/^\d{1,3}$/.test(v) || v === '0') return { error: '--engines takes a number of engine processes (1 or more)' };
        out.engines = Number(v);
        break;
      case '--shards':
        if (!/^\d{1,3}$/.test(v)) return { error: '--shards takes a number (0: replay the log on the main thread)' };
        out.shards = Number(v);
        break;
      case '--kubernetes-version': {
        const ver = v.replace(/^v/, '');
        if (!isKubernetesVersion(ver)) return { error: `--kubernetes-version must be one of ${KUBERNETES_VERSIONS.join(', ')}` };
        out.kubernetesVersion = ver;
        break;
      }
      case '--format':
        if (!(IMPACT_FORMATS as readonly string[]).includes(v)) return { error: `--format must be one of ${IMPACT_FORMATS.join(', ')}` };
        out.format = v as ImpactArgs['format'];
        break;
      case '--static-order': {
        const order = parseStaticOrder(v);
        if (typeof order === 'object') return order;
        out.staticOrder = order;
        break;
      }
      case '--feature-gates': {
        const gates = parseFeatureGates(v);
        if (!Array.isArray(gates)) return gates;
        out.featureGates = gates;
        break;
      }
      case '--fail-on':
        if (!(FAIL_ON as readonly string[]).includes(v)) return { error: `--fail-on must be one of ${FAIL_ON.join(', ')}` };
        out.failOn = v as ImpactArgs['failOn'];
        break;
      default:
        return { error: `unknown option ${name}` };
    }
  }
  if (!out.audit && !out.cluster.length) return { error: 'nothing to replay: give --audit and/or --cluster' };
  if (out.groups.length && !out.user) return { error: '--group needs --user (the default user is kubernetes-admin in system:masters)' };
  return out;
}

/** Which changes fail the run at each --fail-on (an undetermined write is no change the log shows: it never fails the run). */
const FAILING: Readonly<Record<ImpactArgs['failOn'], readonly Change[]>> = {
  'newly-denied': ['newly-denied'],
  'newly-warned': ['newly-denied', 'newly-warned'],
  'any-change': CHANGES.filter((c) => c !== 'unchanged' && c !== 'undetermined'),
};

export const impactFails = (r: ImpactReport, failOn: ImpactArgs['failOn']): boolean =>
  FAILING[failOn].some((c) => r.summary.changes[c] + r.summary.existing.changes[c] > 0);

async function readObjects(paths: readonly string[], io: ImpactIO): Promise<{ objects: unknown[]; problems: string[] }> {
  const read = await readInputs(paths, io.fs);
  const objects: unknown[] = [];
  const problems = read.problems.map((p) => `${p.file}: ${p.message}`);
  for (const f of read.files) {
    const parsed = parseDocuments(f.text);
    for (const e of parsed.errors) problems.push(`${f.name}:${e.line}:${e.column}: ${e.message}`);
    for (const d of parsed.documents) objects.push(d.object);
  }
  return { objects, problems };
}

/**
 * The cluster snapshot's files, each streamed (`readSnapshot`: any size, gzip accepted, never the
 * whole text in memory); directories give their .yaml/.yml/.json files and their .gz.
 */
export async function readSnapshots(
  paths: readonly string[],
  io: Pick<ImpactIO, 'fs' | 'stderr'>,
  tty: boolean,
): Promise<{ objects: unknown[]; problems: string[]; skipped: string[] }> {
  const objects: unknown[] = [];
  const problems: string[] = [];
  const skipped: string[] = [];
  const stream = io.fs.readStream?.bind(io.fs);
  for (const entry of listInputs(paths, io.fs, { gzip: true })) {
    if ('message' in entry) problems.push(`${entry.file}: ${entry.message}`);
    else if (!stream) problems.push(`${entry.path}: this build cannot stream files`);
    else {
      const name = entry.path === '-' ? '<stdin>' : entry.path;
      try {
        for await (const r of readSnapshot(stream(entry.path), name)) {
          if ('object' in r) objects.push(r.object);
          else skipped.push(r.problem);
          // on a terminal, how far the reading is (a snapshot of 50,000 objects takes seconds)
          if (tty && objects.length % 5000 === 0 && 'object' in r) io.stderr(`\rreading the snapshot: ${objects.length} objects`);
        }
      } catch (e) {
        problems.push(`${name}: ${(e as Error).message}`);
      }
    }
  }
  return { objects, problems, skipped };
}

/**
 * Which CEL engine decides, and how many of it: `main` engine processes of this thread (native),
 * and `threads` + `shards` threads with an engine each (a shard on this thread is not counted: it
 * decides with this thread's engines). Said on every run: the native engine is
 * several times faster, and a run that fell back to WebAssembly says why.
 */
export function engineLine(main: number, threads: number, shards: number): string {
  const status = celStatus();
  if (status.engine === 'native') {
    const n = main + threads + shards;
    return `CEL engine: native (${n} process${n === 1 ? '' : 'es'})`;
  }
  const t = threads + shards;
  return `CEL engine: WebAssembly (${t ? `${t} worker thread${t === 1 ? '' : 's'}` : 'this thread'}; not the native engine: ${status.notNative ?? 'not loaded'})`;
}

export async function runImpact(argv: readonly string[], io: ImpactIO): Promise<number> {
  const args = parseImpactArgs(argv);
  if ('help' in args) {
    io.stdout(IMPACT_USAGE);
    return 0;
  }
  if ('error' in args) {
    io.stderr(`admission-workbench impact: ${args.error}\n\n${IMPACT_USAGE}`);
    return 2;
  }
  const failure = await loadCelFor(args.kubernetesVersion);
  if (failure) {
    io.stderr(`admission-workbench: ${failure}\n`);
    return 2;
  }
  // Where decisions run: with the native engine the CEL work is already in other processes, so
  // this thread decides and spreads its batches over one engine process per core; with the
  // WebAssembly engine (in the thread that asks) worker threads, one engine each. The engine
  // processes start now, beside the reading of the inputs (and while this process is small).
  const threads = args.workers ?? (celStatus().engine === 'native' ? 0 : undefined);
  const started = threads === 0 ? celEngines(args.engines ?? io.cores?.() ?? 1) : Promise.resolve(1);
  const workspace = await readObjects(args.workspace, io);
  const tty = io.isTTY?.() ?? false;
  const cluster = await readSnapshots(args.cluster, io, tty);
  if (tty && cluster.objects.length >= 5000) io.stderr('\n');
  // a file that cannot be read stops the run; a part of one that cannot (a broken item among
  // thousands) is skipped, said here and in the report's notes
  for (const p of cluster.skipped) io.stderr(`admission-workbench impact: ${p} (skipped)\n`);
  const problems = [...workspace.problems, ...cluster.problems];
  let audit: AsyncIterable<Uint8Array> | undefined;
  if (args.audit) {
    if (!io.fs.readStream) problems.push(`${args.audit}: this build cannot stream files`);
    else
      try {
        audit = args.audit === '-' ? io.fs.readStream('-') : (io.fs.stat(args.audit), io.fs.readStream(args.audit));
      } catch (e) {
        problems.push(`${args.audit}: ${(e as Error).message}`);
      }
  }
  let webhooks = args.webhooks;
  if (args.webhookAnswers) {
    try {
      const read = readWebhookAnswers(new TextDecoder().decode(io.fs.readFile(args.webhookAnswers)));
      problems.push(...read.problems.map((p) => `${args.webhookAnswers}: ${p}`));
      webhooks = { ...read.answers, ...args.webhooks };
    } catch (e) {
      problems.push(`${args.webhookAnswers}: ${(e as Error).message}`);
    }
  }
  for (const p of problems) io.stderr(`admission-workbench impact: ${p}\n`);
  if (problems.length) return 2;
  const t0 = Date.now();
  const pool = threads !== 0 ? io.impactPool?.(threads) : undefined;
  const engines = pool ? 1 : await started;
  // a file is read twice: first for the last event that reads each object, so that the replay
  // forgets an object once no later event reads it (memory holds the objects still to be read,
  // not every object of the log); standard input is read once and keeps every object
  let retainState: LaterReads | undefined;
  if (audit && args.audit !== '-') {
    if (tty) io.stderr('scanning the log for the objects later events read…');
    retainState = await laterReads(io.fs.readStream!(args.audit!)).catch(() => undefined); // unreadable: the replay says where
  }
  // the log's replay split by object (src/impact/shard.ts): one shard on this thread, which also
  // reads, splits and routes the lines and takes the outcomes in log order, and a worker thread
  // with an engine for each core beyond the second. A core is left to the engine processes and
  // V8's collector and compiler: on two cores a worker thread beside this one was no faster and
  // took ~30 % more CPU (docs/performance.md); on one core a shard only adds a thread
  const cores = io.cores?.() ?? 1;
  const shardCount = args.shards ?? (celStatus().engine === 'native' && !pool && cores > 1 ? cores - 1 : 0);
  const shards = audit && shardCount > 0 ? io.impactShards?.(shardCount) : undefined;
  io.stderr(
    `admission-workbench impact: ${engineLine(threads === 0 ? engines : 1, pool ? (pool.size ?? 0) : 0, shards?.filter((s) => !isLocalShard(s)).length ?? 0)}\n`,
  );
  const writer = reportWriter(args.format, args.format === 'json' && args.allEvents === true, args.format === 'json' ? io.spool?.() : undefined);
  const report = await analyzeImpact({
    workspace: workspace.objects,
    ...(args.cluster.length ? { cluster: cluster.objects } : {}),
    ...(cluster.skipped.length ? { clusterProblems: cluster.skipped } : {}),
    ...(args.static ? { staticDocuments: workspace.objects.flatMap((o, i) => (isAdmissionObject(o) ? [i] : [])) } : {}),
    ...(audit ? { audit } : {}),
    options: {
      candidate: args.candidate,
      webhooks,
      existing: args.existing,
      // the events go to the report's writer as they are decided, none kept (impact-report.ts)
      keepUnchanged: false,
      keepChanged: false,
      onEvent: writer.onEvent,
      ...(retainState ? { retainState } : {}),
      ...(shards ? { shards } : {}),
      // several requests in flight: their engine calls share the native engine's round trips
      ...(pool ? { decider: pool.decider, inFlight: pool.inFlight } : { inFlight: IN_FLIGHT_PER_ENGINE * engines }),
      ...(args.kubernetesVersion ? { kubernetesVersion: args.kubernetesVersion } : {}),
      ...(args.staticOrder ? { staticOrder: args.staticOrder } : {}),
      ...(args.featureGates?.length ? { featureGates: args.featureGates } : {}),
      ...(args.user ? { user: { username: args.user, groups: [...new Set([...args.groups, 'system:authenticated'])] } } : {}),
      ...(tty
        ? {
            onProgress: (p) => {
              const secs = (Date.now() - t0) / 1000;
              io.stderr(
                `\r${p.phase}: ${p.lines} lines, ${p.events} writes (${(p.events / Math.max(secs, 0.001)).toFixed(0)}/s), ${p.existing}/${p.existingTotal} existing, ${p.changed} changed   `,
              );
            },
          }
        : {}),
    },
  });
  pool?.close();
  if (tty) io.stderr('\n');
  writer.write(report, io.stdout);
  // a file that is not what it was given as (a log with no audit event, a snapshot that is a log): the report says nothing about it
  if (report.summary.inputErrors.length) {
    for (const e of report.summary.inputErrors) io.stderr(`admission-workbench impact: ${e}\n`);
    return 2;
  }
  return impactFails(report, args.failOn) ? 1 : 0;
}
