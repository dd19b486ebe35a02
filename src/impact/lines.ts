/**
 * Text in, lines out, as a stream: an audit log or a snapshot arrives as chunks (a file read
 * in pieces, a gzip stream, a string) and is split into lines without ever holding the whole
 * text. Bytes are decoded as UTF-8 (gzip, recognised by its magic bytes, is inflated first, by
 * `DecompressionStream`, which Node 18+ and every current browser have).
 */

/** What a caller may hand in: a whole text, or text/bytes chunk by chunk. */
export type TextSource = string | Uint8Array | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

export interface Line {
  /** 1-based line number in the (decompressed) text. */
  line: number;
  text: string;
  /** false for a last line that the text did not end with a newline (a truncated log, often). */
  terminated: boolean;
  /** Set on a last, empty line when the source could not be read further (a corrupt or cut-off gzip stream, a read error). */
  error?: string;
}

/** Longest line kept (a longer one is reported by its length and skipped, never buffered whole). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Two pieces of bytes as one. */
const joined = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

async function* chunksOf(source: TextSource): AsyncGenerator<string | Uint8Array> {
  if (typeof source === 'string' || source instanceof Uint8Array) yield source;
  else yield* source as AsyncIterable<string | Uint8Array>;
}

/** Where a gzip member may start in `b` (its magic, deflate's method byte, no reserved flag), from `from` on; -1 when nowhere. */
function memberStart(b: Uint8Array, from: number): number {
  for (let p = b.indexOf(0x1f, from); p >= 0 && p + 3 < b.length; p = b.indexOf(0x1f, p + 1))
    if (b[p + 1] === 0x8b && b[p + 2] === 8 && (b[p + 3]! & 0xe0) === 0) return p;
  return -1;
}

/** Whether the 4 bytes before `end` in `tail` (the input written last) are a gzip trailer's ISIZE for a member that gave `given` bytes. */
const trailerOf = (tail: Uint8Array, given: number): boolean =>
  tail.length >= 4 &&
  (tail[tail.length - 4]! | (tail[tail.length - 3]! << 8) | (tail[tail.length - 2]! << 16) | (tail[tail.length - 1]! << 24)) >>> 0 === given >>> 0;

/**
 * The pieces to write of an input chunk: cut before every place a gzip member may start
 * (`memberStart`), so that a member ends with a write. The last 3 bytes are held back for the
 * next chunk (a member's magic cut over two chunks is found whole); `flush` gives them at the end.
 */
export function memberCuts(): { cut(b: Uint8Array): Uint8Array[]; flush(): Uint8Array[] } {
  let held = new Uint8Array(0);
  return {
    cut(chunk) {
      const b = held.length ? joined(held, chunk) : chunk;
      const keep = Math.max(0, b.length - 3);
      held = b.slice(keep);
      const out: Uint8Array[] = [];
      let from = 0;
      for (let p = memberStart(b, 1); p >= 0 && p < keep; p = memberStart(b, p + 1)) {
        out.push(b.subarray(from, p));
        from = p;
      }
      if (keep > from) out.push(b.subarray(from, keep));
      return out;
    },
    flush: () => (held.length ? [held] : []),
  };
}

/**
 * A gzip stream inflated, member after member (`cat a.gz b.gz`: RFC 1952 allows any number).
 * Node's DecompressionStream reads on past a member's end; Chromium's refuses what follows
 * ("Junk found after end of compressed data"), and an error drops the output not yet read. So
 * the input is written in pieces cut where a member may start (`memberCuts`), each after the
 * output before it was read: a member ends with a write, and the write after it fails alone.
 * Where that write starts a member (and the bytes before it are the trailer of what was given),
 * a new stream inflates on from it; any other failure stands (a corrupt or cut-off stream: what
 * was inflated stays read).
 */
