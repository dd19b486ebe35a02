/// <reference lib="webworker" />
/**
 * A decider of the Impact view (a Web Worker, one per core beside the replay worker): starts the CEL engine on its own
 * thread from the page's compiled module, prepares both chains from the spec the replay
 * worker sends over the port (again when the log changes them) and answers each request (src/impact/pool.ts `decisionServer`).
 */
import { celStatus, loadCelHere } from '../cel';
import { decisionServer, type ToMember } from '../impact';
import type { DeciderInit, FromDecider, ToDecider } from './impact-protocol';

declare const self: DedicatedWorkerGlobalScope;

self.onmessage = (ev: MessageEvent<DeciderInit>) => {
  const { port, baseUrl, module } = ev.data;
  const engine = loadCelHere(baseUrl, module);
  const reply = (m: FromDecider) => port.postMessage(m);
  // what comes before the engine is ready waits, in order (asks, and chains the log changed)
  const queued: ToMember[] = [];
  let serve: ((m: ToMember) => void) | undefined;
  let starting = false;
  port.onmessage = (e: MessageEvent<ToDecider>) => {
    const m = e.data;
    if (serve) return serve(m);
    if (starting || !('spec' in m)) {
      queued.push(m);
      return;
    }
    starting = true;
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
