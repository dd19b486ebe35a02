/**
 * The workspace's Gatekeeper and Kyverno documents converted (src/migrate), derived from the
 * documents: once per documents array, target release and Gatekeeper mode. "Convert to native
 * admission" adds the produced objects as new documents (one undo step); the source documents'
 * texts are never touched, and an object already in the workspace is kept as it is.
 */
import { kindOf, nameOf, namespaceOf } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import { convertPolicies, isSourcePolicy, type Conversion, type ConvertOptions, type RuleResult } from '../migrate';
import { isSourceDocument } from '../migrate/documents';
import { conversionFiles, countByStatus, objectRef, type Unread } from '../migrate/report';
import { docTitle, type WorkspaceDoc } from './documents';
import { workspace } from './workspace';
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';

export type GatekeeperMode = ConvertOptions['gatekeeper'];

/** How Gatekeeper templates are converted, chosen in the Migration view; the document's button and the export follow it. */
export const migrateOptions = appStore(createStore<{ gatekeeper: GatekeeperMode }>()(() => ({ gatekeeper: 'as-gatekeeper' })));
export const useGatekeeperMode = (): GatekeeperMode => useStore(migrateOptions, (s) => s.gatekeeper);
export const setGatekeeperMode = (gatekeeper: GatekeeperMode): void => migrateOptions.setState({ gatekeeper });

export interface MigrationRow {
  rule: RuleResult;
  /** The source document, when it is in the workspace. */
  doc?: WorkspaceDoc;
  /** Each produced object, with its document when the workspace has one (converted before). */
  produced: { ref: string; doc?: WorkspaceDoc }[];
  /**
   * The template's Rego, for a Gatekeeper template that is not convertible (Rego only): the view
   * shows it beside where the user starts the CEL by hand (newPolicyForTemplate).
   */
  rego?: string;
}

export interface Migration {
  conversion: Conversion;
  rows: MigrationRow[];
  /** Source documents no converter of this build reads. */
  unread: (Unread & { doc: WorkspaceDoc })[];
  /** Whether the workspace has any Gatekeeper or Kyverno document. */
  sources: number;
  /** A converter failed: its message (nothing is converted then). */
  error?: string;
}

const cache = new WeakMap<readonly WorkspaceDoc[], { key: string; migration: Migration }>();

/** The Gatekeeper converter's extra (GatekeeperRuleResult.rego), read without a cast. */
const regoOf = (r: RuleResult): string | undefined => ('rego' in r && typeof r.rego === 'string' ? r.rego : undefined);

const sameSource = (d: WorkspaceDoc, r: RuleResult): boolean =>
  kindOf(d.object) === r.source.kind && nameOf(d.object) === r.source.name && namespaceOf(d.object) === (r.source.namespace ?? '');

/** A rule's source document: of several of one kind and name, the one its occurrence counts to (in the workspace's order, as converted). */
const sourceDocOf = (docs: readonly WorkspaceDoc[], r: RuleResult): WorkspaceDoc | undefined =>
  docs.filter((d) => sameSource(d, r))[(r.source.occurrence ?? 1) - 1];

