/**
 * Which objects the replay must remember: a first scan of the log finds the last line that reads
 * each object (an update, a patch or a delete of it), and the replay forgets an object after that
 * line (`ImpactOptions.retainState`), so a log of 200,000 creates does not keep 200,000 objects.
 * The scan reads only the text before `requestObject`; what it cannot read is kept, so a wrong
 * answer can only keep too much. README.md ("At scale").
 */
import { str } from '../base/json';
import type { ObjectReference } from './audit';
import { readByteLineBatches, type TextSource } from './lines';

/** The verbs whose replay reads the object's previous state (UPDATE and DELETE). */
const READS_OLD = new Set(['update', 'patch', 'delete']);

/** 53 bits of a string (cyrb53): two objects that collide are kept as long as either is read. */
export function hash53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** An object of the log by its objectRef (the subresource's events read the main object). */
const refHash = (r: Pick<ObjectReference, 'apiGroup' | 'resource' | 'namespace' | 'name'>): number =>
  hash53(`${r.apiGroup}/${r.resource}/${r.namespace}/${r.name}`);

/** The verb and objectRef of a line, read before its objects when the line is as the apiserver writes it, else from the parsed line; undefined when it is no event. */
export function verbAndRef(text: string): { verb: string; ref: Record<string, unknown> } | undefined {
  // the first object: a responseObject is looked for only before the requestObject (not through it)
  const request = text.indexOf('"requestObject"');
  const response = request < 0 ? text.indexOf('"responseObject"') : text.lastIndexOf('"responseObject"', request);
  const cut = response >= 0 ? response : request;
  const head = cut >= 0 ? text.slice(0, cut) : text;
  const v = head.indexOf('"verb":"');
  const r = head.indexOf('"objectRef":{');
  const end = r < 0 ? -1 : head.indexOf('}', r);
  if (v >= 0 && end >= 0 && head.indexOf('"verb":"', v + 1) < 0 && head.indexOf('"objectRef":', r + 1) < 0) {
    try {
      const verb = JSON.parse(head.slice(v + 7, head.indexOf('"', v + 8) + 1)) as unknown;
      const ref = JSON.parse(head.slice(r + 12, end + 1)) as unknown;
      if (typeof verb === 'string' && ref && typeof ref === 'object') return { verb, ref: ref as Record<string, unknown> };
    } catch {
      // not as the apiserver writes it: parsed whole below
    }
  }
  try {
    const e = JSON.parse(text) as { verb?: unknown; objectRef?: unknown };
    return e && typeof e === 'object' && e.objectRef && typeof e.objectRef === 'object'
      ? { verb: str(e.verb), ref: e.objectRef as Record<string, unknown> }
      : undefined;
  } catch {
    return undefined;
  }
}

const heads = new WeakMap<object, ReturnType<typeof verbAndRef> | null>();

/**
 * verbAndRef of a line's text, read once per line object: the chains' tracker reads the lines of
 * the resources it watches and keeps the answer (`remember`), which the shards' router then takes.
 */
export function headOf(l: { readonly text: string }, remember: boolean): ReturnType<typeof verbAndRef> {
  let head = heads.get(l);
  if (head === undefined) {
    head = verbAndRef(l.text) ?? null;
    if (remember) heads.set(l, head);
  }
  return head ?? undefined;
}

/**
 * For each object an update, patch or delete reads, the last line that reads it (by a 53-bit
 * hash of its objectRef): plain data, so a worker thread that replays a part of the log can be
 * handed it (`retains` answers from it).
 */
export type LaterReads = ReadonlyMap<number, number>;

const [QUOTE, BRACE, BACKSLASH] = [34, 123, 92];
const VERB_KEY = Array.from('"verb":"', (c) => c.charCodeAt(0));

/** Where `key` starts in `b` between `from` and `to`, or -1. */
function indexOfBytes(b: Uint8Array, key: readonly number[], from: number, to: number): number {
  for (let i = b.indexOf(key[0]!, from); i >= 0 && i + key.length <= to; i = b.indexOf(key[0]!, i + 1)) {
    let k = 1;
    while (k < key.length && b[i + k] === key[k]) k++;
    if (k === key.length) return i;
  }
  return -1;
}

/**
 * The verb of the line `b[from, to)` read from its bytes, when it is plainly there: a JSON
 * object whose first key named verb comes before any nested object (as the apiserver writes an
 * event: kind, apiVersion, level, auditID, stage, requestURI, verb, user …). Undefined when the
 * line must be decoded and read (`verbAndRef`).
 */
function leadingVerb(b: Uint8Array, from: number, to: number): string | undefined {
  if (b[from] !== BRACE) return undefined;
  const v = indexOfBytes(b, VERB_KEY, from, to);
  if (v < 0) return undefined;
  const brace = b.indexOf(BRACE, from + 1);
  if (brace >= 0 && brace < v) return undefined;
  const start = v + VERB_KEY.length;
  const end = b.indexOf(QUOTE, start);
  if (end < 0 || end >= to || end - start > 64) return undefined;
  let verb = '';
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c === BACKSLASH || c > 127) return undefined;
    verb += String.fromCharCode(c);
  }
  return verb;
}

/**
 * Scans the log for the last line that reads each object's old state. The lines are read as
 * bytes (`readByteLineBatches`, numbered as the replay numbers them): a line whose verb
 * (`leadingVerb`) reads no old object, most of a log, is never decoded; the others are decoded
 * and read by `verbAndRef`.
 */
export async function laterReads(source: TextSource, signal?: AbortSignal): Promise<LaterReads> {
  const last = new Map<number, number>();
  const decoder = new TextDecoder('utf-8');
  for await (const { bytes, lines } of readByteLineBatches(source)) {
    if (signal?.aborted) break;
    for (const l of lines) {
      if (l.tooLong || l.error !== undefined) continue;
      const verb = leadingVerb(bytes, l.start, l.end);
      if (verb !== undefined && !READS_OLD.has(verb)) continue;
      const r = verbAndRef(decoder.decode(bytes.subarray(l.start, l.end)));
      if (r && READS_OLD.has(r.verb))
        last.set(refHash({ apiGroup: str(r.ref.apiGroup), resource: str(r.ref.resource), namespace: str(r.ref.namespace), name: str(r.ref.name) }), l.line);
    }
  }
  return last;
}

/**
 * Whether a later event reads the object an event leaves (`laterReads`' table). Objects without a
 * name in the objectRef (a create by generateName) are always kept.
 */
export const retains = (reads: LaterReads, ev: { objectRef: Pick<ObjectReference, 'apiGroup' | 'resource' | 'namespace' | 'name'>; line: number }): boolean =>
  !ev.objectRef.name || (reads.get(refHash(ev.objectRef)) ?? 0) > ev.line;
