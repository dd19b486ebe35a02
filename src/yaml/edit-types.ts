/**
 * The types of applyEdits (./edit.ts): the edits it is given and the result it returns, and the
 * pieces its planning, splicing and checking pass between them. Design: ./README.md (Edit).
 */
import type { PathSegment } from '../base/path';
import type { PosEntry, PosNode } from './pos-tree';
import type { YamlError } from './types';

/** One structured change: the value at `path` (the project's path language, or its segments); `undefined` deletes. */
export interface PathEdit {
  path: string | readonly PathSegment[];
  value: unknown;
  /** For a list index: put `value` before that item instead of replacing it. */
  insert?: boolean;
  /** For a list index: move that item, with its comment lines, to index `moveTo` (`value` is the item). */
  moveTo?: number;
}

/** A PathEdit with its path parsed. */
export type Edit = { path: PathSegment[]; value: unknown; insert?: boolean; moveTo?: number };

/** Lines that differ: 1-based, inclusive, in the new text and in the old one (an empty range has end = start − 1). */
export interface ChangedLines {
  startLine: number;
  endLine: number;
  oldStartLine: number;
  oldEndLine: number;
}

export interface EditOptions {
  /** The wanted key order of the map at `mapPath` (e.g. kubectl's); only decides where a new key is inserted. */
  keyOrder?: (mapPath: readonly PathSegment[]) => readonly string[] | undefined;
}

export interface EditResult {
  /** The edited text (the input itself when refused or when nothing changed). */
  text: string;
  changed: ChangedLines[];
  /** Why the edits were refused (then `text` is the input, unchanged). */
  error?: YamlError;
}

/** One text edit: [start, end) of the current text becomes `insert`. */
export interface Splice {
  start: number;
  end: number;
  insert: string;
  seq: number;
  /** Length of the path it edits: at one point, the deeper container's text comes first. */
  depth: number;
  /** A scalar replaced in place: the tree's offsets can be shifted instead of parsed again. */
  scalar?: boolean;
}

/** Why an edit was refused, thrown inside applyEdits and returned as its error (applyEdits never throws). */
export class Refused {
  constructor(readonly message: string) {}
}

/** A node on an edit's path, with the map entry that holds it. */
export interface Step {
  node: PosNode;
  entry?: PosEntry;
}
