/** The TypeScript API: values, inputs marshalling, sync/cached compilers, typeAt, errors as values, worker deadline. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { WorkerClient } from './browser';
import { celStatus, compile, createCachedCompiler, createSyncCompiler, evaluate, loadCel, setInputs, typeAt } from './index';
import type { WorkerAllow, WorkerRequest, WorkerResponse } from './protocol';
import { useEngine } from './test-helpers';

useEngine();

describe('values', () => {
  test('int and double are kept apart', async () => {
    const r1 = await evaluate('object.a', 'vap-variable', { object: { a: 3, b: 3.5 } });
    expect(r1).toMatchObject({ ok: true, value: 3, type: 'int', display: '3' });
    const r2 = await evaluate('object.b', 'vap-variable', { object: { a: 3, b: 3.5 } });
    expect(r2).toMatchObject({ ok: true, value: 3.5, type: 'double' });
    const r3 = await evaluate('double(object.a)', 'vap-variable', { object: { a: 3 } });
    expect(r3).toMatchObject({ ok: true, value: 3, type: 'double', display: '3.0' });
    expect(await evaluate('object.a / 2', 'vap-variable', { object: { a: 3 } })).toMatchObject({ value: 1, type: 'int' });
  });
  test('int64 beyond 2^53 comes back as a decimal string', async () => {
    expect(await evaluate('9223372036854775807', 'vap-variable', {})).toMatchObject({ value: '9223372036854775807', type: 'int' });
    expect(await evaluate('9007199254740992', 'vap-variable', {})).toMatchObject({ value: 9007199254740992, type: 'int' });
    expect(await evaluate('18446744073709551615u', 'vap-variable', {})).toMatchObject({ value: '18446744073709551615', type: 'uint' });
  });
  test('other CEL types', async () => {
    expect(await evaluate("timestamp('2024-01-02T03:04:05.123456789Z')", 'vap-variable', {})).toMatchObject({
      value: '2024-01-02T03:04:05.123456789Z',
      type: 'google.protobuf.Timestamp',
    });
    expect(await evaluate("duration('1h30m')", 'vap-variable', {})).toMatchObject({ value: '5400s', display: 'duration("5400s")' });
    expect(await evaluate("b'hi'", 'vap-variable', {})).toMatchObject({ value: 'aGk=', type: 'bytes' });
    expect(await evaluate('1.0 / 0.0', 'vap-variable', {})).toMatchObject({ value: '+Inf', type: 'double' });
    expect(await evaluate("{'b': dyn([1, 2]), 'a': dyn({'x': null})}", 'vap-variable', {})).toMatchObject({
      value: { a: { x: null }, b: [1, 2] },
      type: 'map',
      display: '{"a": {"x": null}, "b": [1, 2]}',
    });
    expect(await evaluate('optional.none()', 'vap-variable', {})).toMatchObject({ value: null, type: 'optional_type' });
    expect(await evaluate("quantity('1Gi')", 'vap-variable', {})).toMatchObject({ type: 'kubernetes.Quantity' });
    expect(await evaluate('type(1)', 'vap-variable', {})).toMatchObject({ value: 'int' });
    expect(await evaluate("timestamp('2024-01-01T00:00:00Z').getHours('America/New_York')", 'vap-variable', {})).toMatchObject({
      value: 19,
    });
  });
});

describe('inputs', () => {
  test('an inputs object is marshalled once (cached by identity)', async () => {
    const inputs = { object: { n: 1 } };
    expect(await evaluate('object.n', 'vap-variable', inputs)).toMatchObject({ value: 1 });
    inputs.object.n = 2; // not seen: inputs are treated as immutable
    expect(await evaluate('object.n', 'vap-variable', inputs)).toMatchObject({ value: 1 });
    expect(await evaluate('object.n', 'vap-variable', { object: { n: 2 } })).toMatchObject({ value: 2 });
  });
  test('stored inputs by id', async () => {
    expect(await setInputs('t1', { params: { max: 5 } })).toEqual({ ok: true });
    expect(await evaluate('params.max', 'vap-variable', 't1', { hasParams: true })).toMatchObject({ value: 5 });
    const unknown = await evaluate('1', 'vap-variable', 'no-such-id');
    expect(unknown).toMatchObject({ ok: false, kind: 'inputs', stage: 'runtime' });
  });
  test('invalid inputs are reported, not thrown', async () => {
    const r = await evaluate('true', 'vap-validation', { object: [1, 2] as unknown as object });
    expect(r).toMatchObject({ ok: false, kind: 'inputs', stage: 'runtime' });
    expect(r.ok ? '' : r.message).toContain('object: must be a JSON object');
    expect(await setInputs('bad', { request: { operation: 5 } })).toMatchObject({ ok: false, kind: 'inputs', message: expect.stringContaining('request') });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await evaluate('true', 'vap-validation', { object: cyclic })).toMatchObject({ ok: false, kind: 'inputs' });
  });
  test('text crosses into the engine and back exactly: any Unicode, NUL, megabytes', async () => {
    const text = 'héllo 🎉 \u0000 ✓ \u{10FFFF}';
    expect(await evaluate('object.s + "!"', 'vap-variable', { object: { s: text } })).toMatchObject({ value: `${text}!` });
    expect(await evaluate(`'${'日本'.repeat(3)}'.size()`, 'vap-variable', {})).toMatchObject({ value: 6 });
    // A 3 MB input (the engine's request buffer grows for it and shrinks after it).
    const big = { object: { data: 'x'.repeat(3_000_000), list: Array.from({ length: 20_000 }, (_, i) => `é${i}`) } };
    expect(await evaluate('object.data.size() + object.list.size()', 'vap-variable', big)).toMatchObject({ value: 3_020_000 });
    expect(await evaluate("object.list[19999] == 'é19999'", 'vap-variable', big)).toMatchObject({ value: true });
    expect(await evaluate('object.n * 2', 'vap-variable', { object: { n: 21 } })).toMatchObject({ value: 42 });
  });
  test('compile errors are reported by evaluate as stage compile', async () => {
    const r = await evaluate('object.spec.paused', 'vap-validation', {});
    expect(r).toMatchObject({ ok: false, kind: 'compile', stage: 'compile', message: 'must evaluate to bool but got dyn' });
  });
});

describe('compilers', () => {
  test('loadCel is idempotent', async () => {
    const a = loadCel();
    const b = loadCel();
    expect(a).toBe(b);
    await a;
    expect(celStatus().state).toBe('ready');
  });
  test('the sync compiler answers immediately in Node', () => {
    const c = createSyncCompiler();
    expect(c.compile('object.spec.paused', 'vap-validation')).toMatchObject({ ok: false, message: 'must evaluate to bool but got dyn' });
    expect(c.compile('params.x == 1', 'vap-validation', { hasParams: true })).toMatchObject({ ok: true, type: 'bool' });
  });
  test('the cached compiler caches', () => {
    const onUpdate = vi.fn();
    const c = createCachedCompiler(onUpdate);
    const first = c.compile('1 == 1', 'vap-validation');
    expect(first).toMatchObject({ ok: true });
    expect(c.compile('1 == 1', 'vap-validation')).toBe(first);
    expect(c.size()).toBe(1);
  });
  test('an unknown context is an error value', async () => {
    const r = await compile('true', 'nope' as never);
    expect(r).toMatchObject({ ok: false, kind: 'compile', message: expect.stringContaining('unknown context') });
  });
});

describe('typeAt', () => {
  test('types of identifiers, fields and calls under the cursor', async () => {
    const e = 'request.userInfo.groups.size() > 0';
    expect(await typeAt(e, 'vap-validation', 2)).toMatchObject({ ok: true, type: 'kubernetes.AdmissionRequest', start: 0, end: 7 });
    expect(await typeAt(e, 'vap-validation', 10)).toMatchObject({ ok: true, type: 'kubernetes.UserInfo', start: 8, end: 16 });
    expect(await typeAt(e, 'vap-validation', 18)).toMatchObject({ ok: true, type: 'list(string)' });
    expect(await typeAt(e, 'vap-validation', 25)).toMatchObject({ ok: true, type: 'int', detail: 'list_size' });
    expect((await typeAt('foo +', 'vap-validation', 1)).ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// The worker client's deadline, with a fake Worker (Node has no Web Workers).

class FakeWorker {
  static instances: FakeWorker[] = [];
  onmessage: ((ev: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  terminated = false;
  received: WorkerRequest[] = [];
  allowed: string[] = [];
  constructor() {
    FakeWorker.instances.push(this);
  }
  private reply(msg: WorkerResponse) {
    setTimeout(() => !this.terminated && this.onmessage?.({ data: msg } as MessageEvent<WorkerResponse>), 1);
  }
  postMessage(msg: WorkerRequest | { op: 'init' } | WorkerAllow) {
    if (msg.op === 'allow') return void this.allowed.push(msg.work);
    if (msg.op === 'init') {
      this.reply({ op: 'ready', info: {} as never, startMs: 1 });
      return;
    }
    this.received.push(msg);
    if ((msg.op === 'compile' || msg.op === 'evaluate') && msg.args[0] === 'hang') return; // never answers
    this.reply({ op: 'result', id: msg.id, result: { ok: true, issues: [] } });
  }
  terminate() {
    this.terminated = true;
  }
}

describe('worker deadline', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeWorker.instances = [];
  });
  test('a request past its deadline answers "timed out" and the worker is replaced', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const client = new WorkerClient({ baseUrl: 'http://example.test/app/', timeoutMs: 50 });
    expect(await client.start()).toBeUndefined();
    client.inputs.set('in-1', '{}');
    const hung = client.request('compile', 'hang', 'vap-validation');
    const other = client.request('compile', 'ok', 'vap-validation');
    const r = await hung;
    expect(r).toMatchObject({ ok: false, kind: 'timeout', issues: [], message: expect.stringMatching(/timed out after 50 ms/) });
    expect(client.restarts).toBe(1);
    expect(FakeWorker.instances).toHaveLength(2);
    expect(FakeWorker.instances[0]!.terminated).toBe(true);
    // the other request was answered (by the first or the replacement worker)
    expect(await other).toMatchObject({ ok: true });
    // the replacement received the stored inputs again
    const after = await client.request('compile', 'ok2', 'vap-validation');
    expect(after).toMatchObject({ ok: true });
    expect(FakeWorker.instances[1]!.received.some((m) => m.op === 'setInputs' && m.args[0] === 'in-1')).toBe(true);
  });
});

describe('the cached compiler and the engine failing', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeWorker.instances = [];
  });
  test('a compile error is cached as the verdict; a timeout or an unavailable engine is not (asked again)', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const client = new WorkerClient({ baseUrl: 'http://example.test/', timeoutMs: 30 });
    expect(await client.start()).toBeUndefined();
    const updates = vi.fn();
    const answered: unknown[] = [];
    const cached = createCachedCompiler(updates, 100, {
      compile: (e, c, o) => client.request('compile', e, c, o).then((r) => (answered.push(r), r)),
    });
    expect(cached.compile('hang', 'vap-validation')).toBeUndefined();
    await vi.waitFor(() => expect(answered).toHaveLength(1));
    expect(answered[0]).toMatchObject({ ok: false, kind: 'timeout' });
    expect(cached.size()).toBe(0);
    expect(cached.compile('hang', 'vap-validation')).toBeUndefined(); // not known: asked again
    await vi.waitFor(() => expect(answered).toHaveLength(2));
    // the fake worker answers other expressions with { ok: true }: that is the expression's verdict
    expect(cached.compile('fine', 'vap-validation')).toBeUndefined();
    await vi.waitFor(() => expect(cached.compile('fine', 'vap-validation')).toMatchObject({ ok: true }));
    expect(cached.size()).toBe(1);
    await vi.waitFor(() => expect(updates).toHaveBeenCalled());
    client.terminate();
    // a failed engine: every answer is 'unavailable', never cached
    const down = createCachedCompiler(updates, 100, { compile: async () => ({ ok: false, kind: 'unavailable', message: 'x', issues: [] }) });
    down.compile('a', 'vap-validation');
    await new Promise((r) => setTimeout(r, 0));
    expect(down.size()).toBe(0);
  });
});

describe('evaluation deadline', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeWorker.instances = [];
  });
  test('evaluate has its own, longer deadline (a safety net behind the cost budgets)', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const client = new WorkerClient({ baseUrl: 'http://example.test/', timeoutMs: 20, evalTimeoutMs: 120 });
    expect(await client.start()).toBeUndefined();
    const r = await client.request('evaluate', 'hang', 'vap-validation', 'x');
    expect(r).toMatchObject({ ok: false, kind: 'timeout', stage: 'runtime', message: expect.stringMatching(/timed out after 120 ms/) });
  });
});

describe('worker start', () => {
  afterEach(() => vi.unstubAllGlobals());
  test('a worker that never becomes ready fails the engine with a message; requests answer with it', async () => {
    class SilentWorker {
      onmessage = null;
      onerror = null;
      postMessage() {}
      terminate() {}
    }
    vi.stubGlobal('Worker', SilentWorker);
    const client = new WorkerClient({ baseUrl: 'http://example.test/', timeoutMs: 50, startTimeoutMs: 30 });
    expect(await client.start()).toMatch(/did not start within/);
    const r = await client.request('compile', '1', 'vap-validation');
    expect(r).toMatchObject({
      ok: false,
      kind: 'unavailable',
      issues: [],
      message: expect.stringMatching(/CEL engine unavailable: the CEL worker did not start/),
    });
    const e = await client.request('evaluateBatch', 'x', [
      { expression: '1', context: 'vap-validation' },
      { expression: '2', context: 'vap-validation' },
    ]);
    expect(e).toEqual([0, 1].map(() => expect.objectContaining({ ok: false, kind: 'unavailable', stage: 'runtime' })));
    const d = await client.request('declarations', 'vap-validation');
    expect(d).toMatchObject({ ok: false, kind: 'unavailable', context: 'vap-validation', variables: [] });
  });
});

describe("the worker the page's starter created (src/cel/start.ts)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeWorker.instances = [];
  });
  const ready: WorkerResponse = { op: 'ready', info: {} as never, startMs: 1, phases: { bootMs: 1, compileMs: 2, engineStartMs: 3, postedAt: 0 } };
  test('the client takes it over with what it answered before, allows its work once per step, and a request allows everything', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const worker = new FakeWorker();
    const onReady = vi.fn();
    const started = { worker: worker as unknown as Worker, events: [new MessageEvent('message', { data: ready })] };
    const client = new WorkerClient({ baseUrl: 'http://example.test/', timeoutMs: 50, started, onReady });
    expect(await client.start()).toBeUndefined();
    expect(FakeWorker.instances).toEqual([worker]); // no worker of its own
    expect(started.events).toEqual([]);
    expect(onReady).toHaveBeenCalledWith({}, 1, expect.objectContaining({ fromStarter: true }));
    client.allow('cached');
    client.allow('cached');
    expect(await client.request('compile', 'ok', 'vap-validation')).toMatchObject({ ok: true });
    client.allow('cached');
    expect(worker.allowed).toEqual(['cached', 'all']);
    expect(worker.received.map((m) => m.op)).toEqual(['compile']);
  });
  test('a failure it reported before the client took it over fails the engine with its message', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const worker = new FakeWorker();
    const failed: WorkerResponse = { op: 'failed', message: 'fetching cel.wasm: HTTP 404' };
    const client = new WorkerClient({
      baseUrl: 'http://example.test/',
      timeoutMs: 50,
      started: { worker: worker as unknown as Worker, events: [new MessageEvent('message', { data: failed })] },
    });
    expect(await client.start()).toBe('fetching cel.wasm: HTTP 404');
    expect(worker.terminated).toBe(true);
    expect(FakeWorker.instances).toHaveLength(1);
  });
});
