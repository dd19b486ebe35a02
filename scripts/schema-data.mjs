// The type checker's schema data, checked in: tools/typecheck-oracle/schemas/<release>.json, one
// file per release of the release table, each what tools/typecheck-oracle's `schemas` command
// writes for that release (the OpenAPI definitions of the built-in kinds admission can match,
// from k8s.io/kubernetes' pkg/generated/openapi, descriptions dropped), laid out one GVK or
// definition per line with keys sorted, so that a diff between two releases, or between the
// data and a regeneration, names the definitions that changed. The build serves each file
// minified as public/cel/schemas-<release>.json (scripts/build-schemas.mjs); `npm run
// schemas:generate` (scripts/generate-schemas.mjs) rewrites them from the Go modules.
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_DATA_DIR = join(root, 'tools', 'typecheck-oracle', 'schemas');

/** The releases with checked-in data, oldest first. */
export function schemaDataReleases() {
  return readdirSync(SCHEMA_DATA_DIR)
    .map((f) => /^(1\.\d+)\.json$/.exec(f)?.[1])
    .filter(Boolean)
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}

export const schemaDataFile = (release) => join(SCHEMA_DATA_DIR, `${release}.json`);

const sorted = (o) =>
  Object.keys(o)
    .sort()
    .map((k) => [k, o[k]]);
const entries = (o) =>
  sorted(o)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join(',\n');

/**
 * The data file's text for an asset (the oracle's output, parsed): valid JSON whose first line
 * says where it comes from (the release, the k8s.io module versions it was built with, how to
 * regenerate), then the GVKs and the definitions, one per line.
 */
export function formatSchemaData(asset) {
  const { release, modules, gvks, definitions, generatedBy: _written, ...rest } = asset; // generatedBy is written anew
  if (Object.keys(rest).length) throw new Error(`schema data: unexpected keys ${Object.keys(rest).join(', ')}`);
  const head = JSON.stringify({ release, generatedBy: 'npm run schemas:generate', modules: Object.fromEntries(sorted(modules)) }).slice(0, -1);
  return `${head},\n"gvks":{\n${entries(gvks)}},\n"definitions":{\n${entries(definitions)}}}\n`;
}

/** The served asset: the data minified. */
export const assetFromData = (text) => JSON.stringify(JSON.parse(text));
