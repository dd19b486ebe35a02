/**
 * Workspace documents: one Kubernetes object each, with the YAML text the user
 * sees. The text is never thrown away: while it does not parse, the document
 * keeps its last good object and carries the parse error.
 */
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { kindSpecOf } from '../k8s/registry/kinds';
import { orderFields } from '../k8s/registry/order';
import { paramSpecOf } from '../k8s/registry/params';
import { isSourceDocument } from '../migrate/documents';
import { getIn } from '../k8s/edit';
import { isObject, reuseUnchanged } from '../base/json';
import {
  applyEditsWithParse,
  copiedSlot,
  listItemTextsOf,
  parseDocuments,
  reparseDocuments,
  serializeDocuments,
  splitDocuments,
  type ListCut,
  type ListSlot,
  type ParseResult,
  type PositionIndex,
  type TextChange,
  type DuplicateKey,
  type YamlError,
} from '../yaml';

export { copiedSlot, type ListSlot };

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
  /** Keys given twice in the text (the object holds the last value): the field validation mode makes them errors, warnings or nothing. */
  duplicateKeys?: DuplicateKey[];
  /** Where it came from (a file name, "paste", a template). */
  origin?: string;
  /**
   * What stood before this document in the file it was imported from: its `---` line (with
   * any comment on it) and comment-only documents before it. Export writes it back, so a file
   * nobody edited exports byte-identical.
   */
  separator?: string;
  /** Marked "static manifest": checked as the apiserver's manifest loader does and simulated before API objects. */
  static?: boolean;
  /**
   * The `kind: List` this object was imported as an item of, and where it sat in it: export
   * writes the List back around the items (src/yaml/list-items.ts), so an untouched List exports
   * byte-identical and an edited item changes only its own lines. The document's text is the
   * item's own slice of the List (its indentation under `items` taken off).
   */
  listItem?: ListSlot;
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
 * A document whose text is written now from `object`, as the YAML pane shows it (the sample
 * workspace, a template): from then on it is a text like any other, so a structured change
 * written into it is the smallest text edit from the first one on (a generated text would be
 * generated again, in API key order, by the first change).
 */
