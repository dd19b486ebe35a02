/**
 * The schema assets of type checking (public/cel/schemas-1.3x.json, written by
 * `npm run build:wasm` with tools/typecheck-oracle from k8s.io/kubernetes' generated OpenAPI
 * definitions of that release): the built-in kinds admission can match, descriptions
 * dropped. Loaded only when a ValidatingAdmissionPolicy is type-checked (never on the first
 * page load), relative to the page like cel.wasm, once per release.
 */
import { DEFAULT_KUBERNETES_VERSION, minorOf, type KubernetesVersion } from '../base/releases';

/** The releases an asset is generated from (tools/typecheck-oracle's go.mod and go.1.3x.mod). */
export const SCHEMA_RELEASES = ['1.30', '1.36', '1.37'] as const;
export type SchemaRelease = (typeof SCHEMA_RELEASES)[number];

/**
 * The asset a target release is checked with: its own, else the nearest newer one (1.31–1.35
 * → 1.36). A newer release's schemas add fields rather than remove them, so a field that
 * exists in the target is never reported as undefined; one added later is not reported either.
 */
export function schemaReleaseFor(version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): SchemaRelease {
  const minor = minorOf(version);
  return SCHEMA_RELEASES.find((r) => minorOf(r) >= minor) ?? SCHEMA_RELEASES[SCHEMA_RELEASES.length - 1];
}

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
