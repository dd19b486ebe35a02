export {
  workspace,
  useWorkspace,
  isStaticDoc,
  createWorkspace,
  sampleSnapshot,
  type Workspace,
  type WorkspaceStore,
  type Snapshot,
  type SavedWorkspace,
  type Notice,
} from './workspace';
export { docTitle, docKind, docPositions, toText, importText, type WorkspaceDoc } from './documents';
export { loadSaved, restoreWorkspace, startAutosave, storageBackend, STORAGE_KEY, UNSAVED_KEY, type WorkspaceBackend } from './persist';
export { openIndexedDbBackend, SCRATCHPAD_KEY, TEST_INPUTS_KEY } from './idb';
export { persistScratchpad, SCRATCHPAD_FALLBACK_KEY } from './scratchpad';
export { exportCode, exportDocs, exportManifestDirectory, type ExportOptions, type ExportResult, type ManifestDirectoryExport } from './export';
export {
  checkedBefore,
  docProblems,
  groupProblems,
  objectProblems,
  setCelCompiler,
  invalidateProblems,
  type DocProblems,
  type Problem,
  type ProblemGroup,
  type ProblemLine as ProblemListLine,
} from './problems';
export { connectCel, startCel } from './cel';
export {
  testInputs,
  useTestInputs,
  getTestsData,
  setTestsData,
  persistTestInputs,
  TEST_INPUTS_FALLBACK_KEY,
  draftOf,
  useDraft,
  convertDraft,
  TEST_INPUTS_STORAGE_KEY,
  type TestInputs,
} from './test-inputs';
// Policy runs (src/store/policy-run.ts) are imported directly by the lazily loaded policy panel, to keep src/policy out of the first bundle.
export { openFix, closeFix, useOpenFix, previewFix, applyOpenFix, type FixTarget, type FixPreview, type DiffLine } from './fixes';
export { caInspection, useCaInspection } from './ca-bundles';
// How opened and dropped files become text: the same check as the CLI's (UTF-8 only, no binary).
export { decodeText } from '../yaml/decode';
