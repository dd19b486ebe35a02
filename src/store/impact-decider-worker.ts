/// <reference lib="webworker" />
/**
 * A decider of the Impact view (a Web Worker, one per core beside the replay worker): starts the CEL engine on its own
 * thread from the page's compiled module, prepares both chains once from the spec the replay
 * worker sends over the port and answers each request (src/impact/pool.ts `decisionServer`).
 */
import { celStatus, loadCelHere } from '../cel';
import { decisionServer, type PoolAsk } from '../impact';
import type { DeciderInit, FromDecider, ToDecider } from './impact-protocol';

declare const self: DedicatedWorkerGlobalScope;

self.onmessage = (ev: MessageEvent<DeciderInit>) => {
  const { port, baseUrl, module } = ev.data;
  const engine = loadCelHere(baseUrl, module);
  const reply = (m: FromDecider) => port.postMessage(m);
  const queued: PoolAsk[] = [];
  let serve: ((ask: PoolAsk) => void) | undefined;
  port.onmessage = (e: MessageEvent<ToDecider>) => {
    const m = e.data;
    if (!('spec' in m)) {
      if (serve) serve(m);
      else queued.push(m);
      return;
    }
    void engine.then(() => {
      const status = celStatus();
      if (status.state !== 'ready') {
        reply({ failed: status.message ?? 'the CEL engine did not start' });
        return;
      }
      serve = decisionServer(m.spec, reply);
      for (const ask of queued.splice(0)) serve(ask);
    });
  };
};
