/**
 * The page side of the CEL worker: one Web Worker running the Go program, a wall-clock
 * deadline per request (the worker is terminated and replaced when it passes, so the page
 * never freezes), and replay of stored test inputs into a replacement worker.
 */
import { failedOp, OPS, type CelOp, type EngineFailure, type OpArgs, type OpResult } from './ops';
import type { EngineWork, StartedWorker, WorkerAllow, WorkerInit, WorkerRequest, WorkerResponse } from './protocol';
import type { CelEngineInfo, CelStartPhases } from './types';
import type { EngineFile } from './assets';

interface Pending {
  op: CelOp;
  args: OpArgs<CelOp>;
  resolve: (v: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** The engine failed to start or stopped: every request answers this. */
export const unavailable = (message: string): EngineFailure => ({ ok: false, kind: 'unavailable', message: `CEL engine unavailable: ${message}` });

export interface WorkerClientOptions {
  /** The page's base URL; cel/wasm_exec.js and cel/cel.wasm are resolved against it. */
  baseUrl: string;
  /** Wall-clock deadline per request once the worker is ready (ms). */
  timeoutMs: number;
  /**
   * Deadline of evaluate and evaluateBatch (ms; default timeoutMs): a safety net behind the
   * cost budgets, which must decide first (the apiserver's words, not "timed out").
   */
  evalTimeoutMs?: number;
  /** Called whenever a worker is (re)started and ready. */
  onReady?: (info: CelEngineInfo, startMs: number, phases?: CelStartPhases) => void;
  /** Give up when a worker is not ready after this long (download + compile + Go init); default 120 s. */
  startTimeoutMs?: number;
  /** The worker the page's starter created and initialised (start.ts): the first one, instead of a new one. */
  started?: StartedWorker;
  /** The engine generation the worker runs (absent: cel.wasm, the default target's). */
  wasm?: EngineFile;
}

export class WorkerClient {
  private worker: Worker | undefined;
  private isReady = false;
  private failure: string | undefined;
  private readonly pending = new Map<number, Pending>();
  /** The request the worker is running now (see pump). */
  private current: number | undefined;
  private nextId = 1;
  /** Stored inputs (id -> JSON), replayed into a replacement worker. */
  readonly inputs = new Map<string, string>();
  info: CelEngineInfo | undefined;
  restarts = 0;
  /** The engine's compiled module, from the first worker that started: replacements reuse it. */
  private module: WebAssembly.Module | undefined;
  private readyWaiters: ((failure: string | undefined) => void)[] = [];

  constructor(private readonly opts: WorkerClientOptions) {}

  /**
   * Lets a worker the page's starter created (held: WorkerInit.hold) compile the engine from the
   * Cache Storage (`cached`) or download it too (`all`). A request allows everything.
   */
  allow(work: EngineWork): void {
    if (this.allowed === 'all' || this.allowed === work) return;
    this.allowed = work;
    this.worker?.postMessage({ op: 'allow', work } satisfies WorkerAllow);
  }

  private allowed: EngineWork | undefined;

  /** Starts the worker; resolves with undefined when ready or with the failure message. */
  start(): Promise<string | undefined> {
    if (!this.worker) this.spawn();
    if (this.isReady || this.failure !== undefined) return Promise.resolve(this.failure);
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  get failed(): string | undefined {
    return this.failure;
  }

  /** The engine's compiled module once a worker started (other threads start engines from it without compiling again). */
  get compiled(): WebAssembly.Module | undefined {
    return this.module;
  }

  private startTimer: ReturnType<typeof setTimeout> | undefined;

  private spawn(): void {
    this.isReady = false;
    const started = this.opts.started;
    this.opts.started = undefined;
    const worker = started?.worker ?? new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker = worker;
    if (this.startTimer) clearTimeout(this.startTimer);
    const startTimeoutMs = this.opts.startTimeoutMs ?? 120_000;
    this.startTimer = setTimeout(() => {
      if (worker === this.worker && !this.isReady) this.fail(`the CEL worker did not start within ${startTimeoutMs / 1000} s`);
    }, startTimeoutMs);
    worker.onmessage = (ev: MessageEvent<WorkerResponse>) => {
      if (worker !== this.worker) return;
      const msg = ev.data;
      if (msg.op === 'ready') {
        this.isReady = true;
        if (this.startTimer) clearTimeout(this.startTimer);
        this.info = msg.info;
        this.module ??= msg.module;
        this.opts.onReady?.(msg.info, msg.startMs, msg.phases && { ...msg.phases, fromStarter: !!started });
        for (const [id, json] of this.inputs) this.post({ id: 0, op: 'setInputs', args: [id, json] });
        this.current = undefined;
        this.pump();
        for (const w of this.readyWaiters.splice(0)) w(undefined);
      } else if (msg.op === 'failed') {
        this.fail(msg.message);
      } else {
        const p = this.pending.get(msg.id);
        if (this.current === msg.id) this.current = undefined;
        if (p) {
          this.pending.delete(msg.id);
          if (p.timer) clearTimeout(p.timer);
          p.resolve(msg.result);
        }
        this.pump();
      }
    };
    worker.onerror = (ev: ErrorEvent) => {
      if (worker !== this.worker) return;
      ev.preventDefault();
      this.fail(ev.message || 'the CEL worker failed to start');
    };
    if (started) {
      // Already sent its init; what it answered before this client took it comes now, in order.
      for (const ev of started.events.splice(0)) {
        if (ev instanceof MessageEvent) worker.onmessage(ev);
        else worker.onerror(ev);
      }
      return;
    }
    const init: WorkerInit = { op: 'init', baseUrl: this.opts.baseUrl, module: this.module, wasm: this.opts.wasm };
    worker.postMessage(init);
  }

  private fail(message: string): void {
    this.failure = message;
    this.worker?.terminate();
    this.worker = undefined;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (p.timer) clearTimeout(p.timer);
      p.resolve(failedOp(p.op, unavailable(message), p.args));
    }
    for (const w of this.readyWaiters.splice(0)) w(message);
  }

  private post(req: WorkerRequest): void {
    this.worker?.postMessage(req);
  }

  /**
   * One request at a time: the worker runs them one after another anyway, and a deadline
   * must measure the request's own run, not its wait behind a queue of others.
   */
  private pump(): void {
    if (!this.isReady || this.current !== undefined) return;
    const next = this.pending.entries().next();
    if (next.done) return;
    const [id, p] = next.value;
    this.current = id;
    this.send(id, p);
  }

  private send(id: number, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = setTimeout(() => this.timeout(id), this.deadlineOf(p));
    this.post({ id, op: p.op, args: p.args } as WorkerRequest);
  }

  private deadlineOf(p: Pending): number {
    return OPS[p.op].deadline === 'evaluation' ? (this.opts.evalTimeoutMs ?? this.opts.timeoutMs) : this.opts.timeoutMs;
  }

  private timeout(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    const ms = this.deadlineOf(p);
    p.resolve(failedOp(p.op, { ok: false, kind: 'timeout', message: `timed out after ${ms} ms (the CEL worker was restarted)` }, p.args));
    // The Go program cannot be interrupted from outside: replace the worker. Other pending
    // requests are sent again to the new worker once it is ready.
    this.worker?.terminate();
    this.worker = undefined;
    this.current = undefined;
    this.restarts++;
    for (const q of this.pending.values()) if (q.timer) clearTimeout(q.timer);
    this.spawn();
  }

  /**
   * Runs an operation in the worker. Past its deadline, or when the worker fails, it answers the
   * operation's failure (ops.ts) with kind `timeout` or `unavailable`.
   */
  request<K extends CelOp>(op: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
    if (this.failure !== undefined) return Promise.resolve(failedOp(op, unavailable(this.failure), args));
    return new Promise<OpResult<K>>((resolve) => {
      const id = this.nextId++;
      const p: Pending = { op, args: args as OpArgs<CelOp>, resolve: resolve as (v: unknown) => void };
      this.pending.set(id, p);
      if (!this.worker) this.spawn();
      this.allow('all');
      this.pump();
    });
  }

  terminate(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.isReady = false;
  }
}
