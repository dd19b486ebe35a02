/**
 * Public types of the YAML layer. Everything here is plain data: no classes
 * the caller has to construct, no exceptions to catch.
 */
import type { PathSegment } from '../base/path';

/**
 * A problem in the text, with a 1-based line and column (UTF-16 code units,
 * as Monaco counts them). `documentIndex` is the 0-based position of the YAML
 * document in the text (every `---`-separated document counts, empty ones
 * too), absent for problems about the whole text (e.g. the size limit).
 */
export interface YamlError {
  message: string;
  line: number;
  column: number;
  documentIndex?: number;
  /** End of the offending range, when known (1-based, exclusive column). */
  endLine?: number;
  endColumn?: number;
  /** 0-based offset into the text of `line`/`column`. */
  offset?: number;
  /** Field path of the offending node inside its document, when known. */
  path?: string;
}

/**
 * A range of the text: 1-based lines and columns (end column exclusive) and
 * 0-based offsets (end exclusive).
 */
export interface SourceRange {
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
  startOffset: number;
  endOffset: number;
}

/** Where a field is: its key (absent for list items and the root) and its value. */
export interface FieldPosition {
  /** The path that was found: the requested one, or its nearest existing ancestor. */
  path: string;
  segments: PathSegment[];
  /** True when `path` is exactly the requested path; false when it is an ancestor. */
  exact: boolean;
  /** The key's range (`webhooks` in `webhooks: [...]`); absent for list items and the root. */
  key?: SourceRange;
  /**
   * The value's range. For a key with no value (`rules:`) it is an empty range
   * right after the key; for the root it is the whole document (or List item).
   */
  value: SourceRange;
}

/** What is at a point of the text. */
export interface PathHit {
  path: string;
  segments: PathSegment[];
  /** Whether the point is on the key of a map entry or inside a value. */
  part: 'key' | 'value';
}

/** Positions of one document's fields. Built lazily, on the first question. */
export interface PositionIndex {
  /** Position of a path (a string as in `src/k8s/path.ts`, or its segments). Never fails: falls back to the nearest existing ancestor, at worst the document. */
  positionOf(path: string | readonly PathSegment[]): FieldPosition;
  /** The deepest field at a 0-based offset of the whole text; undefined outside this document. */
  pathAt(offset: number): PathHit | undefined;
  /** The same by 1-based line and column. */
  pathAtLineColumn(line: number, column: number): PathHit | undefined;
}

/** How a document came out of a `kind: List` (or `*List`) wrapper. */
export interface ListOrigin {
  /** `kind` of the List (`List`, `ValidatingWebhookConfigurationList`, ...). */
  kind: string;
  /** Index of the item in `items`. */
  itemIndex: number;
  /** The List without its `items` (apiVersion, kind, metadata, ...), to re-wrap on export. */
  envelope: Record<string, unknown>;
  /** Range of the whole List document. */
  listSource: SourceRange;
}

export interface ParsedDocument {
  /**
   * The value, as Kubernetes (sigs.k8s.io/yaml) would read it: a plain object
   * (`Record<string, unknown>`) unless `allowNonObjects` was set.
   */
  object: unknown;
  /**
   * 0-based position of the YAML document in the text: the index into
   * `splitDocuments(text)` (every `---`-separated document counts, empty ones
   * too). Items of one List share their List's index.
   */
  documentIndex: number;
  /** Range of the object's content (of the List item, for a List item) in the text, comments around it excluded. */
  source: SourceRange;
  /** Range of the whole YAML document it came from: comments and its `---` line included (the List's document for List items). */
  documentSource: SourceRange;
  positions: PositionIndex;
  fromList?: ListOrigin;
}

export interface ParseOptions {
  /** Unwrap `kind: List` / `kind: *List` into their items. Default true. */
  unwrapLists?: boolean;
  /** Accept documents that are not mappings (scalars, sequences). Default false: they are errors. */
  allowNonObjects?: boolean;
  /** Refuse texts longer than this many characters. Default MAX_TEXT_LENGTH (10 MiB). */
  maxTextLength?: number;
}

/**
 * A key given twice in one mapping, at its later occurrence. The value read is the last one, as
 * the apiserver's decoders keep it under fieldValidation Warn and Ignore; whether it is an error,
 * a warning or nothing is the field validation mode's call (src/k8s field-validation.ts).
 */
export interface DuplicateKey extends YamlError {
  key: string;
  /** Field path of the key (`metadata.name`), inside its document (or its List). */
  path: string;
  /** Whether the document was read as JSON or as YAML: the apiserver words the two differently. */
  syntax: 'json' | 'yaml';
}

export interface ParseResult {
  documents: ParsedDocument[];
  /** Problems that make a document unusable (that document is not in `documents`). */
  errors: YamlError[];
  /** Things Kubernetes reads differently from what the text seems to say (e.g. `on` is `true`). */
  warnings: YamlError[];
  /** Keys given twice in the documents that were read (the last value is in the object). */
  duplicateKeys: DuplicateKey[];
}

export interface SerializeOptions {
  /** Indent list items under their key (`key:\n  - a`, default true) or not (`key:\n- a`, as kubectl prints). */
  indentSequences?: boolean;
}
