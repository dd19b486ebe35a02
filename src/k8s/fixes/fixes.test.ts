/**
 * Every quick fix on every fixture where it is offered: applying it leaves the input
 * untouched, adds no validation error (also not in the documents it creates), and the
 * finding (or error) it fixes is gone. Fixtures (the repository's fixtures/): the ones made
 * for the fixes, the validation fixtures and copies of real-world configurations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { fixtureFiles as filesOf } from '../../../fixtures';
import type { CelCompiler } from '../../cel/types';
import { kindSpecOf } from '../registry';
import type { FieldError } from '../errors';
import { lint } from '../lints';
import { validate } from '../validate-all';
import { fixesForError } from './errors';
import { manifestProblems } from '../static-manifests';
import { suggestDnsName } from './edits';
import type { Fix } from './types';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = resolve(here, '../../..');
const celWasm = resolve(repoRoot, 'public/cel/cel.wasm');

async function loadCompiler(): Promise<CelCompiler | undefined> {
  if (!existsSync(celWasm)) return undefined;
  const cel = (await import('../../cel/index')) as { loadCel(): Promise<void>; createSyncCompiler(): CelCompiler };
  await cel.loadCel();
  return cel.createSyncCompiler();
}

function objectsOf(text: string): unknown[] {
  return loadAll(text).flatMap((doc) => {
    const d = doc as { kind?: unknown; items?: unknown } | null;
    return d && d.kind === 'List' && Array.isArray(d.items) ? d.items : d ? [d] : [];
  });
}

const fixtureFiles = () => [...filesOf('fixes'), ...filesOf('realworld'), ...filesOf('validation')];
const key = (e: FieldError) => `${e.type} ${e.field}: ${e.message}`;

interface Applied {
  file: string;
  title: string;
  problems: string[];
}

/** Apply one fix and return what went wrong (empty = fine). */
function check(
  fix: Fix,
  object: unknown,
  workspace: unknown[],
  before: FieldError[],
  fixed: (after: unknown, ws: unknown[], errs: FieldError[]) => boolean,
  cel: CelCompiler | undefined,
): string[] {
  const frozen = structuredClone(object);
  const result = fix.apply(object, { workspace });
  const problems: string[] = [];
  if (JSON.stringify(object) !== JSON.stringify(frozen)) problems.push('mutated its input');
  const known = new Set(before.map(key));
  const after = validate(result.object, { cel });
  for (const e of after) if (!known.has(key(e))) problems.push(`new error ${key(e)}`);
  for (const d of result.newDocuments ?? []) for (const e of validate(d, { cel })) problems.push(`new document: ${key(e)}`);
  const ws = [...workspace.map((o) => (o === object ? result.object : o)), ...(result.newDocuments ?? [])];
  if (!fixed(result.object, ws, after)) problems.push('the finding is still there');
  return problems;
}

