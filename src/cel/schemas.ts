/**
 * The schema assets of type checking (public/cel/schemas-1.3x.json, one per release of the
 * release table, written by `npm run build:wasm` from the checked-in data
 * tools/typecheck-oracle/schemas/<release>.json, which `npm run schemas:generate` derives from
 * that release's k8s.io/kubernetes generated OpenAPI definitions): the built-in kinds admission
 * can match, descriptions dropped. Loaded only when a ValidatingAdmissionPolicy is type-checked
 * (never on the first page load), relative to the page like cel.wasm, once per release.
 */
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS, isKubernetesVersion, type KubernetesVersion } from '../base/releases';

/** The releases with a schema asset: every release of the table. */
export const SCHEMA_RELEASES: readonly KubernetesVersion[] = KUBERNETES_VERSIONS;
export type SchemaRelease = KubernetesVersion;

/** The asset a target release is checked with: its own (a version outside the table, from untyped input: the default release's). */
export const schemaReleaseFor = (version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): SchemaRelease =>
  isKubernetesVersion(version) ? version : DEFAULT_KUBERNETES_VERSION;

export const schemaFile = (release: SchemaRelease): string => `schemas-${release}.json`;

const nodeImport = (name: string): Promise<unknown> => import(/* @vite-ignore */ `node:${name}`);

/** The asset's text: from public/cel (or beside $CEL_WASM) in Node, fetched relative to `baseUrl` in the browser. */
export async function readSchemaAsset(release: SchemaRelease, baseUrl: string, node: boolean): Promise<string> {
  if (node) {
    const fs = (await nodeImport('fs')) as typeof import('node:fs');
    const path = (await nodeImport('path')) as typeof import('node:path');
    const url = (await nodeImport('url')) as typeof import('node:url');
    const dir = process.env.CEL_WASM
      ? path.dirname(path.resolve(process.env.CEL_WASM))
      : path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..', '..', 'public', 'cel');
    const file = path.join(dir, schemaFile(release));
    if (!fs.existsSync(file)) throw new Error(`${file} is missing (run npm run build:wasm)`);
    return fs.readFileSync(file, 'utf8');
  }
  const res = await fetch(new URL(`cel/${schemaFile(release)}`, baseUrl).href);
  if (!res.ok) throw new Error(`cel/${schemaFile(release)}: HTTP ${res.status}`);
  return res.text();
}
