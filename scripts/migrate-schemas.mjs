// The structural schemas of Gatekeeper's and Kyverno's policy kinds, as data checked in:
// src/migrate/crd-schemas.json, one line per kind and version, each the openAPIV3Schema of the project's
// own CRD (the YAML under config/ in the Go module named in the file's `source`), with
// descriptions and CEL validation rules dropped (the Workbench checks structure: fields and
// types). Run `node scripts/migrate-schemas.mjs` to regenerate (it asks `go mod download` for
// the modules; the Go module cache is enough offline).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(root, 'src', 'migrate', 'crd-schemas.json');
// The same lines without their schemas: what the first load needs to know a document's kind (src/migrate/documents.ts).
const KINDS_OUT = join(root, 'src', 'migrate', 'crd-kinds.json');

const KYVERNO = 'github.com/kyverno/kyverno@v1.19.1';
const GATEKEEPER = 'github.com/open-policy-agent/gatekeeper/v3@v3.23.1';

/**
 * [module, CRD file in the module, version served] per kind the Workbench opens. Kyverno's CEL
 * policies in every version its CRDs serve (the policies library still writes v1alpha1);
 * Policy has ClusterPolicy's spec (checked below), so only ClusterPolicy's schema is kept.
 */
const CEL_POLICIES = ['validatingpolicies', 'mutatingpolicies', 'namespacedvalidatingpolicies', 'namespacedmutatingpolicies'];
const SOURCES = [
  ...CEL_POLICIES.map((p) => [KYVERNO, `config/crds/policies.kyverno.io/policies.kyverno.io_${p}.yaml`, '*']),
  [KYVERNO, 'config/crds/kyverno/kyverno.io_clusterpolicies.yaml', 'v1'],
  [GATEKEEPER, 'config/crd/bases/constrainttemplate-customresourcedefinition.yaml', 'v1'],
  // A constraint's CRD is generated from its template; its `match` is this one (frameworks' match schema).
  [GATEKEEPER, 'config/crd/bases/match.gatekeeper.sh_matchcrd.yaml', 'match'],
];

/** The keys of a structural schema the check reads; everything else (descriptions, CEL rules, formats) is dropped. */
const KEEP = new Set([
  'type',
  'properties',
  'items',
  'additionalProperties',
  'required',
  'enum',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
]);

function strip(schema) {
  if (Array.isArray(schema)) return schema.map(strip);
  if (!schema || typeof schema !== 'object') return schema;
  const out = {};
  for (const key of Object.keys(schema).sort()) {
    if (!KEEP.has(key)) continue;
    const v = schema[key];
    if (key === 'properties')
      out[key] = Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, strip(v[k])]),
      );
    else if (key === 'items' || key === 'additionalProperties') out[key] = typeof v === 'boolean' ? v : strip(v);
    else out[key] = v;
  }
  return out;
}

const dirs = new Map();
function moduleDir(module) {
  if (!dirs.has(module)) dirs.set(module, JSON.parse(execFileSync('go', ['mod', 'download', '-json', module], { encoding: 'utf8' })).Dir);
  return dirs.get(module);
}

const crdOf = (module, file) => loadAll(readFileSync(join(moduleDir(module), file), 'utf8')).find((d) => d?.kind === 'CustomResourceDefinition');
const schemaOf = (crd, version) => crd.spec.versions.find((v) => v.name === version)?.schema.openAPIV3Schema;

const policy = schemaOf(crdOf(KYVERNO, 'config/crds/kyverno/kyverno.io_policies.yaml'), 'v1');
const clusterPolicy = schemaOf(crdOf(KYVERNO, 'config/crds/kyverno/kyverno.io_clusterpolicies.yaml'), 'v1');
if (JSON.stringify(strip(policy)) !== JSON.stringify(strip(clusterPolicy)))
  throw new Error('kyverno.io/v1 Policy and ClusterPolicy no longer share a schema: keep both');

const versions = SOURCES.flatMap(([module, file, version]) => {
  const crd = crdOf(module, file);
  const all = crd.spec.versions.filter((v) => version === '*' || v.name === version);
  if (!all.length) throw new Error(`${file}: no version ${version}`);
  return all.map((served) => [module, file, crd, served]);
});

const lines = [];
for (const [module, file, crd, { name: version, ...served }] of versions) {
  const { group, names } = crd.spec;
  const data = {
    source: `${module} ${file} (${version})`,
    group,
    version,
    kind: names.kind,
    scope: crd.spec.scope,
    schema: strip(served.schema.openAPIV3Schema),
  };
  lines.push(JSON.stringify(data));
  console.log(`${group}/${version} ${names.kind}: ${lines.at(-1).length} bytes`);
}
writeFileSync(OUT, `[\n${lines.join(',\n')}\n]\n`);
const kinds = lines.map((l) => {
  const { schema: _, ...kind } = JSON.parse(l);
  return JSON.stringify(kind);
});
writeFileSync(KINDS_OUT, `[\n${kinds.join(',\n')}\n]\n`);
