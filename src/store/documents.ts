/**
 * Workspace documents: one Kubernetes object each, with the YAML text the user
 * sees. The text is never thrown away: while it does not parse, the document
 * keeps its last good object and carries the parse error.
 */
import { kindSpecOf, orderFields, paramSpecOf } from '../k8s';
import { parseDocuments, serializeDocuments, splitDocuments, type PositionIndex, type YamlError } from '../yaml';

export interface WorkspaceDoc {
  id: string;
  /**
   * The YAML of this one object, exactly as the user left it: as typed, imported or restored,
   * or, after a form edit, generated from the object (toText) on first read. Generated text is
   * a getter (a keystroke in the form does not serialize 200 webhooks; the YAML pane reads the
   * text after the commit): spreading a document (`{ ...doc }`) reads it, so the functions here
   * copy documents with `fieldsOf`.
   */
  readonly text: string;
  /** The last object the text parsed to. */
  object: unknown;
  /** Why the current text does not parse (the object is then the last good one). */
  error?: YamlError;
  /** Where Kubernetes reads the YAML differently from how it looks (`on` is true, `0123` is 83). */
  yamlWarnings?: YamlError[];
  /** Where it came from (a file name, "paste", a template). */
  origin?: string;
}

let counter = 0;
/** Ids need no crypto: randomUUID is missing on plain-http portals (not a secure context). */
export const newId = (): string => `d${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** YAML for one object, in kubectl-like key order. */
export const toText = (object: unknown): string => serializeDocuments([object]);

/** The generated text of each object (objects are immutable): one serialization per object, however many documents and reads. */
const generatedTexts = new WeakMap<object, string>();
function generatedText(object: unknown): string {
  if (typeof object !== 'object' || object === null) return toText(object);
  let text = generatedTexts.get(object);
  if (text === undefined) generatedTexts.set(object, (text = toText(object)));
  return text;
}

/** A document whose text is generated from its object when first read. */
function withGeneratedText(fields: Omit<WorkspaceDoc, 'text'>): WorkspaceDoc {
  const object = fields.object;
  return Object.defineProperty(fields, 'text', { get: () => generatedText(object), enumerable: true, configurable: true }) as WorkspaceDoc;
}

/** A document's fields but its text, without reading the text (a generated one is not serialized). */
function fieldsOf(doc: WorkspaceDoc): Omit<WorkspaceDoc, 'text'> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(doc)) if (key !== 'text') out[key] = doc[key as keyof WorkspaceDoc];
  return out as unknown as Omit<WorkspaceDoc, 'text'>;
}

export function docFromObject(object: unknown, origin?: string, text?: string): WorkspaceDoc {
  return text !== undefined ? { id: newId(), object, text, origin } : withGeneratedText({ id: newId(), object, origin });
}

/**
 * Where the fields of a text are (one index per text: the one parseDocuments built when the
 * text was typed, kept here, so the YAML pane's markers and jumps never parse it again).
 */
const positionsByText = new Map<string, PositionIndex | null>();
const MAX_KEPT_POSITIONS = 64;

function keepPositions(text: string, positions: PositionIndex | null): void {
  positionsByText.delete(text);
  positionsByText.set(text, positions);
  while (positionsByText.size > MAX_KEPT_POSITIONS) positionsByText.delete(positionsByText.keys().next().value as string);
}

/** The position index of a document's text, or undefined while the text does not parse to one object. */
export function docPositions(doc: WorkspaceDoc): PositionIndex | undefined {
  if (doc.error) return undefined;
  let hit = positionsByText.get(doc.text);
  if (hit === undefined) {
    const { documents } = parseDocuments(doc.text);
    hit = documents.length === 1 ? documents[0]!.positions : null;
  }
  keepPositions(doc.text, hit);
  return hit ?? undefined;
}

/** The document after the user typed `text`. */
export function withText(doc: WorkspaceDoc, text: string): WorkspaceDoc {
  const { documents, errors, warnings } = parseDocuments(text);
  keepPositions(text, errors.length === 0 && documents.length === 1 ? documents[0]!.positions : null);
  const fields = fieldsOf(doc);
  if (errors.length) return { ...fields, text, error: errors[0] };
  if (documents.length !== 1) {
    const message =
      documents.length === 0
        ? 'The document is empty: the form keeps the last good version until the text holds one object.'
        : `The text holds ${documents.length} objects; a workspace document holds one. Use Import to split them into documents.`;
    return { ...fields, text, error: { message, line: 1, column: 1 } };
  }
  return { ...fields, text, object: documents[0].object, error: undefined, yamlWarnings: warnings.length ? warnings : undefined };
}

/** The document after a form edit produced `object`: the text is generated again (when first read). */
export function withObject(doc: WorkspaceDoc, object: unknown): WorkspaceDoc {
  const ordered = kindSpecOf(object) ? orderFields(object) : object;
  return withGeneratedText({ ...fieldsOf(doc), object: ordered, error: undefined });
}

export interface ImportResult {
  docs: WorkspaceDoc[];
  /** Messages for the user: parse errors with line and column, List unwrapping, kinds kept read-only. */
  messages: { level: 'error' | 'info'; text: string }[];
}

/**
 * Split pasted or opened text into workspace documents. Objects keep their own
 * text slice (comments and formatting included) unless they came out of a List.
 * Text that does not parse is kept as a document of its own, with its error.
 */
export function importText(text: string, origin: string): ImportResult {
  const { documents, errors, warnings } = parseDocuments(text);
  const warned = new Set(warnings.map((w) => w.documentIndex));
  const messages: ImportResult['messages'] = errors.map((e) => ({
    level: 'error' as const,
    text: `${origin}: line ${e.line}, column ${e.column}: ${e.message}`,
  }));
  const docs = documents.map((d) => {
    // The document's own text, leading comments included (but not the --- marker line).
    const slice = !d.fromList ? text.slice(d.documentSource.startOffset, d.documentSource.endOffset).replace(/^---[^\n]*\n/, '') : undefined;
    const doc = docFromObject(d.object, origin, slice && slice.trim() ? ensureNewline(slice) : undefined);
    // Warnings carry positions in the whole text: read them again from the document's own text.
    return warned.has(d.documentIndex) && !d.fromList ? withText(doc, doc.text) : doc;
  });
  const fromList = documents.filter((d) => d.fromList).length;
  if (fromList) messages.push({ level: 'info', text: `${origin}: unwrapped ${fromList} object(s) from a List.` });
  const readOnly = docs.filter((d) => !kindSpecOf(d.object) && !paramSpecOf(d.object, docs.map((x) => x.object))).length;
  if (readOnly) messages.push({ level: 'info', text: `${origin}: ${readOnly} object(s) of other kinds are kept read-only and exported unchanged.` });
  // A document that does not parse is kept as a document of its own, with its text and error, so nothing is lost.
  const parsedIndexes = new Set(documents.map((d) => d.documentIndex));
  const chunks = splitDocuments(text);
  const failed = new Set(errors.filter((e) => e.documentIndex !== undefined && !parsedIndexes.has(e.documentIndex)).map((e) => e.documentIndex!));
  for (const i of failed) {
    const chunk = chunks[i];
    if (!chunk) continue;
    const chunkText = text.slice(chunk.start, chunk.end).replace(/^---[^\n]*\n/, '');
    docs.push(withText({ id: newId(), text: chunkText, object: undefined, origin }, chunkText));
  }
  if (!docs.length && errors.length && text.trim()) {
    // Nothing parsed and nothing could be cut out (e.g. the size limit): keep the whole text.
    docs.push({ id: newId(), text, object: undefined, origin, error: errors[0] });
  }
  return { docs, messages };
}

const ensureNewline = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`);

/** The display name of a document: metadata.name, else its kind. */
export function docTitle(doc: WorkspaceDoc): string {
  const o = doc.object as { kind?: unknown; metadata?: { name?: unknown; generateName?: unknown } } | undefined;
  const name = o?.metadata?.name ?? o?.metadata?.generateName;
  if (typeof name === 'string' && name) return name;
  return typeof o?.kind === 'string' ? `unnamed ${o.kind}` : 'untitled';
}

export function docKind(doc: WorkspaceDoc): string {
  const k = (doc.object as { kind?: unknown } | undefined)?.kind;
  return typeof k === 'string' ? k : 'Unknown';
}
