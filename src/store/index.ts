export {
  workspace,
  useWorkspace,
  useRefusedAt,
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
// Export as code: src/store/export-code.ts, imported by the Export menu when used (the code writers stay out of the first load).
export { exportDocs, type ExportOptions, type ExportResult } from './export';
// The static manifest directory: src/store/export-manifests.ts, imported by the Export menu when used (it checks the set).
// The checks themselves (./problems) load as a chunk of their own, beside the first form (./checks).
export { checks, loadChecks } from './checks';
export type {
  DocProblems,
  Problem,
  ProblemGroup,
  ProblemLine as ProblemListLine,
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
