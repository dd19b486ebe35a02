/**
 * "What changes from release A to B" for the workspace: the CLI's `check --upgrade-from` run
 * (src/cli/upgrade.ts compareReleases, over src/check/upgrade.ts) on the workspace's documents
 * and its saved cases, in the browser. Each document is one file, named by its id (a change
 * links back to its document and path); the saved cases are the workspace file the app shares.
 * Loaded when the panel is first used: it brings the CLI's check and cases runner.
 */
import { kindOf, nameOf } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import type { FileSystem } from '../cli/inputs';
import { compareReleases, type UpgradeComparison } from '../cli/upgrade';
import { currentWorkspaceFile } from './share';
import { workspace } from './workspace';

export type { UpgradeComparison };

/** The name the saved cases go by in the comparison (a case's change is at a path of it). */
export const CASES_FILE = 'workspace.json';

/** One file, read-only, in memory: what the cases runner reads the workspace file from. */
function oneFile(name: string, text: string): FileSystem {
  const bytes = new TextEncoder().encode(text);
  const missing = (path: string) => Object.assign(new Error(`${path}: no such file`), { code: 'ENOENT' });
  return {
    stat: (path) => {
      if (path !== name) throw missing(path);
      return { isDirectory: () => false, isFile: () => true, size: bytes.length };
    },
    readdir: (path) => {
      throw missing(path);
    },
    readFile: (path) => {
      if (path !== name) throw missing(path);
      return bytes;
    },
    join: (a, b) => `${a}/${b}`,
    dirname: (path) => path.replace(/\/[^/]*$/, '') || '.',
    readStdin: () => Promise.resolve(new Uint8Array()),
  };
}

/** The workspace's changes from `from` to `to`, or why it compares nothing. */
export function compareWorkspace(from: KubernetesVersion, to: KubernetesVersion): ReturnType<typeof compareReleases> {
  const s = workspace.getState();
  const file = currentWorkspaceFile('workspace');
  const files = s.docs.map((d) => ({ name: d.id, text: d.text }));
  return compareReleases({ fieldValidation: s.fieldValidation, cases: CASES_FILE }, from, to, files, oneFile(CASES_FILE, JSON.stringify(file)));
}

/**
 * The document and path a change points at: its own document, or for a saved case (in the
 * workspace file) the policy it tests.
 */
export function changeTarget(problem: { file: string; kind: string; name: string; field: string }): { docId: string; path: string } | undefined {
  const docs = workspace.getState().docs;
  if (problem.file !== CASES_FILE) return docs.some((d) => d.id === problem.file) ? { docId: problem.file, path: problem.field } : undefined;
  const policy = docs.find((d) => kindOf(d.object) === problem.kind && nameOf(d.object) === problem.name);
  return policy ? { docId: policy.id, path: '' } : undefined;
}
