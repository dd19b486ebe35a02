/**
 * The log's replay split over threads by object. The replay's state is per object (an update's
 * old object is the object's last state), and an object's requests read no other object's state
 * but their Namespace's; so every line of an object goes to one shard (by namespace and name),
 * which reads, replays and decides them with its own state and its own engine (`logReplay`, as on
 * one thread), and a Namespace's own lines go to every shard, one of which decides them while the
 * others only replay them; chains the log changed (`LogLine.chain`, from chains.ts) reach every
 * shard alike, with the line they start at. The thread that reads the log splits it into
 * lines and routes each (`routeOf`: the objectRef read from the text before the objects), then
 * takes the outcomes back in log order. `OpenShard` is whatever carries the messages (the CLI's
 * worker threads, and `localShard`: one shard on the reading thread itself).
 */
import { nameOf, namespaceOf, obj, str } from '../base/json';
import { splice, unsplice, type Splice } from '../base/splice';
import { stateOf } from './cluster';
import { chainDecider, type ChainSpec, type Decider } from './decide';
import { logReplay, type LineOutcome, type LogLine } from './events';
import { hash53, headOf, verbAndRef, type LaterReads } from './retain';

/** What a shard is started with (structured-cloneable). */
export interface ShardSetup {
  /** The chains at the first line (a line that brings others reaches every shard: `LogLine.chain`). */
  spec: ChainSpec;
  /** The snapshot's objects this shard's lines may read (its namespaces' objects and Namespaces, its cluster-scoped objects). */
  objects: unknown[];
  /** The workspace's (the candidate's params and Namespaces), split alike. */
  workspace: unknown[];
  retain?: LaterReads;
  keepRequests: number;
}

/** Lines for a shard, in log order. */
export interface ShardBatch {
  id: number;
  lines: ShardLine[];
}

/** A line as sent to a shard: the chains it brings as a change to the last ones it was sent (`chainDelta`), not whole. */
export type ShardLine = Omit<LogLine, 'chain'> & { delta?: ChainDelta };

/** Chains as a change to the last ones (a param written changes one object of thousands: only it is cloned to the shard). */
export type ChainDelta = Omit<ChainSpec, 'baseline' | 'candidate'> & { baseline: Splice; candidate: Splice };

export function chainDelta(from: ChainSpec, to: ChainSpec): ChainDelta {
  return { ...to, baseline: splice(from.baseline, to.baseline), candidate: splice(from.candidate, to.candidate) };
}

