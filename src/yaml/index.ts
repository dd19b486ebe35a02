/**
 * The YAML layer: parse texts into Kubernetes objects with positions, and
 * write objects back. Pure TypeScript, runs in Node and the browser; never
 * throws to the caller.
 */
export { parseDocuments } from './parse';
export { serializeDocuments, serializeJSON } from './serialize';
export { documentAt, pathAt, pathAtLineColumn, positionOf } from './positions';
export { applyEdits } from './edit';
export { editsBetween } from './edit-diff';
export type { ChangedLines, EditOptions, EditResult, PathEdit } from './edit-types';
export { splitDocuments, type Chunk } from './split';
export { applyEditsWithParse, reparseDocuments, type TextChange } from './reparse';
export { decodeText } from './decode';
export { MAX_ALIAS_EXPANSION, MAX_DEPTH, MAX_DOCUMENTS, MAX_PROBLEMS_PER_DOCUMENT, MAX_TEXT_LENGTH } from './limits';
export type {
  DuplicateKey,
  FieldPosition,
  ListOrigin,
  ParseOptions,
  ParseResult,
  ParsedDocument,
  PathHit,
  PositionIndex,
  SerializeOptions,
  SourceRange,
  YamlError,
} from './types';
export {
  copiedSlot,
  isListSlot,
  listItemTexts,
  listItemTextsOf,
  writeList,
  type ListCut,
  type ListFrame,
  type ListItemText,
  type ListSlot,
} from './list-items';
