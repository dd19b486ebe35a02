/** manifestDirectoryFiles: the exported directory in both layouts, and the AdmissionConfiguration. */
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { manifestDirectoryFiles } from './manifest-dir';

const AR = 'admissionregistration.k8s.io/v1';
const vap = { apiVersion: AR, kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p.static.k8s.io' }, spec: {} };
const vapb = { apiVersion: AR, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b.static.k8s.io' }, spec: { policyName: 'p.static.k8s.io' } };
const mwc = { apiVersion: AR, kind: 'MutatingWebhookConfiguration', metadata: { name: 'm.static.k8s.io' }, webhooks: [] };
const api = { apiVersion: AR, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'api' }, webhooks: [] };

describe('manifestDirectoryFiles', () => {
  const docs = [
    {
      object: vap,
      text: '# the policy\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p.static.k8s.io\nspec: {}',
    },
    { object: vapb },
    { object: mwc },
    { object: api },
  ];
  const isStatic = (i: number) => i < 3;

  it("one file per object, the documents' own text kept; API objects left out", () => {
    const files = manifestDirectoryFiles(docs, isStatic, 'per-object', '/etc/k/m');
    expect(Object.keys(files).sort()).toEqual([
      'admission-configuration.yaml',
      'mutating-webhooks/m.static.k8s.io.yaml',
      'validating-admission-policies/b.static.k8s.io.yaml',
      'validating-admission-policies/p.static.k8s.io.yaml',
    ]);
    expect(files['validating-admission-policies/p.static.k8s.io.yaml']).toBe(`${docs[0]!.text}\n`);
    const config = load(files['admission-configuration.yaml']!) as { plugins: { name: string; configuration: { staticManifestsDir: string } }[] };
    expect(config.plugins.map((p) => `${p.name} ${p.configuration.staticManifestsDir}`)).toEqual([
      'MutatingAdmissionWebhook /etc/k/m/mutating-webhooks',
      'ValidatingAdmissionPolicy /etc/k/m/validating-admission-policies',
    ]);
  });

  it('one multi-document file per directory', () => {
    const files = manifestDirectoryFiles(docs, isStatic, 'per-directory');
    expect(Object.keys(files).sort()).toEqual([
      'admission-configuration.yaml',
      'mutating-webhooks/manifests.yaml',
      'validating-admission-policies/manifests.yaml',
    ]);
    expect(files['validating-admission-policies/manifests.yaml']!.split('---\n')).toHaveLength(2);
  });

  it('nothing static: no files', () => {
    expect(manifestDirectoryFiles(docs, () => false)).toEqual({});
  });
});
