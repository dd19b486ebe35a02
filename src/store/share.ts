/**
 * Share links and workspace files, store side: the tab's workspace (documents, test data,
 * target release) as a workspace file (src/share), and opening one in place of the tab's
 * workspace (one undo step brings the documents back).
 */
import { parseWorkspaceFile, toWorkspaceFile, testsDataOf, WORKSPACE_FORMAT, type WorkspaceFile } from '../share';
import { isKubernetesVersion, WORKSPACE_GATES, type KubernetesVersion, type WorkspaceGate } from '../base/releases';
import { DEFAULT_STATIC_ORDER, type StaticOrder } from '../k8s/static-manifests';
import { isPlatformId, type PlatformId } from '../base/platforms';
import { DEFAULT_FIELD_VALIDATION, type FieldValidation } from '../k8s/field-validation';
import { docTitle, newId, withText } from './documents';
import { getTestsData, setTestsData } from './test-inputs';
import { sampleSnapshot, workspace } from './workspace';
import { openScratchpad, scratchpad, scratchpadFile } from './scratchpad';

/** The target release, when the workspace store has one (it is optional in older states). */
function kubernetesVersionOf(): KubernetesVersion | undefined {
  const v = (workspace.getState() as { kubernetesVersion?: unknown }).kubernetesVersion;
  return isKubernetesVersion(v) ? v : undefined;
}

/** The target platform, when there is one. */
function platformOfState(): PlatformId | undefined {
  const p = (workspace.getState() as { platform?: unknown }).platform;
  return isPlatformId(p) ? p : undefined;
}

/** A file's target: its platform (which brings its Kubernetes release) or its Kubernetes release. */
function applyTarget(ws: WorkspaceFile): void {
  const state = workspace.getState() as { setKubernetesVersion?: (v: KubernetesVersion) => void; setPlatform?: (p: PlatformId) => void };
  if (ws.platform && state.setPlatform) state.setPlatform(ws.platform);
  else if (ws.kubernetesVersion && state.setKubernetesVersion) state.setKubernetesVersion(ws.kubernetesVersion);
}

/** The whole workspace, or only the selected document (with its own test data), as a workspace file. */
export function currentWorkspaceFile(scope: 'workspace' | 'document'): WorkspaceFile {
  const s = workspace.getState();
  const docs = scope === 'document' ? s.docs.filter((d) => d.id === s.selectedId) : s.docs;
  const tests = getTestsData();
  const data = scope === 'document' ? { ...tests, scenarios: [], simulator: undefined } : tests;
  const file = toWorkspaceFile(
    docs.map((d) => ({
      id: d.id,
      text: d.text,
      name: docTitle(d),
      // an opened file's path (a source test finds the files it names by it); other origins (a template, a paste) are not kept
      ...(d.origin && /\.(ya?ml|json)$/i.test(d.origin) ? { file: d.origin } : {}),
      ...(d.separator ? { separator: d.separator } : {}),
      ...(d.static ? { static: true } : {}),
      ...(d.listItem ? { listItem: d.listItem } : {}),
    })),
    data,
    {
      kubernetesVersion: kubernetesVersionOf(),
      staticManifests: s.staticManifests === true,
      platform: platformOfState(),
      fieldValidation: s.fieldValidation,
      staticOrder: s.staticOrder,
      featureGates: s.featureGates,
    },
  );
  return scope === 'workspace' ? { ...file, scratchpad: scratchpadFile() } : file;
}

/** Only the CEL scratchpad (and the target release) as a workspace file: its link opens the scratchpad, the workspace untouched. */
export function scratchpadWorkspaceFile(): WorkspaceFile {
  return { ...toWorkspaceFile([], undefined, { kubernetesVersion: kubernetesVersionOf(), platform: platformOfState() }), scratchpad: scratchpadFile() };
}

/** Whether a workspace file holds only a scratchpad (opened without replacing the workspace). */
export const isScratchpadOnly = (ws: WorkspaceFile): boolean => ws.documents.length === 0 && ws.scratchpad !== undefined;

/** Open a scratchpad-only file: the scratchpad (shown at once) and its target release. */
export function openScratchpadFile(ws: WorkspaceFile): void {
  if (!ws.scratchpad) return;
  applyTarget(ws);
  openScratchpad(ws.scratchpad);
}

/** Whether the tab holds work of its own (anything but an empty workspace or the untouched first-visit sample). */
export function hasOwnWork(): boolean {
  const docs = workspace.getState().docs;
  if (docs.length === 0) return false;
  const sample = sampleSnapshot().docs;
  return docs.length !== sample.length || docs.some((d, i) => d.text !== sample[i]!.text);
}

/** Replace the tab's workspace with a workspace file's documents and test data. */
export function openWorkspaceFile(ws: WorkspaceFile, origin = 'shared link'): void {
  const docs = ws.documents.map((d) =>
    withText(
      {
        id: newId(),
        text: '',
        object: undefined,
        origin: d.file ?? (d.name ? `${origin}: ${d.name}` : origin),
        ...(d.separator ? { separator: d.separator } : {}),
        ...(d.static ? { static: true } : {}),
        ...(d.listItem ? { listItem: d.listItem } : {}),
      },
      d.text,
    ),
  );
  const state = workspace.getState();
  state.replaceAll(docs);
  setTestsData(
    testsDataOf(
      ws,
      docs.map((d) => d.id),
      docs.map((d) => docTitle(d)),
    ),
  );
  applyTarget(ws);
  (state as { setStaticManifests?: (on: boolean) => void }).setStaticManifests?.(ws.staticManifests === true);
  (state as { setFieldValidation?: (mode: FieldValidation) => void }).setFieldValidation?.(ws.fieldValidation ?? DEFAULT_FIELD_VALIDATION);
  (state as { setStaticOrder?: (order: StaticOrder) => void }).setStaticOrder?.(ws.staticOrder ?? DEFAULT_STATIC_ORDER);
  const gates = state as { setFeatureGate?: (gate: WorkspaceGate, on: boolean) => void };
  for (const g of WORKSPACE_GATES) gates.setFeatureGate?.(g, ws.featureGates?.includes(g) === true);
  if (ws.scratchpad) scratchpad.setState(ws.scratchpad);
}

/**
 * An opened file that is a workspace file (Share… → Download workspace file): opened in place
 * of the tab's workspace once `confirmReplace` agrees (asked only when the tab holds work of
 * its own). Returns false for any other text (the caller imports it as YAML).
 */
export function openWorkspaceText(text: string, name: string, confirmReplace: (documents: number) => boolean): boolean {
  if (!text.trimStart().startsWith('{') || !text.includes(WORKSPACE_FORMAT)) return false;
  const r = parseWorkspaceFile(text);
  const ws = workspace.getState();
  if (!r.ok) {
    ws.notify({ level: 'error', text: `${name}: ${r.error}. Nothing was changed.` });
    return true;
  }
  if (hasOwnWork() && !confirmReplace(r.workspace.documents.length)) return true;
  openWorkspaceFile(r.workspace, name);
  for (const w of r.warnings) ws.notify({ level: 'info', text: `${name}: ${w}` });
  ws.notify({ level: 'info', text: `Opened the workspace file ${name}: ${r.workspace.documents.length} document(s).` });
  return true;
}