async function* inflate(first: Uint8Array, rest: AsyncIterator<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  const cuts = memberCuts();
  const queue: Uint8Array[] = cuts.cut(first);
  let ended = false;
  /** The next piece to write, cut as memberCuts cuts; undefined at the end. */
  const next = async (): Promise<Uint8Array | undefined> => {
    while (!queue.length && !ended) {
      const r = await rest.next();
      if (r.done) (ended = true), queue.push(...cuts.flush());
      else queue.push(...cuts.cut(typeof r.value === 'string' ? new TextEncoder().encode(r.value) : r.value));
    }
    return queue.shift();
  };
  let tail: Uint8Array = new Uint8Array(0); // the last bytes written before the piece being written
  for (;;) {
    const stream = new DecompressionStream('gzip');
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    let given = 0;
    let failedAt: Uint8Array | undefined; // the piece whose write failed
    const pump = (async () => {
      for (let b = await next(); b; b = await next()) {
        try {
          await writer.write(b as Uint8Array<ArrayBuffer>);
        } catch {
          failedAt = b;
          return;
        }
        tail = b.length >= 4 ? b.subarray(b.length - 4) : joined(tail, b).slice(-4);
      }
      await writer.close().catch(() => undefined);
    })();
    let failure: unknown;
    let failed = false;
    let read = false; // the output read to its end, or failed (not left by the consumer)
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        given += r.value.length;
        yield r.value;
      }
      read = true;
    } catch (e) {
      [failed, failure, read] = [true, e, true];
    } finally {
      reader.releaseLock();
      // left early (Cancel): the pump's write waits for a read that will not come
      if (!read) await writer.abort().catch(() => undefined);
      await pump;
    }
    if (!failed) return;
    // the next member: the piece that failed starts one, after the trailer of what this one gave
    if (!failedAt || memberStart(failedAt, 0) !== 0 || !trailerOf(tail, given)) throw failure;
    queue.unshift(failedAt);
    tail = new Uint8Array(0);
  }
}

/** The source's pieces with gzip inflated: bytes as they come (not yet decoded), or the strings a caller handed in. */
export async function* byteChunks(source: TextSource): AsyncGenerator<string | Uint8Array> {
  const it = chunksOf(source)[Symbol.asyncIterator]();
  let first = await it.next();
  if (first.done) return;
  // gzip is told by its first two bytes, which may come in two pieces
  while (first.value instanceof Uint8Array && first.value.length < 2) {
    const next = await it.next();
    if (next.done) break;
    if (!(next.value instanceof Uint8Array)) {
      yield first.value;
      first = next;
      break;
    }
    first = { done: false, value: joined(first.value, next.value) };
  }
  if (first.value instanceof Uint8Array && isGzip(first.value)) {
    yield* inflate(first.value, it);
    return;
  }
  yield first.value;
  for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
}

/**
 * Several sources as one (rotated audit logs opened together): each inflated on its own, so that
 * a plain file after a gzip one is not read as gzip, with a newline between two where the first
 * does not end with one.
 */
export async function* joinedSources(sources: readonly TextSource[]): AsyncGenerator<string | Uint8Array> {
  let ended = true; // whether what came so far ends a line
  for (const source of sources) {
    let first = true;
    for await (const c of byteChunks(source)) {
      if (!c.length) continue;
      if (first && !ended) yield '\n';
      first = false;
      yield c;
      ended = typeof c === 'string' ? c.endsWith('\n') : c[c.length - 1] === NEWLINE;
    }
  }
}

/** The text as decoded string pieces: gzip inflated, UTF-8 decoded (invalid bytes become U+FFFD). */
export async function* textChunks(source: TextSource): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const c of byteChunks(source)) {
    const s = typeof c === 'string' ? c : decoder.decode(c, { stream: true });
    if (s) yield s;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

/**
 * The pieces of `chunks` until they end or fail: a failure (a corrupt or cut-off gzip stream, a
 * read error) ends them and goes to `failed`, so what was read stays read.
 */
async function* untilError<T>(chunks: AsyncIterator<T>, failed: (message: string) => void): AsyncGenerator<T> {
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await chunks.next();
    } catch (e) {
      failed(e instanceof Error ? e.message : String(e));
      return;
    }
    if (next.done) return;
    yield next.value;
  }
}

/**
 * The lines of a text source, a chunk's worth at a time (one await per chunk, not per line: an
 * async generator's step per line was a third of reading a log). A line longer than `maxLine`
 * characters is yielded with its text cut to '' and `tooLong` set, so one runaway line never
 * fills the memory.
 */
