/**
 * A pool of deciders in other threads, whatever carries the messages: the CLI's worker threads
 * (`src/cli/impact-workers.ts`) and the Impact view's Web Workers (`src/store/impact-*.ts`) both
 * use it. Each member loads its own engine and prepares both chains once (`decisionServer`);
 * the pool sends each request to the member with the fewest outstanding, and when a member
 * fails, what it had outstanding and every later request go to the survivors or, when none is
 * left, to `fallback` (a decider on this thread). When the log changes the chains, `respec`
 * sends them to every member after the asks before. Results come back in any order: analyzeImpact
 * takes them in the order started (`inFlight`), so the report is that of one at a time.
 */
import { celEngines, celStatus } from '../cel';
import type { AdmissionRequest } from '../request/model';
import type { ConditionalAuthorization } from '../admission';
import { chainDecider, type ChainSpec, type Decider, type DecisionPair } from './decide';
import { applyChainDelta, chainDelta, type ChainDelta } from './shard';

/** One request to a member. */
export interface PoolAsk {
  id: number;
  request: AdmissionRequest;
  namespaceObject: unknown;
  authorization?: ConditionalAuthorization;
}

/** A member's answer to the ask of the same id. */
export interface PoolAnswer {
  id: number;
  pair: DecisionPair;
}

/**
 * What a member is sent: an ask, or the chains to decide the next asks with (the log changed them:
 * src/impact/chains.ts), whole or as a change to the last ones it was sent (`delta`: the objects
 * that did not change keep their identity in the member, so its compiled chains, plans and param
 * index carry over, as in a shard).
 */
export type ToMember = PoolAsk | { spec: ChainSpec } | { delta: ChainDelta };

/** A member as the pool sees it: how to send it an ask or chains, how to stop it. */
export interface PoolMember {
  send(message: ToMember): void;
  close(): void;
}

/** Opens a member; it calls `answer` for each answer and `failed` once if it stops (an error, an exit). */
export type OpenMember = (events: { answer(a: PoolAnswer): void; failed(): void }) => PoolMember;

export interface DecisionPool {
  decide: Decider;
  /** Decide the next asks with other chains (every member hears of them after the asks before, as a change to the last ones); `fallback` decides with them on this thread. */
  respec(spec: ChainSpec, fallback: () => Decider): void;
  /** Members still working. */
  live(): number;
  close(): void;
}

/** Requests each member should hold to keep it busy while answers travel back (analyzeImpact's `inFlight` is members × this). */
export const POOL_DEPTH = 16;

/**
 * Requests in flight per native engine process when this thread decides: their engine calls share
 * round trips. 16 left realistic requests waiting on them; 128 cost large objects' collection more
 * than it saved (docs/performance.md, "Decisions in flight").
 */
export const IN_FLIGHT_PER_ENGINE = 64;

/**
 * analyzeImpact's `inFlight` when the caller sets none and this thread decides: with the native
 * engine (Node's default), its processes grown to one per core and kept busy; else one at a time.
 */
export async function engineInFlight(): Promise<number> {
  const engines = await celEngines();
  return celStatus().engine === 'native' ? IN_FLIGHT_PER_ENGINE * engines : 1;
}

/** See the module comment. `fallback` is called at most once, when first needed. `spec`: the chains the members were started with (respec then sends changes to them). */
export function decisionPool(members: readonly OpenMember[], fallback: () => Decider, spec?: ChainSpec): DecisionPool {
  interface Slot {
    member: PoolMember;
    /** The last chains it was sent. */
    sent?: ChainSpec;
    /** Outstanding asks and where their answers go. */
    waiting: Map<number, { ask: PoolAsk; done: (pair: DecisionPair) => void }>;
    failed: boolean;
  }
  let local: Decider | undefined;
  let closed = false;
  let localFallback = fallback;
  let nextId = 0;
  const slots: Slot[] = [];
  const decide: Decider = (request, namespaceObject, authorization) => {
    const live = slots.filter((s) => !s.failed);
    if (!live.length) return (local ??= localFallback())(request, namespaceObject, authorization);
    const slot = live.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
    const ask: PoolAsk = { id: nextId++, request, namespaceObject, ...(authorization ? { authorization } : {}) };
    return new Promise<DecisionPair>((done) => {
      slot.waiting.set(ask.id, { ask, done });
      slot.member.send(ask);
    });
  };
  for (const open of members) {
    const slot: Slot = { member: undefined as unknown as PoolMember, waiting: new Map(), failed: false, ...(spec ? { sent: spec } : {}) };
    slot.member = open({
      answer(a) {
        const w = slot.waiting.get(a.id);
        slot.waiting.delete(a.id);
        w?.done(a.pair);
      },
      failed() {
        if (closed || slot.failed) return;
        slot.failed = true;
        const orphans = [...slot.waiting.values()];
        slot.waiting.clear();
        for (const { ask, done } of orphans) void decide(ask.request, ask.namespaceObject, ask.authorization).then(done);
      },
    });
    slots.push(slot);
  }
  return {
    decide,
    respec(spec, next) {
      for (const s of slots)
        if (!s.failed) {
          s.member.send(s.sent ? { delta: chainDelta(s.sent, spec) } : { spec });
          s.sent = spec;
        }
      localFallback = next;
      local = undefined;
    },
    live: () => slots.filter((s) => !s.failed).length,
    close() {
      closed = true;
      for (const s of slots) s.member.close();
    },
  };
}

/**
 * A member's side: both chains prepared once from `spec` (again when other chains come); each
 * ask decided, with the chains of when it came, and answered with its id through `reply`. Call
 * after the engine is loaded in this thread.
 */
export function decisionServer(spec: ChainSpec, reply: (a: PoolAnswer) => void): (message: ToMember) => void {
  let current = spec;
  let decide = chainDecider(spec);
  return (m) => {
    if ('spec' in m) decide = chainDecider((current = m.spec));
    else if ('delta' in m) decide = chainDecider((current = applyChainDelta(current, m.delta)));
    else void decide(m.request, m.namespaceObject, m.authorization).then((pair) => reply({ id: m.id, pair }));
  };
}