/** The conversion of the workspace's source documents. */
export function migrationOf(docs: readonly WorkspaceDoc[], kubernetesVersion: KubernetesVersion, gatekeeper: GatekeeperMode): Migration {
  const key = `${kubernetesVersion} ${gatekeeper}`;
  const hit = cache.get(docs);
  if (hit?.key === key) return hit.migration;
  const sourceDocs = docs.filter((d) => d.object !== undefined && isSourceDocument(d.object));
  let conversion: Conversion = { objects: [], rules: [] };
  let error: string | undefined;
  try {
    if (sourceDocs.length)
      conversion = convertPolicies(
        docs.flatMap((d) => (d.object && typeof d.object === 'object' ? [d.object as Record<string, unknown>] : [])),
        { kubernetesVersion, gatekeeper },
      );
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const byRef = new Map(docs.map((d) => [objectRef(d.object), d]));
  const rows = conversion.rules.map((rule) => {
    const rego = rule.status === 'unsupported' ? regoOf(rule) : undefined;
    return {
      rule,
      doc: sourceDocOf(sourceDocs, rule),
      produced: rule.produced.map((ref) => ({ ref, doc: byRef.get(ref) })),
      ...(rego ? { rego } : {}),
    };
  });
  const unread = sourceDocs
    .filter((d) => !isSourcePolicy(d.object as Record<string, unknown>))
    .map((doc) => ({
      kind: kindOf(doc.object),
      name: nameOf(doc.object) || docTitle(doc),
      namespace: namespaceOf(doc.object) || undefined,
      origin: doc.origin,
      doc,
    }));
  const migration: Migration = { conversion, rows, unread, sources: sourceDocs.length, ...(error ? { error } : {}) };
  cache.set(docs, { key, migration });
  return migration;
}

/** The saving of the last conversion's source tests as cases (convertToNative): done when it settles. */
export let casesSaved: Promise<void> = Promise.resolve();

/**
 * Convert the given source documents (all of them without `ids`): their produced objects are
 * added as new documents, and a notice says what came of each rule.
 */
export function convertToNative(ids?: readonly string[], gatekeeper: GatekeeperMode = migrateOptions.getState().gatekeeper): string[] {
  const s = workspace.getState();
  const m = migrationOf(s.docs, s.kubernetesVersion, gatekeeper);
  if (m.error) {
    s.notify({ level: 'error', text: `The conversion failed: ${m.error}. Nothing was added.` });
    return [];
  }
  const chosen = ids ? new Set(ids) : undefined;
  const rows = m.rows.filter((r) => !chosen || (r.doc && chosen.has(r.doc.id)));
  const unread = m.unread.filter((u) => !chosen || chosen.has(u.doc.id));
  if (!rows.length) {
    s.notify({
      level: 'info',
      text: unread.length
        ? `Nothing converted: no converter of this build reads ${unread.map((u) => `${u.kind}/${u.name}`).join(', ')}.`
        : 'Nothing to convert: no Gatekeeper or Kyverno rule here.',
    });
    return [];
  }
  const refs = new Set(rows.flatMap((r) => r.rule.produced));
  const present = new Set(s.docs.map((d) => objectRef(d.object)));
  const objects = m.conversion.objects.filter((o) => refs.has(objectRef(o)) && !present.has(objectRef(o)));
  const kept = [...refs].filter((r) => present.has(r)).length;
  const ids_ = s.addDocuments(objects, 'converted');
  const c = countByStatus(rows.map((r) => r.rule));
  s.notify({
    level: 'info',
    text: `Converted ${rows.length} rule(s): ${c.exact} exact, ${c.different} different, ${c.unsupported} not convertible. Added ${objects.length} document(s)${kept ? `; ${kept} already in the workspace kept as they are` : ''}. The Migration view shows every rule.`,
  });
  // the open tests become saved cases of the produced policies (loaded on first use: it runs the policy engine's modules)
  casesSaved = import('./migrate-tests').then(({ saveSourceCases }) => {
    const { saved, left } = saveSourceCases(m.conversion);
    if (saved || left.length)
      workspace.getState().notify({
        level: 'info',
        text: `Saved ${saved} case(s) of the source tests on the converted policies.${[...new Set(left.map((l) => l.why))].map((why) => ` Not saved (${why}): ${left.filter((l) => l.why === why).length}.`).join('')}`,
      });
  });
  return ids_;
}

/**
 * For a template whose Rego cannot be converted: a new ValidatingAdmissionPolicy named after it,
 * with no validations yet, opened in the editor for the user to write the CEL. One that is
 * already in the workspace is opened as it is (never overwritten). Returns its document's id.
 */
export function newPolicyForTemplate(name: string): string {
  const s = workspace.getState();
  const ref = `ValidatingAdmissionPolicy/${name}`;
  const present = s.docs.find((d) => objectRef(d.object) === ref);
  if (present) {
    s.select(present.id);
    s.notify({ level: 'info', text: `${ref} is already in the workspace: opened as it is.` });
    return present.id;
  }
  const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { validations: [] } };
  const [id] = s.addDocuments([policy], `from the Rego of ConstraintTemplate/${name}`);
  s.select(id!);
  s.notify({ level: 'info', text: `New ${ref}: write its CEL validations; the template's Rego stays in the Migration view.` });
  return id!;
}

/**
 * The converted set as files for a GitOps repository (src/migrate/report.ts): the produced
 * objects, the source documents' own texts under source/ when kept, and MIGRATION.md; undefined
 * when the workspace has no Gatekeeper or Kyverno document.
 */
export function migrationFiles(keepSource: boolean): { files: Record<string, string>; rules: number } | undefined {
  const s = workspace.getState();
  const m = migrationOf(s.docs, s.kubernetesVersion, migrateOptions.getState().gatekeeper);
  if (!m.sources || m.error) return undefined;
  const sources = keepSource
    ? s.docs.filter((d) => d.object !== undefined && isSourceDocument(d.object)).map((d) => ({ object: d.object, text: d.text }))
    : undefined;
  return { files: conversionFiles(m.conversion, { sources, unread: m.unread }), rules: m.conversion.rules.length };
}
