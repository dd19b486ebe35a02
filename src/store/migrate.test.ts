/**
 * Gatekeeper and Kyverno documents in the workspace: opened as documents (editable text, their
 * structure checked), converted into new documents without touching their text. A converter is
 * registered by the test where the store's plumbing needs one (the build's own are put back).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kindOf, nameOf } from '../base/json';
import { CONVERTERS, type Converter } from '../migrate';
import { importText } from './documents';
import { casesSaved, convertToNative, migrationFiles, migrationOf, newPolicyForTemplate } from './migrate';
import { docProblems } from './problems';
import { workspace } from './workspace';
import { readFixture } from '../../fixtures';

const text = (name: string) => readFixture('migrate', name);
const registry = CONVERTERS as Converter[];
const saved = [...registry];
afterEach(() => registry.splice(0, registry.length, ...saved));

/** Each ValidatingPolicy becomes a VAP named after it, stated as different (the test's own converter). */
const testConverter: Converter = {
  name: 'Kyverno',
  owns: (o) => String(o.apiVersion).startsWith('policies.kyverno.io/') || o.apiVersion === 'kyverno.io/v1',
  convert: (objects) => {
    const vps = objects.filter((o) => o.kind === 'ValidatingPolicy');
    return {
      objects: vps.map((o) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: nameOf(o) }, spec: {} })),
      rules: vps.map((o) => ({
        source: { kind: kindOf(o), name: nameOf(o), rule: nameOf(o) },
        status: 'different' as const,
        reason: 'test',
        produced: [`ValidatingAdmissionPolicy/${nameOf(o)}`],
      })),
    };
  },
};

beforeEach(() => workspace.getState().replaceAll([]));
// Convert saves the source tests' cases after a lazy import: let it settle inside the test's environment
afterEach(() => casesSaved);

