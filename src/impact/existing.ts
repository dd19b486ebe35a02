/**
 * The snapshot's objects judged as a CREATE each by both chains (what would a cluster with the
 * candidate say to the objects it runs now), taken in the snapshot's order: decided on this
 * thread, or over the log's shards (shard.ts), each judging the objects it was set up with, as
 * it replays their lines. Where a shard fails, what it was asked is decided on this thread.
 */
import { isObject, nameOf, namespaceOf, obj, str } from '../base/json';
import type { Discovery } from '../admission';
import type { AdmissionRequest, UserInfo } from '../request/model';
import type { ChainSpec, Decider, DecisionPair } from './decide';
import { specDiscovery } from './events';

/** An existing object's request: its CREATE by `user`; undefined where discovery serves no resource of its kind (not judged). */
export function existingRequest(o: unknown, discovery: Discovery, user: UserInfo): AdmissionRequest | undefined {
  const apiVersion = str(obj(o).apiVersion);
  const slash = apiVersion.indexOf('/');
  const gvk = { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind: str(obj(o).kind) };
  const info = discovery.resourceFor(gvk);
  if (!info || !isObject(o)) return undefined;
  return {
    operation: 'CREATE',
    resource: { group: info.group, version: info.version, resource: info.resource },
    kind: gvk,
    name: nameOf(o),
    namespace: info.namespaced ? namespaceOf(o) : '',
    object: o,
    userInfo: user,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
  };
}

/** The Namespace an existing object's request is judged with (`namespaces`: the snapshot's, the candidate's over them). */
export const existingNamespace = (namespaces: ReadonlyMap<string, unknown>, request: AdmissionRequest): unknown =>
  request.namespace ? namespaces.get(request.namespace) : undefined;

export interface Judged {
  request: AdmissionRequest;
  namespaceObject: unknown;
  pair: DecisionPair;
}

export interface JudgeOptions {
  objects: readonly unknown[];
  namespaces: ReadonlyMap<string, unknown>;
  /** The chains the snapshot holds. */
  spec: ChainSpec;
  user: UserInfo;
  /** This thread's decider for `spec`. */
  decide: Decider;
  /** Decisions in flight on this thread. */
  inFlight: number;
  /** The log's shards (`ShardedReplay`), and where each of `objects` is in them (`shardObjects`). */
  shards?: {
    replay: {
      size: number;
      judging(spec: ChainSpec, namespaces: [string, unknown][], user: UserInfo): (parts: readonly number[][]) => Promise<DecisionPair[][]>;
    };
    places: readonly { shard: number; index: number }[];
  };
  signal?: AbortSignal;
}

/** Objects asked of the shards at once, per shard, and such asks in flight: a shard has the next while it decides one. */
const SHARD_ASK = 64;
const SHARD_ASKS_IN_FLIGHT = 4;

/** Each object judged, in the snapshot's order; returns true where `signal` stopped it early (what was started is still given). */
export async function* judgeExisting(o: JudgeOptions): AsyncGenerator<Judged, boolean> {
  const discovery = specDiscovery(o.spec);
  const judge = o.shards?.replay.judging(o.spec, [...o.namespaces], o.user);
  const n = o.shards?.replay.size ?? 1;
  const most = judge ? n * SHARD_ASK * SHARD_ASKS_IN_FLIGHT : o.inFlight;
  const queue: { request: AdmissionRequest; namespaceObject: unknown; pair: Promise<DecisionPair> }[] = [];
  type Ask = { indices: number[]; put: ((p: Promise<DecisionPair>) => void)[] };
  const none = (): Ask[] => Array.from({ length: n }, () => ({ indices: [], put: [] }));
  /** Per shard, the objects not yet asked of it: their indices there, and where their pairs go. */
  let ask = none();
  let asking = 0;
  const send = () => {
    if (!asking) return;
    const asked = ask;
    [ask, asking] = [none(), 0];
    const answers = judge!(asked.map((a) => a.indices));
    asked.forEach((a, s) => a.put.forEach((put, k) => put(answers.then((all) => all[s]![k]!))));
  };
  /** A shard failed: what it was asked, and every object after, is decided here. */
  let here = !judge;
  let stopped = false;
  for (let i = 0; i < o.objects.length; i++) {
    if (o.signal?.aborted) {
      stopped = true;
      break;
    }
    const request = existingRequest(o.objects[i], discovery, o.user);
    if (!request) continue;
    const namespaceObject = existingNamespace(o.namespaces, request);
    const decideHere = () => o.decide(request, namespaceObject);
    if (here) queue.push({ request, namespaceObject, pair: decideHere() });
    else {
      const { shard, index } = o.shards!.places[i]!;
      const pair = new Promise<DecisionPair>((resolve) => {
        ask[shard]!.put.push((p) => resolve(p.catch(() => ((here = true), decideHere()))));
      });
      ask[shard]!.indices.push(index);
      queue.push({ request, namespaceObject, pair });
      if (++asking >= n * SHARD_ASK) send();
    }
    if (queue.length >= most) {
      send();
      while (queue.length > most >> 1) yield await taken(queue.shift()!);
    }
  }
  send();
  for (const q of queue) yield await taken(q);
  return stopped;
}

const taken = async (q: { request: AdmissionRequest; namespaceObject: unknown; pair: Promise<DecisionPair> }): Promise<Judged> => ({
  request: q.request,
  namespaceObject: q.namespaceObject,
  pair: await q.pair,
});
