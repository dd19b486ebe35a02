/**
 * The checks of documents marked "static manifest" (src/k8s/static-manifests.ts): what the
 * manifest loaders would say instead of what the API would. For each static object, its own
 * answers become the loader's (no registry rules, unknown fields are errors), the set's problems
 * are added at their fields, and a release that does not load static manifests by default says
 * so. One home for the app (src/store/problems.ts) and the CLI.
 */
import type { KubernetesVersion } from '../base/releases';
import type { FieldError } from '../k8s/errors';
import { nameOf, str } from '../base/json';
import {
  asManifestErrors,
  isManifestKind,
  manifestLayout,
  manifestProblems,
  manifestSupport,
  MANIFEST_SET_HEADLINE,
  DEFAULT_MANIFEST_BASE,
} from '../k8s/static-manifests';

export interface ManifestSetChecks {
  /** Per object index (static objects only): its answers as the loader's, then the set's problems at its fields. */
  fields: Map<number, FieldError[]>;
  /** Whether the set would load (no error in any static object). */
  loads: boolean;
  /** One line for the whole set when it does not load (the apiserver does not start with it). */
  headline?: string;
  /** Indices of the static objects. */
  members: number[];
}

/**
 * `fieldsOf(i)` is the API's answer for object i (validate(), memoised by the caller); `parsed(i)`
 * false for an object whose text does not parse (a loader error too).
 */
export function checkManifestSet(
  objects: readonly unknown[],
  isStatic: (index: number) => boolean,
  release: KubernetesVersion,
  fieldsOf: (index: number) => readonly FieldError[],
  parsed: (index: number) => boolean = () => true,
  base = DEFAULT_MANIFEST_BASE,
): ManifestSetChecks {
  const members = objects.map((_, i) => i).filter((i) => isStatic(i) && isManifestKind(objects[i]));
  const support = manifestSupport(release);
  const fields = new Map<number, FieldError[]>();
  for (const i of members) {
    const own = asManifestErrors(objects[i], fieldsOf(i), release);
    fields.set(i, support ? [{ type: 'Forbidden', field: '', message: support }, ...own] : own);
  }
  const memberSet = new Set(members);
  for (const p of manifestProblems(objects, (i) => memberSet.has(i), base)) {
    fields.get(p.index)!.push({
      type: 'Invalid',
      field: p.field,
      message: p.message,
      hint: p.set ? 'The manifest loader, after reading every file' : `The manifest loader, reading ${p.file}`,
    });
  }
  const loads = members.every((i) => parsed(i) && !fields.get(i)!.some((e) => e.severity !== 'warning'));
  return { fields, loads, members, ...(loads || members.length === 0 ? {} : { headline: MANIFEST_SET_HEADLINE }) };
}

/**
 * Every error a loader could stop at, worded as the loader returns it (`error loading <file>:
 * …`), per plugin: the kind's validation as one aggregate (`<Kind> "<name>": [a, b]`), strict
 * decoding (`strict decoding error: unknown field "x", …`) and the manifest rules. A loader
 * returns the first of these in file order; the oracle (tools/manifest-oracle) checks that the
 * one it returns is among them. Also what the command line prints.
 */
export function loaderMessages(
  objects: readonly unknown[],
  isStatic: (index: number) => boolean,
  release: KubernetesVersion,
  fieldsOf: (index: number) => readonly FieldError[],
  base = DEFAULT_MANIFEST_BASE,
): Map<string, string[]> {
  const entries = manifestLayout(objects, isStatic, base);
  const members = new Set(entries.map((e) => e.index));
  const problems = manifestProblems(objects, (i) => members.has(i), base);
  const out = new Map<string, string[]>();
  const add = (plugin: string, m: string) => out.set(plugin, [...(out.get(plugin) ?? []), m]);
  for (const e of entries) {
    const loading = (m: string) => add(e.plugin.plugin, `error loading ${e.file}: ${m}`);
    const own = asManifestErrors(e.object, fieldsOf(e.index), release).filter((f) => f.severity !== 'warning');
    const strict = own.filter((f) => f.message.startsWith(STRICT));
    const rules = own.filter((f) => !f.message.startsWith(STRICT));
    if (strict.length) loading(`${STRICT}${strict.map((f) => f.message.slice(STRICT.length)).join(', ')}`);
    const text = rules.map((f) => `${f.field}: ${f.message}`);
    if (text.length) loading(`${str(e.object.kind)} "${nameOf(e.object)}": ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`);
    for (const p of problems) if (p.index === e.index) p.set ? add(e.plugin.plugin, p.message) : loading(p.message);
  }
  return out;
}

const STRICT = 'strict decoding error: ';
