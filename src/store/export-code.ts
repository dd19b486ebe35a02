/**
 * Export as code (src/share/code): a module of its own, which the Export menu imports when the
 * user exports, so that the code writers stay out of the first load.
 */
import { deepEqual, type Obj } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import { schemaAsset } from '../cel';
import { type CodeDoc, type CodeExport, type CodeLanguage, codeDocsOf, exportAsCode } from '../share/code';
import type { WorkspaceDoc } from './documents';

/**
 * The documents as code (src/share/code): each document's own text read with its comments,
 * the target release's schema loaded for the typed forms. Documents whose text does not parse
 * are exported from their last good version, without comments, and listed in `stale`.
 */
export async function exportCode(
  docs: readonly WorkspaceDoc[],
  language: CodeLanguage,
  options: { kubernetesVersion: KubernetesVersion; selfContained?: boolean },
): Promise<CodeExport & { stale: WorkspaceDoc[] }> {
  const usable = docs.filter((d) => d.object !== undefined);
  const codeDocs: CodeDoc[] = usable.map((d) => {
    const fromText = d.error ? undefined : codeDocsOf(d.text).docs.find((c) => deepEqual(c.object, d.object));
    return fromText ?? { object: d.object as Obj };
  });
  const schemas = await schemaAsset(options.kubernetesVersion);
  return { ...exportAsCode(codeDocs, language, { ...options, schemas }), stale: docs.filter((d) => d.error) };
}