export function applyChainDelta(from: ChainSpec, d: ChainDelta): ChainSpec {
  return { ...d, baseline: unsplice(from.baseline, d.baseline), candidate: unsplice(from.candidate, d.candidate) };
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
 * The name the apiserver gave an object created by generateName: the stored object's (its
 * metadata's first key, as the apiserver writes it), else the line parsed ('' when it has none).
 */
function givenName(text: string): string {
  const response = text.indexOf('"responseObject":{');
  const metadata = response < 0 ? -1 : text.indexOf('"metadata":', response);
  if (metadata >= 0 && text.startsWith('"metadata":{"name":"', metadata)) {
    const start = metadata + 20;
    const end = text.indexOf('"', start);
    const name = text.slice(start, end);
    if (end > start && !name.includes('\\')) return name;
  }
  try {
    const e = obj(JSON.parse(text) as unknown);
    return nameOf(e.responseObject) || nameOf(e.requestObject);
  } catch {
    return '';
  }
}

/** Where a line goes: the shard of its key, and with `every` to every shard (the others only replay it). */
export interface Route {
  key: string;
  every?: true;
}

/**
 * A line's route: an object's lines by its namespace and name (a create by generateName by the
 * name the apiserver gave it), a cluster-scoped object's by its name; a Namespace's own lines to
 * every shard (every request in the namespace reads it), decided by the shard of its name. Read
 * from the text before the objects (`verbAndRef`); key '' when the line names no object (it is
 * skipped wherever it goes).
 */
export function routeOf(text: string, read = verbAndRef(text)): Route {
  if (!read) return { key: '' };
  const { ref } = read;
  const name = str(ref.name) || givenName(text);
  if (ref.resource === 'namespaces' && !str(ref.apiGroup)) return { key: name, every: true };
  const namespace = str(ref.namespace);
  return { key: namespace ? `${namespace}/${name}` : name };
}

/** A snapshot object's route, as its lines' (`routeOf`). */
export const objectRoute = (o: unknown): Route =>
  obj(o).kind === 'Namespace' && obj(o).apiVersion === 'v1'
    ? { key: nameOf(o), every: true }
    : { key: namespaceOf(o) ? `${namespaceOf(o)}/${nameOf(o)}` : nameOf(o) };

const indexOf = (key: string, n: number, line: number): number => (key ? hash53(key) % n : line % n);

/** The snapshot's objects split by shard (`objectRoute`: every shard has every Namespace). */
export function shardObjects(objects: readonly unknown[], n: number): unknown[][] {
  const out = Array.from({ length: n }, (): unknown[] => []);
  objects.forEach((o, i) => {
    const route = objectRoute(o);
    if (route.every) for (const part of out) part.push(o);
    else out[indexOf(route.key, n, i)]!.push(o);
  });
  return out;
}

/**
 * A shard's side: its state and engine-backed decider made once from `setup`, then each batch
 * replayed in order as it arrives (the decisions of one batch overlap the next's reading) and
 * answered through `reply`. Call after the engine is loaded in this thread.
 */
export function shardServer(setup: ShardSetup, decider: (spec: ChainSpec) => Decider, reply: (a: ShardAnswer) => void): (b: ShardBatch) => void {
  const replay = logReplay({
    state: stateOf(setup.objects, setup.workspace),
    spec: setup.spec,
    decider,
    keepRequests: setup.keepRequests,
    ...(setup.retain ? { retain: setup.retain } : {}),
  });
  // the chains as this shard has them: a line's delta applies to them (objects that did not change keep their identity here too)
  let spec = setup.spec;
  return (b) => {
    const outcomes: (LineOutcome | Promise<LineOutcome>)[] = [];
    try {
      for (const line of b.lines) {
        const l: LogLine = line.delta ? { ...line, chain: (spec = applyChainDelta(spec, line.delta)) } : line;
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

/** The shards `localShard` made (they run on this thread: no thread, no engine of their own). */
const local = new WeakSet<OpenShard>();

/**
 * A shard on this thread, beside the ones in other threads: its lines, setup and outcomes are not
 * copied, and it has no isolate of its own to compile the same code, collect its own garbage and
 * load its own engine (docs/performance.md: on the realistic log a few per cent less CPU than two
 * thread shards, and ~200 MB less memory). It decides with this thread's engines.
 */
export function localShard(decider: (spec: ChainSpec) => Decider = chainDecider): OpenShard {
  const open: OpenShard = (setup, { answer }) => {
    let closed = false;
    const serve = shardServer(setup, decider, (a) => closed || answer(a));
    return {
      send: (b) => closed || serve(b),
      close: () => void (closed = true),
    };
  };
  local.add(open);
  return open;
}

/** Whether a shard runs on this thread (`localShard`). */
export const isLocalShard = (s: OpenShard): boolean => local.has(s);

const lineOf = (o: LineOutcome): number => ('skip' in o ? o.skip.line : o.event.line);

export interface ShardedReplay {
  /** Routes a batch of lines (in log order) to the shards; their outcomes, in log order. Rejects when a shard failed. */
  replay(lines: readonly LogLine[]): Promise<LineOutcome[]>;
  close(): void;
}

/** Starts one shard per `open`, each with its setup; see the module comment. */
export function shardedReplay(open: readonly OpenShard[], setups: readonly ShardSetup[]): ShardedReplay {
  const n = open.length;
  /** The chains each shard was last sent. */
  const sent = setups.map((s) => s.spec);
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
      const parts = open.map((): ShardLine[] => []);
      /** A line for shard i, its chains as a change to the last ones it was sent. */
      const push = (i: number, l: LogLine) => {
        if (!l.chain) return void parts[i]!.push(l);
        const { chain, ...rest } = l;
        parts[i]!.push({ ...rest, delta: chainDelta(sent[i]!, chain) });
        sent[i] = chain;
      };
      for (const l of lines) {
        const route = l.text ? routeOf(l.text, headOf(l, false)) : { key: '' };
        const at = indexOf(route.key, n, l.line);
        if (route.every) parts.forEach((_, i) => push(i, i === at ? l : { ...l, silent: true }));
        else {
          push(at, l);
          // other chains from this line on: every shard hears of them in log order
          if (l.chain) parts.forEach((_, i) => i !== at && push(i, { line: l.line, text: '', terminated: true, silent: true, chain: l.chain }));
        }
      }
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
