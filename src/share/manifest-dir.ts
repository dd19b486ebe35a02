/**
 * A static manifest directory as files (src/k8s/static-manifests.ts): one directory per
 * admission plugin (each plugin's loader reads only its own directory and only its own kinds),
 * one file per object or one multi-document file per directory, and the AdmissionConfiguration
 * that points each plugin at its directory. Paths are relative to the base directory the
 * AdmissionConfiguration names; the app zips them (src/share/zip.ts), the CLI writes them.
 */
import {
  admissionConfiguration,
  DEFAULT_MANIFEST_BASE,
  DEFAULT_STATIC_ORDER,
  manifestLayout,
  MANIFEST_PLUGINS,
  type StaticOrder,
} from '../k8s/static-manifests';
import { serializeDocuments } from '../yaml';

export type ManifestDirLayout = 'per-object' | 'per-directory';

export interface ManifestSource {
  object: unknown;
  /** The document's own text (comments kept); absent: serialized from the object. */
  text?: string;
}

export const ADMISSION_CONFIGURATION_FILE = 'admission-configuration.yaml';
/** The one file of a directory in the per-directory layout. */
export const MANIFESTS_FILE = 'manifests.yaml';

const withNewline = (t: string): string => (t.endsWith('\n') ? t : `${t}\n`);

/**
 * The AdmissionConfiguration snippet as YAML, with a comment on what to do with it. `staticOrder`
 * (the release's effective one: effectiveStaticOrder) goes into the MutatingAdmissionWebhook
 * plugin's configuration when it is not the default.
 */
export function admissionConfigurationText(
  entries: ReturnType<typeof manifestLayout>,
  base = DEFAULT_MANIFEST_BASE,
  staticOrder: StaticOrder = DEFAULT_STATIC_ORDER,
): string {
  const ordered = staticOrder !== DEFAULT_STATIC_ORDER && entries.some((e) => e.plugin.plugin === 'MutatingAdmissionWebhook');
  return (
    `# kube-apiserver --admission-control-config-file=<this file> (Kubernetes ${ordered ? '1.38+ for staticOrder' : '1.37+'}, gate ManifestBasedAdmissionControlConfig).\n` +
    `# Copy each directory below ${base} to every control-plane host. A plugin already configured here keeps\n` +
    `# its other settings (e.g. the webhooks' kubeConfigFile) beside staticManifestsDir.\n` +
    serializeDocuments([admissionConfiguration(entries, base, staticOrder)])
  );
}

/** The files of the directory (relative paths → text) for the static documents among `docs`. */
export function manifestDirectoryFiles(
  docs: readonly ManifestSource[],
  isStatic: (index: number) => boolean,
  layout: ManifestDirLayout = 'per-object',
  base = DEFAULT_MANIFEST_BASE,
  staticOrder: StaticOrder = DEFAULT_STATIC_ORDER,
): Record<string, string> {
  const entries = manifestLayout(
    docs.map((d) => d.object),
    isStatic,
    base,
  );
  const textOf = (index: number): string => withNewline(docs[index]!.text ?? serializeDocuments([docs[index]!.object]));
  const files: Record<string, string> = {};
  if (layout === 'per-object') {
    for (const e of entries) files[`${e.plugin.dir}/${e.fileName}`] = textOf(e.index);
  } else {
    for (const p of MANIFEST_PLUGINS) {
      const own = entries.filter((e) => e.plugin === p);
      if (own.length) files[`${p.dir}/${MANIFESTS_FILE}`] = own.map((e) => textOf(e.index)).join('---\n');
    }
  }
  if (entries.length) files[ADMISSION_CONFIGURATION_FILE] = admissionConfigurationText(entries, base, staticOrder);
  return files;
}
