/**
 * The position tree the YAML and JSON constructors build beside the values
 * (./construct.ts, ./json.ts), and their problems at text offsets.
 */
import type { PathSegment } from '../base/path';

/** Where a value is in the text (absolute 0-based offsets, end exclusive). */
export interface PosNode {
  kind: 'scalar' | 'seq' | 'map' | 'alias';
  start: number;
  end: number;
  flow: boolean;
  items?: PosNode[];
  entries?: PosEntry[];
}

export interface PosEntry {
  key: string;
  keyStart: number;
  keyEnd: number;
  node: PosNode;
}

/** A problem at a range of the text (absolute offsets). */
export interface TextProblem {
  message: string;
  start: number;
  end: number;
  path?: PathSegment[];
}
