// The apiserver's decoding of built-in kinds as data, checked in: src/k8s/typed/data/<release>.json,
// one file per release, each what tools/typecheck-oracle's `types` command writes when built on
// that release's k8s.io modules (every kind's Go struct, field by field as the unstructured
// converter writes it, and the defaults the release's defaulters give an absent field), laid out
// one kind, struct or defaults table per line with keys sorted, so that a diff between two
// releases, or between the data and a regeneration, names what changed. `npm run
// schemas:generate` (scripts/generate-schemas.mjs) rewrites them with the schema data.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TYPED_DATA_DIR = join(root, 'src', 'k8s', 'typed', 'data');
export const typedDataFile = (release) => join(TYPED_DATA_DIR, `${release}.json`);

const entries = (o) =>
  Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`)
    .join(',\n');

/** The data file's text for the oracle's output (parsed): its provenance on the first line, then one entry per line. */
/** The modules the data comes from (the types, their defaulters and the converter): a typesonly build links no kube-openapi. */
const MODULES = ['k8s.io/api', 'k8s.io/apiextensions-apiserver', 'k8s.io/apimachinery', 'k8s.io/kubernetes'];

export function formatTypedData(asset) {
  const modules = Object.fromEntries(MODULES.filter((m) => asset.modules?.[m]).map((m) => [m, asset.modules[m]]));
  const head = JSON.stringify({ release: asset.release, generatedBy: 'npm run schemas:generate', modules });
  const parts = [
    `${head.slice(0, -1)},`,
    `"kinds":{\n${entries(asset.kinds)}},`,
    `"types":{\n${entries(asset.types)}},`,
    `"defaults":{\n${entries(asset.defaults ?? {})}},`,
    `"kindDefaults":{\n${entries(asset.kindDefaults ?? {})}}}`,
  ];
  return `${parts.join('\n')}\n`;
}

/** The data a built oracle binary writes (`types OUT`), formatted. */
export function deriveTypedData(bin, work, release) {
  const out = join(work, `types-${release}.json`);
  execFileSync(bin, ['types', out], { stdio: 'inherit' });
  const asset = JSON.parse(readFileSync(out, 'utf8'));
  if (asset.release !== release) throw new Error(`types: built release ${asset.release}, expected ${release}`);
  return formatTypedData(asset);
}

/** The kinds, structs and defaults tables whose lines differ between two data texts. */
export function typedDifferences(a, b) {
  const x = JSON.parse(a);
  const y = JSON.parse(b);
  const out = [];
  for (const key of ['release', 'modules']) if (JSON.stringify(x[key]) !== JSON.stringify(y[key])) out.push(key);
  for (const part of ['kinds', 'types', 'defaults', 'kindDefaults']) {
    const names = new Set([...Object.keys(x[part] ?? {}), ...Object.keys(y[part] ?? {})]);
    for (const n of [...names].sort()) if (JSON.stringify(x[part]?.[n]) !== JSON.stringify(y[part]?.[n])) out.push(`${part}.${n}`);
  }
  return out;
}