describe('Gatekeeper and Kyverno documents in the workspace', () => {
  it('are opened as documents of their own, not as read-only other kinds', () => {
    const { docs, messages } = importText(`${text('requiredlabels.yaml')}---\n${text('kyverno.yaml')}`, 'policies.yaml');
    expect(docs.map((d) => kindOf(d.object))).toEqual(['ConstraintTemplate', 'K8sRequiredLabels', 'ValidatingPolicy', 'ClusterPolicy']);
    expect(messages.filter((m) => /read-only/.test(m.text))).toEqual([]);
    for (const d of docs) expect(docProblems(d, docs)).toMatchObject({ checked: true, errors: 0, warnings: 0 });
    // worked out once per document change (the sidebar asks at every keystroke)
    expect(docProblems(docs[1]!, [...docs])).toBe(docProblems(docs[1]!, docs));
  });

  it('show their structural problems, and a constraint without its template', () => {
    const { docs } = importText(text('requiredlabels.yaml').replace('kinds: ["Namespace"]', 'kinds: "Namespace"'), 'x.yaml');
    const constraint = docs[1]!;
    expect(docProblems(constraint, docs).items.map((p) => `${p.field} ${p.level}`)).toEqual(['spec.match.kinds[0].kinds error']);
    expect(docProblems(constraint, [constraint]).items.map((p) => p.field)).toEqual(['kind', 'spec.match.kinds[0].kinds']);
  });

  it('keep broken YAML as a document with its text and error', () => {
    const broken = 'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: [x\n';
    const { docs } = importText(broken, 'broken.yaml');
    expect(docs).toHaveLength(1);
    expect(docs[0]!.text).toBe(broken);
    expect(docProblems(docs[0]!, docs).parse).toBeDefined();
  });

  it('list the documents no converter reads, and convert nothing then', () => {
    registry.splice(0, registry.length);
    workspace.getState().importText(text('kyverno.yaml'), 'kyverno.yaml');
    const s = workspace.getState();
    expect(migrationOf(s.docs, s.kubernetesVersion, 'as-gatekeeper').unread.map((u) => u.name)).toEqual([
      'block-ephemeral-containers',
      'disallow-container-sock-mounts',
    ]);
    expect(convertToNative()).toEqual([]);
    expect(workspace.getState().notices.at(-1)?.text).toMatch(
      /Nothing converted: no converter of this build reads ValidatingPolicy\/block-ephemeral-containers/,
    );
  });

  it('convert into new documents, leaving the source text as it was, once', () => {
    registry.splice(0, registry.length, testConverter);
    workspace.getState().importText(text('kyverno.yaml'), 'kyverno.yaml');
    const before = workspace.getState().docs;
    const added = convertToNative([before[0]!.id]);
    const after = workspace.getState().docs;
    expect(added).toHaveLength(1);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)!.text).toMatch(
      /^apiVersion: admissionregistration\.k8s\.io\/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n {2}name: block-ephemeral-containers\n/,
    );
    const row = migrationOf(after, workspace.getState().kubernetesVersion, 'as-gatekeeper').rows[0]!;
    expect(row.doc?.id).toBe(before[0]!.id);
    expect(row.produced[0]!.doc?.id).toBe(added[0]);
    // converting again adds nothing: the object is there (perhaps edited since)
    expect(convertToNative()).toEqual([]);
    expect(workspace.getState().notices.at(-1)?.text).toMatch(/1 already in the workspace kept as they are/);
    // one undo step takes the converted documents away (the second convert recorded none)
    workspace.getState().undo();
    expect(workspace.getState().docs).toEqual(before);
  });

  it('export as files: the objects, the sources when kept, and the summary', () => {
    registry.splice(0, registry.length, testConverter);
    workspace.getState().importText(text('kyverno.yaml'), 'kyverno.yaml');
    expect(Object.keys(migrationFiles(false)!.files)).toEqual(['native/validatingadmissionpolicy-block-ephemeral-containers.yaml', 'MIGRATION.md']);
    const kept = migrationFiles(true)!.files;
    expect(kept['source/validatingpolicy-block-ephemeral-containers.yaml']).toBe(`${workspace.getState().docs[0]!.text}`);
    workspace.getState().replaceAll([]);
    expect(migrationFiles(true)).toBeUndefined();
  });

  it("carry a Rego-only template's Rego to its row, and start a policy for the CEL by hand", () => {
    const rego = 'package k8sdenyall\n\nviolation[{"msg": msg}] {\n  msg := "denied"\n}\n';
    const regoOnly = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8sdenyall
spec:
  crd:
    spec:
      names:
        kind: K8sDenyAll
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
${rego.replace(/^(?=.)/gm, '        ')}---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sDenyAll
metadata:
  name: deny-everything
`;
    workspace.getState().importText(`${regoOnly}---\n${text('requiredlabels.yaml')}`, 'templates.yaml');
    const s = workspace.getState();
    const rows = migrationOf(s.docs, s.kubernetesVersion, 'as-gatekeeper').rows;
    const byName = new Map(rows.map((r) => [r.rule.source.name, r]));
    expect(byName.get('k8sdenyall')).toMatchObject({ rule: { status: 'unsupported' }, rego });
    expect(byName.get('k8sdenyall')!.rule.reason).toMatch(/only Rego code/);
    // the constraint's row and a template converted from its CEL (it has Rego too) show no Rego
    expect(byName.get('deny-everything')!.rego).toBeUndefined();
    expect(byName.get('k8srequiredlabels')!.rule.status).not.toBe('unsupported');
    expect(byName.get('k8srequiredlabels')!.rego).toBeUndefined();

    const before = workspace.getState().docs;
    const id = newPolicyForTemplate('k8sdenyall');
    const after = workspace.getState().docs;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)!.id).toBe(id);
    expect(after.at(-1)!.object).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'k8sdenyall' },
      spec: { validations: [] },
    });
    expect(workspace.getState().selectedId).toBe(id);
    // a second time opens the one there (perhaps with the user's CEL in it) and adds nothing
    workspace.getState().select(before[0]!.id);
    expect(newPolicyForTemplate('k8sdenyall')).toBe(id);
    expect(workspace.getState().docs).toHaveLength(after.length);
    expect(workspace.getState().selectedId).toBe(id);
  });
});