describe('quick fixes', () => {
  it('suggests DNS-1123 names from invalid ones', () => {
    expect(suggestDnsName('Policy_Hooks')).toBe('policy-hooks');
    expect(suggestDnsName('-My..Webhook-')).toBe('my.webhook');
    expect(suggestDnsName('pods', 3)).toBe('pods.example.com');
    expect(suggestDnsName('pods.acme', 3)).toBe('pods.acme.com');
    expect(suggestDnsName('***')).toBe('name');
  });

  it('every fix on every fixture: no new validation error and the finding is gone', { timeout: 300_000 }, async () => {
    const cel = await loadCompiler();
    const applied: Applied[] = [];
    for (const file of fixtureFiles()) {
      const workspace = objectsOf(readFileSync(file, 'utf8'));
      for (const object of workspace) {
        if (!kindSpecOf(object)) continue;
        const before = validate(object, { cel });
        for (const l of lint(object, workspace))
          for (const fix of l.fixes ?? [])
            applied.push({
              file,
              title: `${l.id}: ${fix.title}`,
              problems: check(fix, object, workspace, before, (after, ws) => !lint(after, ws).some((m) => m.id === l.id && m.field === l.field), cel),
            });
        for (const e of before)
          for (const fix of fixesForError(e, object))
            applied.push({
              file,
              title: `${e.type} ${e.field.replace(/\[\d+\]/g, '[i]')}: ${fix.title.replace(/".*"/, '"…"')}`,
              problems: check(fix, object, workspace, before, (_a, _ws, errs) => !errs.some((x) => x.type === e.type && x.field === e.field), cel),
            });
      }
    }
    const failures = applied.filter((a) => a.problems.length).map((a) => `${a.file.slice(repoRoot.length)}: ${a.title}: ${a.problems.join('; ')}`);
    expect(failures).toEqual([]);
    const titles = new Set(applied.map((a) => a.title.replace(/ (in namespaceSelector|for this policy)$/, '')));
    console.info(
      `quick fixes: ${applied.length} applications of ${titles.size} fixes on ${fixtureFiles().length} files${cel ? '' : ' (no CEL engine: CEL not compiled)'}`,
    );
    // Every kind of fix the app offers was exercised at least once.
    const expected = [
      /^W01: Exclude kube-system$/,
      /^W0[12]: Exclude kube-system and \S+$/,
      /^W03: Skip control-plane users and nodes/,
      /^W0[34]: Set failurePolicy: Ignore/,
      /^W05: Narrow the rule/,
      /^W06: Set operations/,
      /^W06: Remove CONNECT/,
      /^W10: Set timeoutSeconds: 5/,
      /^W12: Set matchPolicy/,
      /^W16: Skip mirror pods/,
      /^W24: Accept AdmissionReview v1/,
      /^W26: Stop matching CONNECT$/,
      /^W26: Stop matching CONNECT \(drop this rule/,
      /^W26: Set failurePolicy: Ignore/,
      /^W06: Drop this rule/,
      /^P01: Create a ValidatingAdmissionPolicyBinding/,
      /^P01: Create a MutatingAdmissionPolicyBinding/,
      /^P03: Roll out with/,
      /^P05: Stop matching DELETE/,
      /^P06: Guard expressions with params != null/,
      /^P08: Set parameterNotFoundAction/,
      /^P13: Set reason: Forbidden/,
      /^P15: Exclude kube-system/,
      /^M05: Set failurePolicy: Ignore/,
      /^Required webhooks\[i\]\.sideEffects: Set sideEffects: None/,
      /^Required webhooks\[i\]\.admissionReviewVersions: Set admissionReviewVersions/,
      /^Invalid webhooks\[i\]\.timeoutSeconds: Set timeoutSeconds/,
      /^Invalid metadata\.name: Rename to/,
      /^Invalid webhooks\[i\]\.name: Rename to/,
      /^Invalid spec\.validationActions: Remove Warn/,
      /^NotSupported apiVersion: Convert to v1/,
      /^Invalid webhooks\[i\]\.matchConditions\[i\]\.name: Rename to/,
      /^Duplicate webhooks\[i\]\.matchConditions\[i\]\.name: Rename to/,
    ];
    const missing = expected.filter((re) => ![...titles].some((t) => re.test(t))).map(String);
    expect(missing).toEqual([]);
  });

  it('a .static.k8s.io name at 1.37 (reserved for static manifests): rename without the suffix; 1.36 warns, with the same fix', () => {
    const hook = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'guard.static.k8s.io' },
      webhooks: [],
    };
    for (const kubernetesVersion of ['1.37', '1.36'] as const) {
      const [e, ...others] = validate(hook, { kubernetesVersion });
      expect(others).toEqual([]);
      expect(e!.field).toBe('metadata.name');
      expect(e!.severity ?? 'error').toBe(kubernetesVersion === '1.37' ? 'error' : 'warning');
      const fixes = fixesForError(e!, hook);
      expect(fixes.map((f) => f.title)).toEqual(['Rename to "guard"']);
      const { object } = fixes[0]!.apply(hook);
      expect(object).toEqual({ ...hook, metadata: { name: 'guard' } });
      expect(validate(object, { kubernetesVersion })).toEqual([]);
    }
  });

  /** The manifest loader's errors of one static object, as the app's checks make them (src/check/manifests.ts). */
  const loaderErrors = (o: unknown): FieldError[] =>
    manifestProblems([o], () => true).map((p) => ({ type: 'Invalid' as const, field: p.field, message: p.message }));

  it("a static manifest's name gets the suffix; a static webhook's service becomes a URL, the service gone", () => {
    const hook = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'Cert_Manager-webhook' },
      webhooks: [
        {
          name: 'webhook.cert-manager.io',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { name: 'cert-manager-webhook', namespace: 'cert-manager', path: '/validate', port: 10250 }, caBundle: 'Y2E=' },
          rules: [{ operations: ['CREATE'], apiGroups: ['cert-manager.io'], apiVersions: ['v1'], resources: ['certificates'] }],
        },
      ],
    };
    const errors = loaderErrors(hook);
    expect(errors.map((e) => e.field)).toEqual(['metadata.name', 'webhooks[0].clientConfig.service']);
    const [rename, url] = errors.map((e) => fixesForError(e, hook));
    expect(rename!.map((f) => f.title)).toEqual(['Rename to "cert-manager-webhook.static.k8s.io"']);
    expect(url!.map((f) => f.title)).toEqual(['Call a URL instead of the service']);
    expect(url![0]!.params![0]!.default).toBe('https://cert-manager-webhook.cert-manager.svc:10250/validate');
    let fixed = rename![0]!.apply(hook).object;
    fixed = url![0]!.apply(fixed, { params: { url: 'https://10.0.0.5:10250/validate' } }).object;
    expect((fixed as typeof hook).webhooks[0]!.clientConfig).toEqual({ caBundle: 'Y2E=', url: 'https://10.0.0.5:10250/validate' });
    // the set loads, and the API's own validation has nothing to say either
    expect(loaderErrors(fixed)).toEqual([]);
    expect(validate(fixed, { kubernetesVersion: '1.36' }).filter((e) => e.severity !== 'warning')).toEqual([]);
    // not a URL: nothing changes
    expect(url![0]!.apply(hook, { params: { url: 'cert-manager-webhook:443' } }).object).toBe(hook);
    expect(hook.webhooks[0]!.clientConfig.service.name).toBe('cert-manager-webhook');
  });

  it('narrowing wildcard resources uses the resources and groups the user typed', () => {
    const hook = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'x' },
      webhooks: [
        {
          name: 'a.b.c',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://h.example.com/' },
          rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
        },
      ],
    };
    const fix = lint(hook).find((l) => l.id === 'W05')!.fixes![0]!;
    const { object } = fix.apply(hook, { params: { resources: 'deployments, statefulsets/scale', apiGroups: 'apps' } });
    expect((object as typeof hook).webhooks[0]!.rules[0]).toEqual({
      operations: ['CREATE'],
      apiGroups: ['apps'],
      apiVersions: ['*'],
      resources: ['deployments', 'statefulsets/scale'],
    });
    expect(fix.apply(hook, { params: { resources: ' ' } }).object).toBe(hook);
  });

  it('narrowing replaces only the wildcards: listed resources stay, and so do the groups they are served in', () => {
    const hookWith = (rule: Record<string, string[]>) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'x' },
      webhooks: [
        {
          name: 'a.b.c',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://h.example.com/' },
          rules: [{ operations: ['CREATE', 'UPDATE', 'CONNECT'], apiVersions: ['*'], ...rule }],
        },
      ],
    });
    const narrow = (hook: ReturnType<typeof hookWith>, params?: Record<string, string>) => {
      const fix = lint(hook).find((l) => l.id === 'W05')?.fixes?.[0];
      return fix && { fix, rule: (fix.apply(hook, { params }).object as typeof hook).webhooks[0]!.rules[0] };
    };
    // `*` in both: the typed resources take its place; deployments/scale keeps apps beside the typed ""
    const both = narrow(hookWith({ apiGroups: ['*'], resources: ['*', 'pods/exec', 'pods/attach', 'deployments/scale'] }))!;
    expect(both.fix.params!.map((p) => p.default)).toEqual(['pods', '""']);
    expect(both.rule).toMatchObject({ apiGroups: ['', 'apps'], resources: ['pods', 'pods/exec', 'pods/attach', 'deployments/scale'] });
    // a typed resource already listed is not listed twice; `*/*` goes too
    const twice = narrow(hookWith({ apiGroups: [''], resources: ['pods/exec', '*/*', 'pods'] }), { resources: 'pods, services', apiGroups: '""' })!;
    expect(twice.rule).toMatchObject({ apiGroups: [''], resources: ['pods/exec', 'services', 'pods'] });
    // only apiGroups is `*`: its listed resources stay, the groups that serve them replace it
    const groups = narrow(hookWith({ apiGroups: ['*'], resources: ['deployments', 'events'] }))!;
    expect(groups.fix.params!.map((p) => [p.name, p.default])).toEqual([['apiGroups', 'apps, "", events.k8s.io']]);
    expect(groups.rule).toMatchObject({ apiGroups: ['apps', '', 'events.k8s.io'], resources: ['deployments', 'events'] });
    // a custom resource's group is not known: `*` stays, and with nothing else to narrow no fix is offered
    const custom = narrow(hookWith({ apiGroups: ['*'], resources: ['*', 'widgets'] }))!;
    expect(custom.rule).toMatchObject({ apiGroups: ['*'], resources: ['pods', 'widgets'] });
    expect(narrow(hookWith({ apiGroups: ['*'], resources: ['widgets'] }))).toBeUndefined();
  });

  it('excluding namespaces merges into an existing NotIn expression and keeps other requirements', () => {
    const hook = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'x' },
      webhooks: [
        {
          name: 'a.b.c',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { name: 's', namespace: 'hooks' } },
          failurePolicy: 'Fail',
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-public'] },
              { key: 'tier', operator: 'NotIn', values: ['x'] },
            ],
          },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        },
      ],
    };
    const fix = lint(hook).find((l) => l.id === 'W01')!.fixes![0]!;
    expect(fix.title).toBe('Exclude kube-system and hooks in namespaceSelector');
    const { object } = fix.apply(hook);
    expect((object as typeof hook).webhooks[0]!.namespaceSelector.matchExpressions).toEqual([
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-public', 'kube-system', 'hooks'] },
      { key: 'tier', operator: 'NotIn', values: ['x'] },
    ]);
    expect(lint(object).map((l) => l.id)).not.toContain('W02');
  });
});
