/**
 * The decision pool (pool.ts) over real transports: MessagePorts (the shape of the Impact view's
 * Web Workers) served by `decisionServer` on the real engine, and members that fail; the
 * report must be the one analyzeImpact makes one request at a time on this thread.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { WebhookResponse } from '../admission';
import {
  analyzeImpact,
  chainDecider,
  decisionPool,
  decisionServer,
  POOL_DEPTH,
  type ChainSpec,
  type Decider,
  type ImpactReport,
  type OpenMember,
  type PoolAsk,
  type ToMember,
} from './index';
import { APPS, appsPod, podCreate, requireTeam } from './test-helpers';

useEngine();

const ns = APPS;
const pod = (name: string, labels: Record<string, string>) => appsPod(name, labels, 'nginx:1.27');
const policy = requireTeam();
const event = (i: number) =>
  podCreate(i, i % 4 === 0 ? {} : { team: 't' }, { user: `user-${i % 3}`, time: `2026-11-20T10:00:${String(i % 60).padStart(2, '0')}Z`, image: 'nginx:1.27' });
const log = Array.from({ length: 60 }, (_, i) => event(i)).join('\n') + '\n';
const cluster = [ns, pod('running', {})];

/** A member on this thread behind a MessageChannel: every ask and answer is structured-cloned, as to a Web Worker. */
function portMember(spec: ChainSpec, asked: PoolAsk[], told: ToMember[] = []): OpenMember {
  return ({ answer }) => {
    const { port1, port2 } = new MessageChannel();
    const serve = decisionServer(structuredClone(spec), (a) => port2.postMessage(a));
    port2.on('message', (m: ToMember) => {
      if ('id' in m) asked.push(m);
      else told.push(m);
      serve(m);
    });
    port1.on('message', answer);
    return { send: (ask) => port1.postMessage(ask), close: () => (port1.close(), port2.close()) };
  };
}

/** `open` as the pool sees it: before each ask it sends, every member's outstanding asks (sent, not yet answered) and the one it chose. */
function observed(open: OpenMember, i: number, outstanding: number[], choices: { to: number; outstanding: number[] }[]): OpenMember {
  return (events) => {
    const m = open({
      ...events,
      answer: (a) => {
        outstanding[i]!--;
        events.answer(a);
      },
    });
    return {
      send: (message) => {
        if ('id' in message) {
          choices.push({ to: i, outstanding: [...outstanding] });
          outstanding[i]!++;
        }
        m.send(message);
      },
      close: m.close,
    };
  };
}

/** A member whose far end closes its port on the first ask (with that ask and any others outstanding): the pool hears the port close. */
const dying: OpenMember = ({ answer, failed }) => {
  const { port1, port2 } = new MessageChannel();
  port2.on('message', () => port2.close());
  port1.on('message', answer);
  port1.on('close', failed);
  return { send: (ask) => port1.postMessage(ask), close: () => port1.close() };
};

const strip = (r: ImpactReport) => ({ events: r.events, existing: r.existing, summary: r.summary });

async function run(decider?: (spec: ChainSpec) => Decider, inFlight = 1): Promise<ImpactReport> {
  return analyzeImpact({ workspace: policy, cluster, audit: log, options: { ...(decider ? { decider, inFlight } : {}) } });
}

describe('decisionPool', () => {
  it('spreads requests over members by fewest outstanding, and the report is that of one at a time', async () => {
    const one = await run();
    expect(one.summary.changes['newly-denied']).toBe(15);
    const asked: PoolAsk[][] = [[], []];
    const outstanding = [0, 0];
    const choices: { to: number; outstanding: number[] }[] = [];
    let pool: ReturnType<typeof decisionPool> | undefined;
    const r = await run((spec) => {
      pool = decisionPool(
        asked.map((a, i) => observed(portMember(spec, a), i, outstanding, choices)),
        () => chainDecider(spec),
      );
      return pool.decide;
    }, 2 * POOL_DEPTH);
    pool!.close();
    expect(strip(r)).toEqual(strip(one));
    // 60 events and 2 existing objects, each to a member with the fewest outstanding as the pool saw
    // them; how many each gets follows how fast each answers (a loaded machine split them 34 / 28)
    expect(asked[0]!.length + asked[1]!.length).toBe(62);
    expect(choices).toHaveLength(62);
    for (const { to, outstanding: o } of choices) expect(o[to]).toBe(Math.min(...o));
    expect(asked.every((a) => a.length > 0)).toBe(true);
  });

  it('a log that changes the chains: members hear of them as changes to the last ones, and the report is that of one thread', async () => {
    const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
    const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };
    const input = {
      workspace: candidate.objects,
      cluster: (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items,
      audit: readFileSync(join(dir, 'audit.log'), 'utf8'),
    };
    const options = { kubernetesVersion: '1.37' as const, webhooks: candidate.webhooks };
    const one = await analyzeImpact({ ...input, options });
    const told: ToMember[][] = [[], []];
    let pool: ReturnType<typeof decisionPool> | undefined;
    const r = await analyzeImpact({
      ...input,
      options: {
        ...options,
        inFlight: 2 * POOL_DEPTH,
        decider: (spec) => {
          if (pool) return (pool.respec(spec, () => chainDecider(spec)), pool.decide);
          pool = decisionPool(
            told.map((t) => portMember(spec, [], t)),
            () => chainDecider(spec),
            spec,
          );
          return pool.decide;
        },
      },
    });
    pool!.close();
    expect(strip(r)).toEqual(strip(one));
    for (const t of told) {
      expect(t.length).toBeGreaterThan(0);
      expect(t.every((m) => 'delta' in m)).toBe(true);
    }
  });

  it('a member that dies hands its outstanding requests to the others', async () => {
    const one = await run();
    const asked: PoolAsk[] = [];
    let pool: ReturnType<typeof decisionPool> | undefined;
    const r = await run((spec) => {
      pool = decisionPool([dying, portMember(spec, asked)], () => {
        throw new Error('not needed while a member lives');
      });
      return pool.decide;
    }, 2 * POOL_DEPTH);
    expect(pool!.live()).toBe(1);
    pool!.close();
    expect(strip(r)).toEqual(strip(one));
    expect(asked.length).toBe(62);
  });

  it('when every member dies, this thread decides', async () => {
    const one = await run();
    let fallbacks = 0;
    let pool: ReturnType<typeof decisionPool> | undefined;
    const r = await run((spec) => {
      pool = decisionPool([dying, dying], () => (fallbacks++, chainDecider(spec)));
      return pool.decide;
    }, 2 * POOL_DEPTH);
    expect(pool!.live()).toBe(0);
    pool!.close();
    expect(fallbacks).toBe(1);
    expect(strip(r)).toEqual(strip(one));
  });
});
