/**
 * Which objects the replay must remember. The replay keeps each object's last state for a later
 * event's old object (an update, a patch or a delete of it: `replayRequest`); an object no later
 * event reads costs memory for nothing, and a log of 200,000 creates would keep 200,000 objects.
 * A caller that can read the log twice (a file, not a pipe) scans it first for the last line
 * that reads each object, and the replay forgets an object after that line
 * (`ImpactOptions.retainState`, the table `laterReads` returns): memory then holds only the
 * objects still to be read.
 *
 * The scan reads what it needs from the text before `requestObject` (the apiserver writes `verb`
 * and `objectRef` first, and `objectRef` holds only strings); a line where that is not so is
 * parsed whole. Whatever the scan cannot read is kept: a wrong answer can only keep too much.
 */
import { str } from '../base/json';
import type { AuditWrite, ObjectReference } from './audit';
import { readLines, type TextSource } from './lines';

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
const refHash = (r: Pick<ObjectReference, 'apiGroup' | 'resource' | 'namespace' | 'name'>): number => hash53(`${r.apiGroup}/${r.resource}/${r.namespace}/${r.name}`);

/** The verb and objectRef of a line, read before its objects when the line is as the apiserver writes it, else from the parsed line; undefined when it is no event. */
export function verbAndRef(text: string): { verb: string; ref: Record<string, unknown> } | undefined {
  const objects = [text.indexOf('"requestObject"'), text.indexOf('"responseObject"')].filter((i) => i >= 0);
  const head = objects.length ? text.slice(0, Math.min(...objects)) : text;
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
    return e && typeof e === 'object' && e.objectRef && typeof e.objectRef === 'object' ? { verb: str(e.verb), ref: e.objectRef as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For each object an update, patch or delete reads, the last line that reads it (by a 53-bit
 * hash of its objectRef): plain data, so a worker thread that replays a part of the log can be
 * handed it (`retains` answers from it).
 */
export type LaterReads = ReadonlyMap<number, number>;

/** Scans the log for the last line that reads each object's old state. */
export async function laterReads(source: TextSource, signal?: AbortSignal): Promise<LaterReads> {
  const last = new Map<number, number>();
  for await (const l of readLines(source)) {
    if (signal?.aborted) break;
    if (l.tooLong) continue;
    const read = verbAndRef(l.text);
    if (!read || !READS_OLD.has(read.verb)) continue;
    const { ref } = read;
    last.set(refHash({ apiGroup: str(ref.apiGroup), resource: str(ref.resource), namespace: str(ref.namespace), name: str(ref.name) }), l.line);
  }
  return last;
}

/**
 * Whether a later event reads the object an event leaves (`laterReads`' table). Objects without a
 * name in the objectRef (a create by generateName) are always kept.
 */
export const retains = (reads: LaterReads, ev: AuditWrite): boolean => !ev.objectRef.name || (reads.get(refHash(ev.objectRef)) ?? 0) > ev.line;