export async function* readLineBatches(source: TextSource, maxLine = MAX_LINE_BYTES): AsyncGenerator<(Line & { tooLong?: number })[]> {
  let pending = '';
  let dropped = 0; // characters of a too-long line already thrown away
  let n = 0;
  let error: string | undefined;
  for await (const chunk of untilError(textChunks(source), (message) => (error = message))) {
    const batch: (Line & { tooLong?: number })[] = [];
    let start = 0;
    for (let nl = chunk.indexOf('\n', start); nl >= 0; nl = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      n++;
      if (dropped) {
        batch.push({ line: n, text: '', terminated: true, tooLong: dropped + piece.length });
        dropped = 0;
      } else {
        const text = pending ? pending + piece : piece;
        batch.push({ line: n, text: text.endsWith('\r') ? text.slice(0, -1) : text, terminated: true });
      }
      pending = '';
    }
    const rest = chunk.slice(start);
    if (dropped) dropped += rest.length;
    else if (pending.length + rest.length > maxLine) {
      dropped = pending.length + rest.length;
      pending = '';
    } else pending += rest;
    if (batch.length) yield batch;
  }
  const last: (Line & { tooLong?: number })[] = [];
  if (dropped) last.push({ line: ++n, text: '', terminated: false, tooLong: dropped });
  else if (pending) last.push({ line: ++n, text: pending, terminated: false });
  if (error !== undefined) last.push({ line: n + 1, text: '', terminated: false, error });
  if (last.length) yield last;
}

/** The lines of a text source one by one (readLineBatches, flattened). */
export async function* readLines(source: TextSource, maxLine = MAX_LINE_BYTES): AsyncGenerator<Line & { tooLong?: number }> {
  for await (const batch of readLineBatches(source, maxLine)) yield* batch;
}

/** Lines of bytes: each line's place in `bytes` (`start` to `end`, the newline and a carriage return before it left out). */
export interface ByteLines {
  bytes: Uint8Array;
  lines: (Omit<Line, 'text'> & { start: number; end: number; tooLong?: number })[];
}

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * The lines of a source as bytes, a chunk's worth at a time, numbered as `readLineBatches` numbers
 * them (a newline each; an unterminated last line marked; a line carried over chunks longer than
 * `maxLine` bytes given empty with `tooLong`, never held whole; a read error as a last, empty line). For a reader
 * that looks into a line without decoding it (`laterReads`, the shards' routing).
 */
export async function* readByteLineBatches(source: TextSource, maxLine = MAX_LINE_BYTES): AsyncGenerator<ByteLines> {
  const encoder = new TextEncoder();
  let n = 0;
  /** The bytes of a line not ended yet; `dropped` counts those of one already too long. */
  let carry: Uint8Array | undefined;
  let dropped = 0;
  let error: string | undefined;
  // as readLineBatches: a terminated line loses a carriage return before its newline
  const line = (bytes: Uint8Array, start: number, end: number, terminated: boolean) => ({
    line: ++n,
    start,
    end: terminated && end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end,
    terminated,
  });
  for await (const piece of untilError(byteChunks(source), (message) => (error = message))) {
    const b = typeof piece === 'string' ? encoder.encode(piece) : piece;
    const out: ByteLines[] = [];
    let pos = 0;
    if (carry || dropped) {
      const nl = b.indexOf(NEWLINE);
      const head = b.subarray(0, nl < 0 ? b.length : nl);
      if (dropped || carry!.length + head.length > maxLine) [dropped, carry] = [dropped + (carry?.length ?? 0) + head.length, undefined];
      else carry = joined(carry!, head);
      if (nl < 0) continue;
      if (dropped) out.push({ bytes: new Uint8Array(0), lines: [{ line: ++n, start: 0, end: 0, terminated: true, tooLong: dropped }] });
      else out.push({ bytes: carry!, lines: [line(carry!, 0, carry!.length, true)] });
      [carry, dropped, pos] = [undefined, 0, nl + 1];
    }
    const lines: ByteLines['lines'] = [];
    for (let nl = b.indexOf(NEWLINE, pos); nl >= 0; nl = b.indexOf(NEWLINE, pos)) {
      lines.push(line(b, pos, nl, true)); // whole in the chunk: as long as the chunk, already held
      pos = nl + 1;
    }
    if (b.length - pos > maxLine) dropped = b.length - pos;
    else if (pos < b.length) carry = b.slice(pos);
    if (lines.length) out.push({ bytes: b, lines });
    yield* out;
  }
  const last: ByteLines = { bytes: carry ?? new Uint8Array(0), lines: [] };
  if (dropped) last.lines.push({ line: ++n, start: 0, end: 0, terminated: false, tooLong: dropped });
  else if (carry) last.lines.push(line(carry, 0, carry.length, false));
  if (error !== undefined) last.lines.push({ line: n + 1, start: last.bytes.length, end: last.bytes.length, terminated: false, error });
  if (last.lines.length) yield last;
}
