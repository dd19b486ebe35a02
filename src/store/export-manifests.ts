/**
 * The static manifest directory as the Export menu writes it: a module of its own, imported when
 * the user exports, because it checks the set (./problems, which loads beside the first form).
 */
import { manifestDirectoryFiles, type ManifestDirLayout } from '../share/manifest-dir';
import { effectiveStaticOrder } from '../k8s/static-manifests';
import type { WorkspaceDoc } from './documents';
import { manifestSetOf } from './problems';
import { isStaticDoc, type WorkspaceState } from './workspace';

/** The static manifest directory, or why it is not written: the set does not load (the headline of its problems). */
export type ManifestDirectoryExport = { ok: true; files: Record<string, string> } | { ok: false; headline: string };

/**
 * The static manifest directory of the workspace (the documents marked static, or all when the
 * workspace is): relative path → text. A set that does not load is refused, as `check
 * --export-manifests` refuses it (a kube-apiserver started with it exits), unless `anyway`.
 */
export function exportManifestDirectory(
  docs: readonly WorkspaceDoc[],
  layout: ManifestDirLayout,
  state: Pick<WorkspaceState, 'staticManifests' | 'kubernetesVersion'> & Partial<Pick<WorkspaceState, 'staticOrder'>>,
  options: { anyway?: boolean } = {},
): ManifestDirectoryExport {
  const set = manifestSetOf(docs, state.kubernetesVersion, state.staticManifests);
  if (set?.headline && !options.anyway) return { ok: false, headline: set.headline };
  const sources = docs.map((d) => ({ object: d.object, ...(d.error || d.object === undefined ? {} : { text: d.text }) }));
  const isStatic = (i: number) => docs[i]!.object !== undefined && isStaticDoc(docs[i]!, state);
  return { ok: true, files: manifestDirectoryFiles(sources, isStatic, layout, undefined, effectiveStaticOrder(state.kubernetesVersion, state.staticOrder)) };
}