export function docWithText(object: unknown, origin: string): WorkspaceDoc {
  return withText(docFromObject(undefined, origin, ''), toText(object));
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

/**
 * The parse of each recent text that holds one object (a few: a 5 MB text's tree is large): the
 * next keystroke on it is read in part from it (reparseDocuments: only the list element or entry
 * the edit is in), and a form edit of it starts from its tree (applyEditsWithParse).
 */
const parsedByText = new Map<string, ParseResult>();
const MAX_KEPT_PARSES = 4;

function keepParsed(text: string, parsed: ParseResult): void {
  if (parsed.errors.length || parsed.documents.length !== 1) return;
  parsedByText.delete(text);
  parsedByText.set(text, parsed);
  while (parsedByText.size > MAX_KEPT_PARSES) parsedByText.delete(parsedByText.keys().next().value as string);
}

/** The parse of `text` went to another text (its tree was moved): forget it and the positions over it. */
function forgetParsed(text: string): void {
  parsedByText.delete(text);
  positionsByText.delete(text);
}

/**
 * Undo and redo bring back another version of a document (`to`) whose text's parse went on to
 * the version after it (a keystroke's parse moves the tree, src/yaml reparse.ts): read it in part
 * from the version on screen (`from`), as a keystroke is, instead of parsing a 5 MB text whole
 * on the next keystroke or marker. Nothing happens where only a whole parse can tell (the next
 * read parses the whole text, as before).
 */
export function carryParse(from: WorkspaceDoc, to: WorkspaceDoc): void {
  if (from.id !== to.id || from.error || to.error || hasGeneratedText(from) || hasGeneratedText(to)) return;
  if (from.text === to.text || parsedByText.has(to.text)) return;
  const prev = parsedByText.get(from.text);
  const part = prev && reparseDocuments(from.text, prev, to.text, { object: from.object });
  if (!part) return;
  forgetParsed(from.text);
  keepPositions(to.text, part.documents[0]!.positions);
  keepParsed(to.text, part);
}

/** Whether the parse of a document's text is at hand (its next keystroke is read in part, its positions without a parse). */
export const hasKeptParse = (doc: WorkspaceDoc): boolean => !doc.error && !hasGeneratedText(doc) && parsedByText.has(doc.text);

/** The position index of a document's text, or undefined while the text does not parse to one object. */
export function docPositions(doc: WorkspaceDoc): PositionIndex | undefined {
  if (doc.error) return undefined;
  let hit = positionsByText.get(doc.text);
  if (hit === undefined) {
    const parsed = parseDocuments(doc.text);
    hit = parsed.documents.length === 1 ? parsed.documents[0]!.positions : null;
    keepParsed(doc.text, parsed);
  }
  keepPositions(doc.text, hit);
  return hit ?? undefined;
}

/**
 * The document after the user typed `text` (`change`: where it differs from the document's
 * text, when the caller knows). An edit inside one list element or mapping entry of a text
 * parsed before is read in part (src/yaml reparse.ts), the whole text otherwise.
 */
export function withText(doc: WorkspaceDoc, text: string, change?: TextChange): WorkspaceDoc {
  // (a generated text is not read: it has no parse, and reading it would serialize the object)
  const prev = doc.error || hasGeneratedText(doc) ? undefined : parsedByText.get(doc.text);
  const part = prev && reparseDocuments(doc.text, prev, text, { change, object: doc.object });
  if (part) forgetParsed(doc.text);
  const parsed = part ?? parseDocuments(text);
  const { documents, errors, warnings, duplicateKeys } = parsed;
  keepPositions(text, errors.length === 0 && documents.length === 1 ? documents[0]!.positions : null);
  keepParsed(text, parsed);
  const fields = fieldsOf(doc);
  if (errors.length) return { ...fields, text, error: errors[0] };
  if (documents.length !== 1) {
    const message =
      documents.length === 0
        ? 'The document is empty: the form keeps the last good version until the text holds one object.'
        : `The text holds ${documents.length} objects; a workspace document holds one. Use Import to split them into documents.`;
    return { ...fields, text, error: { message, line: 1, column: 1 } };
  }
  // Subtrees the edit did not touch keep their identity: validation and lints, memoised per
  // webhook object, then run again only for the webhooks that changed.
  return {
    ...fields,
    text,
    object: reuseUnchanged(doc.object, documents[0].object),
    error: undefined,
    yamlWarnings: warnings.length ? warnings : undefined,
    duplicateKeys: duplicateKeys.length ? duplicateKeys : undefined,
  };
}

/** Whether the document's text is still generated from its object (there is no text of the user's to keep). */
export const hasGeneratedText = (doc: WorkspaceDoc): boolean => Object.getOwnPropertyDescriptor(doc, 'text')?.get !== undefined;

/** A structured change written into a document, or why it was not (then `doc` is the document unchanged). */
export interface ObjectEdit {
  doc: WorkspaceDoc;
  refused?: string;
}

/**
 * The document after a structured change (a form edit, a quick fix, Convert to v1, …) produced
 * `object`. The change is written into the user's text as the smallest text edit (applyEdits:
 * comments, quoting, style and key order stay; the kubectl order only decides where a new key
 * goes). It is refused, with nothing changed, while the text does not parse (the text is the
 * source of truth and is never replaced behind the user's back) or where it cannot be edited
 * exactly (an edit through an alias). A document whose text is still generated (a quick fix's
 * new document, a List item that could not be cut out exactly) keeps generating it, in kubectl
 * key order, when first read.
 */
export function editObject(doc: WorkspaceDoc, object: unknown): ObjectEdit {
  if (hasGeneratedText(doc) || doc.object === undefined) {
    const ordered = kindSpecOf(object) ? orderFields(object) : object;
    return { doc: withGeneratedText({ ...fieldsOf(doc), object: ordered, error: undefined }) };
  }
  if (object === doc.object) return { doc };
  if (doc.error) {
    return {
      doc,
      refused: `The YAML does not parse (line ${doc.error.line}: ${doc.error.message}). Fix it first: changes are written into the YAML, and nothing was changed.`,
    };
  }
  let ordered: unknown;
  const keyOrder = kindSpecOf(object)
    ? (path: readonly (string | number)[]) => {
        const v = getIn((ordered ??= orderFields(object)), path);
        return isObject(v) ? Object.keys(v) : undefined;
      }
    : undefined;
  const { result: r, parsed, consumed } = applyEditsWithParse(doc.text, parsedByText.get(doc.text), doc.object, object, { keyOrder });
  if (consumed) forgetParsed(doc.text);
  if (parsed) {
    keepParsed(r.text, parsed);
    keepPositions(r.text, parsed.documents[0]!.positions);
  }
  if (r.error) return { doc, refused: r.error.message };
  const next: WorkspaceDoc = { ...fieldsOf(doc), text: r.text, object, error: undefined };
  // Warnings carry lines, which the edit may have moved: read them again.
  return { doc: doc.yamlWarnings || doc.duplicateKeys ? withText(next, r.text) : next };
}

/** `editObject(doc, object).doc`: the edited document, or the document unchanged when the edit is refused. */
export function withObject(doc: WorkspaceDoc, object: unknown): WorkspaceDoc {
  return editObject(doc, object).doc;
}

export interface ImportResult {
  docs: WorkspaceDoc[];
  /** Messages for the user: parse errors with line and column, List unwrapping, kinds kept read-only. */
  messages: { level: 'error' | 'info'; text: string }[];
}

/**
 * Split pasted or opened text into workspace documents. Objects keep their own
 * text slice (comments and formatting included); the items of a List theirs too, with the
 * List's indentation taken off (`listItem` says how to write the List back), unless the List
 * cannot be cut exactly (then the items' text is generated). Text that does not parse is kept
 * as a document of its own, with its error.
 */
export function importText(input: string, origin: string): ImportResult {
  // A BOM is no column: it stays out of the texts (the YAML pane has none, and positions are the
  // pane's) and is written back before the first document, as part of its separator.
  const bom = input.charCodeAt(0) === 0xfeff ? input[0]! : '';
  const text = bom ? input.slice(1) : input;
  const { documents, errors, warnings, duplicateKeys } = parseDocuments(text);
  const warned = new Set([...warnings, ...duplicateKeys].map((w) => w.documentIndex));
  const messages: ImportResult['messages'] = errors.map((e) => ({
    level: 'error' as const,
    text: `${origin}: line ${e.line}, column ${e.column}: ${e.message}`,
  }));
  const chunks = splitDocuments(text);
  // What precedes each `---` document's own text: its marker line, and documents holding only comments before it.
  const separators = new Map<number, string>();
  let lead = 0;
  const parsedIndexes = new Set(documents.map((d) => d.documentIndex));
  const failed = new Set(errors.filter((e) => e.documentIndex !== undefined && !parsedIndexes.has(e.documentIndex)).map((e) => e.documentIndex!));
  chunks.forEach((c, i) => {
    if (!parsedIndexes.has(i) && !failed.has(i)) return; // comments only: carried by the next document
    const marker = /^---[^\n]*(?:\n|$)/.exec(text.slice(c.start, c.end))?.[0] ?? '';
    separators.set(i, text.slice(lead, c.start) + marker);
    lead = c.end;
  });
  // Documents holding only comments after the last one stay with it, at the end of its text.
  const lastContent = Math.max(-1, ...separators.keys());
  const endOf = (i: number): number => (i === lastContent ? text.length : chunks[i]!.end);
  const indexOf = new Map<WorkspaceDoc, number>();
  // Where the document's own text starts: after its --- marker line (leading comments included).
  const ownStart = (i: number): number => {
    const c = chunks[i]!;
    return c.start + (/^---[^\n]*(?:\n|$)/.exec(text.slice(c.start, c.end))?.[0].length ?? 0);
  };
  const ownText = (i: number): string => text.slice(ownStart(i), endOf(i));
  // A List's items: each its own slice of the List, where the List can be cut exactly (else their text is generated).
  const lists = new Map<number, (ListCut & { id: string }) | undefined>();
  const listOf = (i: number) => {
    if (!lists.has(i)) {
      const cut = listItemTextsOf(
        text,
        ownStart(i),
        endOf(i),
        documents.filter((d) => d.documentIndex === i),
      );
      lists.set(i, cut ? { ...cut, id: newId() } : undefined);
    }
    return lists.get(i);
  };
  const docs = documents.map((d) => {
    const list = d.fromList ? listOf(d.documentIndex) : undefined;
    const item = list?.items[d.fromList!.itemIndex];
    const slice = item ? item.text : !d.fromList ? ownText(d.documentIndex) : undefined;
    const doc = docFromObject(d.object, origin, slice?.trim() ? slice : undefined);
    if (list && item) doc.listItem = { list: list.id, frame: list.frame, gap: item.gap, indent: item.indent, newline: item.newline };
    if (slice === text && documents.length === 1 && !errors.length && !warnings.length && !duplicateKeys.length) {
      // The file is this one document: its parse is the document's (the YAML pane's positions, the next keystroke).
      keepParsed(text, { documents, errors, warnings, duplicateKeys });
      keepPositions(text, d.positions);
    }
    const separator = !d.fromList || d.fromList.itemIndex === 0 ? separators.get(d.documentIndex) : undefined;
    if (separator) doc.separator = separator;
    // Warnings carry positions in the whole text: read them again from the document's own text.
    const out = warned.has(d.documentIndex) && !hasGeneratedText(doc) ? withText(doc, doc.text) : doc;
    indexOf.set(out, d.documentIndex);
    return out;
  });
  const fromList = documents.filter((d) => d.fromList).length;
  if (fromList) messages.push({ level: 'info', text: `${origin}: unwrapped ${fromList} object(s) from a List.` });
  const readOnly = docs.filter(
    (d) =>
      !kindSpecOf(d.object) &&
      !isSourceDocument(d.object) &&
      !paramSpecOf(
        d.object,
        docs.map((x) => x.object),
      ),
  ).length;
  if (readOnly) messages.push({ level: 'info', text: `${origin}: ${readOnly} object(s) of other kinds are kept read-only and exported unchanged.` });
  // A document that does not parse is kept as a document of its own, with its text and error, so nothing is lost.
  for (const i of failed) {
    const chunk = chunks[i];
    if (!chunk) continue;
    const chunkText = text.slice(chunk.start, endOf(i)).replace(/^---[^\n]*(?:\n|$)/, '');
    const at = docs.findIndex((d) => (indexOf.get(d) ?? Infinity) > i);
    const separator = separators.get(i);
    const doc = withText({ id: newId(), text: chunkText, object: undefined, origin, ...(separator ? { separator } : {}) }, chunkText);
    indexOf.set(doc, i);
    docs.splice(at < 0 ? docs.length : at, 0, doc);
  }
  if (!docs.length && errors.length && text.trim()) {
    // Nothing parsed and nothing could be cut out (e.g. the size limit): keep the whole text.
    docs.push({ id: newId(), text, object: undefined, origin, error: errors[0] });
  }
  if (bom && docs[0]) docs[0].separator = bom + (docs[0].separator ?? '');
  return { docs, messages };
}

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

/** The document marked a static manifest, or not (its text untouched; a generated text stays generated). */
export function withStatic(doc: WorkspaceDoc, on: boolean): WorkspaceDoc {
  const { static: _was, ...fields } = fieldsOf(doc);
  const next = on ? { ...fields, static: true } : fields;
  return hasGeneratedText(doc) ? withGeneratedText(next) : { ...next, text: doc.text };
}
