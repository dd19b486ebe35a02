/**
 * The Kyverno fixtures (fixtures/kyverno: policies of the kyverno/policies library with their
 * kyverno-tests) as the oracle tests read them: one entry a kyverno-test, with its policies, its
 * resources and the labels its values file gives the Namespaces.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fixturePath } from '../../fixtures';
import { isObject, nameOf, obj, str, strList, type Obj } from '../../src/base/json';
import { isKyvernoTest, joinPath } from '../../src/migrate/kyverno/kyverno-test';
import { parseDocuments } from '../../src/yaml';

const ROOT = fixturePath('kyverno');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
}
const files = walk(ROOT).map((f) => relative(ROOT, f).split('\\').join('/'));
/** Every fixture file's text, by its `/`-separated path in the set. */
export const texts: Record<string, string> = Object.fromEntries(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const docs = (path: string): Obj[] =>
  parseDocuments(texts[path] ?? '')
    .documents.map((d) => d.object)
    .filter(isObject);

/** One fixture: its test manifest, its policies and resources (the namespaces' labels from its values). */
export interface Fixture {
  test: string;
  policies: Obj[];
  resources: Obj[];
  namespaceLabels: Map<string, Record<string, string>>;
}

export const fixtures: Fixture[] = files
  .filter((f) => f.endsWith('kyverno-test.yaml'))
  .map((test) => {
    const t = docs(test).find(isKyvernoTest)!;
    const dir = test.slice(0, test.lastIndexOf('/'));
    const values = str(t.variables) ? (docs(joinPath(dir, str(t.variables)))[0] ?? {}) : {};
    const namespaceLabels = new Map<string, Record<string, string>>();
    for (const s of [...((values.namespaceSelector as Obj[] | undefined) ?? [])]) namespaceLabels.set(str(s.name), obj(s.labels) as Record<string, string>);
    for (const n of [...((values.namespaces as Obj[] | undefined) ?? [])])
      namespaceLabels.set(nameOf(n), obj(obj(n.metadata).labels) as Record<string, string>);
    return {
      test,
      policies: strList(t.policies).flatMap((p) => docs(joinPath(dir, p))),
      resources: strList(t.resources).flatMap((r) => docs(joinPath(dir, r))),
      namespaceLabels,
    };
  });
