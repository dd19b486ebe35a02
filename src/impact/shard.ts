/**
 * The log's replay split over threads by namespace. The replay's state is per object (an
 * update's old object is the object's last state), and an object's requests read no other
 * object's state but their Namespace's; so every line of a namespace, and its Namespace's own
 * lines, go to one shard, which reads, replays and decides them with its own state and its own
 * engine (`logReplay`, as on one thread). The thread that reads the log only splits it into lines
 * and routes each by the namespace in its `objectRef` (read from the text before the objects:
 * `verbAndRef`), then takes the outcomes back in log order. Cluster-scoped objects are routed by
 * name. `OpenShard` is whatever carries the messages (the CLI's worker threads).
 */
import { nameOf, namespaceOf, obj, str } from '../base/json';
import { discoveryFor } from '../admission';
import { stateOf } from './cluster';
import type { ChainSpec, Decider } from './decide';
import { logReplay, type LineOutcome, type LogLine } from './events';
import { hash53, verbAndRef, type LaterReads } from './retain';

/** What a shard is started with (structured-cloneable). */
export interface ShardSetup {
  spec: ChainSpec;
  /** CustomResourceDefinitions of the snapshot and the workspace (discovery of custom resources). */
  definitions: unknown[];
  /** The snapshot's objects this shard's lines may read (its namespaces' objects and Namespaces, its cluster-scoped objects). */
  objects: unknown[];
  retain?: LaterReads;
  keepRequests: number;
}

/** Lines for a shard, in log order. */
export interface ShardBatch {
  id: number;
  lines: LogLine[];
}

/** A shard's answer to the batch of the same id: an outcome per line that is not blank, in order; or why it could not decide them. */
export type ShardAnswer = { id: number; outcomes: LineOutcome[] } | { id: number; error: string };

export interface ShardLink {
  send(batch: ShardBatch): void;
  close(): void;
}

/** Starts a shard; it calls `answer` for each answer and `failed` once if it stops (an error, an exit). */
export type OpenShard = (setup: ShardSetup, events: { answer(a: ShardAnswer): void; failed(error: string): void }) => ShardLink;

/**
 * The routing key of a line: the namespace of its objectRef, or for a cluster-scoped object its
 * name (a Namespace's lines carry its name either way: as namespace on patch and delete, as name
 * on create). A cluster-scoped create by generateName has neither: the line is parsed for the
 * name the apiserver gave. '' when the line names no object (it is skipped wherever it goes).
 */
export function shardKey(text: string): string {
  const read = verbAndRef(text);
  if (!read) return '';
  const key = str(read.ref.namespace) || str(read.ref.name);
  if (key) return key;
  try {
    const e = obj(JSON.parse(text) as unknown);
    return nameOf(e.responseObject) || nameOf(e.requestObject);
  } catch {
    return '';
  }
}

/** A snapshot object's routing key, as its lines' (`shardKey`). */
export const objectShardKey = (o: unknown): string => (obj(o).kind === 'Namespace' ? nameOf(o) : namespaceOf(o) || nameOf(o));

const indexOf = (key: string, n: number, line: number): number => (key ? hash53(key) % n : line % n);

/** The snapshot's objects split by shard (`objectShardKey`). */
export function shardObjects(objects: readonly unknown[], n: number): unknown[][] {
  const out = Array.from({ length: n }, (): unknown[] => []);
  objects.forEach((o, i) => out[indexOf(objectShardKey(o), n, i)]!.push(o));
  return out;
}

/**
 * A shard's side: its state and engine-backed decider made once from `setup`, then each batch
 * replayed in order as it arrives (the decisions of one batch overlap the next's reading) and
 * answered through `reply`. Call after the engine is loaded in this thread.
 */
export function shardServer(setup: ShardSetup, decider: (spec: ChainSpec) => Decider, reply: (a: ShardAnswer) => void): (b: ShardBatch) => void {
  const replay = logReplay({
    state: stateOf(setup.objects),
    discovery: discoveryFor(setup.definitions, setup.spec.kubernetesVersion),
    decide: decider(setup.spec),
    keepRequests: setup.keepRequests,
    ...(setup.retain ? { retain: setup.retain } : {}),
  });
  return (b) => {
    const outcomes: (LineOutcome | Promise<LineOutcome>)[] = [];
    try {
      for (const l of b.lines) {
        const o = replay(l);
        if (o) outcomes.push(o);
      }
    } catch (e) {
      reply({ id: b.id, error: e instanceof Error ? e.message : String(e) });
      return;
    }
    Promise.all(outcomes).then(
      (o) => reply({ id: b.id, outcomes: o }),
      (e: unknown) => reply({ id: b.id, error: e instanceof Error ? e.message : String(e) }),
    );
  };
}

const lineOf = (o: LineOutcome): number => ('skip' in o ? o.skip.line : o.event.line);

export interface ShardedReplay {
  /** Routes a batch of lines (in log order) to the shards; their outcomes, in log order. Rejects when a shard failed. */
  replay(lines: readonly LogLine[]): Promise<LineOutcome[]>;
  close(): void;
}

/** Starts one shard per `open`, each with its setup; see the module comment. */
export function shardedReplay(open: readonly OpenShard[], setups: readonly ShardSetup[]): ShardedReplay {
  const n = open.length;
  let nextId = 0;
  let failure: string | undefined;
  let closed = false;
  const waiting = open.map(() => new Map<number, { done(o: LineOutcome[]): void; fail(e: Error): void }>());
  const links = open.map((start, i) =>
    start(setups[i]!, {
      answer(a) {
        const w = waiting[i]!.get(a.id);
        waiting[i]!.delete(a.id);
        if ('error' in a) w?.fail(new Error(a.error));
        else w?.done(a.outcomes);
      },
      failed(error) {
        if (closed) return;
        failure ??= `a replay shard stopped: ${error}`;
        for (const w of waiting[i]!.values()) w.fail(new Error(failure));
        waiting[i]!.clear();
      },
    }),
  );
  return {
    replay(lines) {
      if (failure) return Promise.reject(new Error(failure));
      const parts = open.map((): LogLine[] => []);
      for (const l of lines) parts[indexOf(l.text ? shardKey(l.text) : '', n, l.line)]!.push(l);
      const answers = parts.map((part, i) =>
        part.length
          ? new Promise<LineOutcome[]>((done, fail) => {
              const id = nextId++;
              waiting[i]!.set(id, { done, fail });
              links[i]!.send({ id, lines: part });
            })
          : [],
      );
      return Promise.all(answers).then((all) => (all.filter((a) => a.length).length > 1 ? all.flat().sort((a, b) => lineOf(a) - lineOf(b)) : all.flat()));
    },
    close() {
      closed = true;
      for (const l of links) l.close();
    },
  };
}
