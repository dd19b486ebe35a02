/**
 * Reading js-yaml's event stream before anything is built (./construct.ts): where a
 * document starts and ends, and what its aliases would expand to (billion laughs are
 * refused from the events alone, before any copying); and its syntax errors as problems.
 */
import { EVENT_ID, type Event } from 'js-yaml';
import type { PathSegment } from '../base/path';
import { MAX_ALIAS_EXPANSION, MAX_DEPTH } from './limits';
import type { TextProblem } from './pos-tree';

export function aliasBombProblem(start: number, end: number, path?: PathSegment[]): TextProblem {
  return {
    message:
      `Refused: aliases in this document expand to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} values ` +
      `(an alias/anchor bomb, or a document far larger than any admission configuration)`,
    start,
    end,
    ...(path ? { path } : {}),
  };
}

/**
 * Before building anything: add up what the document's aliases expand to,
 * from the events alone (no copying), and refuse a document past the limit.
 */
export function aliasBomb(src: string, base: number, events: Event[], from: number): TextProblem | undefined {
  const anchors = new Map<string, number>();
  // Per open collection: its size so far, and its anchor name (or '').
  const sizes: number[] = [];
  const names: string[] = [];
  let expanded = 0;
  const add = (n: number) => {
    if (sizes.length > 0) sizes[sizes.length - 1]! += n;
  };
  for (let i = from; i < events.length; i++) {
    const ev = events[i]!;
    switch (ev.type) {
      case EVENT_ID.SCALAR:
        if (ev.anchorStart >= 0) anchors.set(src.slice(ev.anchorStart, ev.anchorEnd), 1);
        add(1);
        break;
      case EVENT_ID.ALIAS: {
        const size = anchors.get(src.slice(ev.anchorStart, ev.anchorEnd)) ?? 1;
        expanded += size;
        if (expanded > MAX_ALIAS_EXPANSION) return aliasBombProblem(base + ev.anchorStart - 1, base + ev.anchorEnd);
        add(size);
        break;
      }
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING:
        sizes.push(1);
        names.push(ev.anchorStart >= 0 ? src.slice(ev.anchorStart, ev.anchorEnd) : '');
        break;
      case EVENT_ID.POP: {
        if (sizes.length === 0) return undefined; // the document's own POP
        const size = sizes.pop()!;
        const name = names.pop()!;
        if (name) anchors.set(name, size);
        add(size);
        break;
      }
      case EVENT_ID.DOCUMENT:
        return undefined;
    }
  }
  return undefined;
}

/** Offset (in the parsed source) of the first node of a document, or -1 when it has none. */
export function firstOffset(events: Event[], i: number): number {
  const ev = events[i];
  if (!ev) return -1;
  switch (ev.type) {
    case EVENT_ID.SCALAR:
      return ev.anchorStart >= 0 ? ev.anchorStart - 1 : ev.tagStart >= 0 ? ev.tagStart : ev.valueStart;
    case EVENT_ID.MAPPING:
    case EVENT_ID.SEQUENCE:
      return ev.anchorStart >= 0 ? ev.anchorStart - 1 : ev.tagStart >= 0 ? ev.tagStart : ev.start;
    case EVENT_ID.ALIAS:
      return ev.anchorStart - 1;
    default:
      return -1;
  }
}

/** Index just past the POP that closes the document opened before `i`. */
export function skipToDocumentEnd(events: Event[], i: number): number {
  let depth = 1;
  while (i < events.length && depth > 0) {
    const t = events[i]!.type;
    if (t === EVENT_ID.POP) depth--;
    else if (t === EVENT_ID.DOCUMENT || t === EVENT_ID.MAPPING || t === EVENT_ID.SEQUENCE) depth++;
    i++;
  }
  return i;
}

/** js-yaml's error for the text [start, end) as a problem at its position. */
export function syntaxProblem(e: unknown, start: number, end: number): TextProblem {
  const err = e as { reason?: unknown; message?: unknown; mark?: { position?: unknown } };
  const reason = typeof err?.reason === 'string' ? err.reason : typeof err?.message === 'string' ? err.message : String(e);
  let pos = typeof err?.mark?.position === 'number' ? Math.min(start + err.mark.position, end) : start;
  let message = `YAML syntax error: ${friendlyReason(reason)}`;
  if (pos >= end && end > start) {
    // At the very end of the document: point at its last character, not at the next document's `---`.
    pos = end - 1;
    message += ' (at the end of the document: is a bracket or quote left open?)';
  }
  return { message, start: pos, end: pos };
}

function friendlyReason(reason: string): string {
  if (/maxDepth|nesting/i.test(reason)) {
    return `nested more than ${MAX_DEPTH} levels deep (the limit for one document)`;
  }
  return reason;
}
