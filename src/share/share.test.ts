import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { crc32 } from './crc32';
import { fromBase64Url, toBase64Url } from './base64url';
import { decodeShareFragment, encodeShareFragment, MAX_SHARE_JSON_BYTES, shareUrl } from './link';
import { MIGRATIONS, readWorkspaceFile, testsDataOf, toWorkspaceFile, WORKSPACE_FORMAT, WORKSPACE_VERSION, type WorkspaceFile } from './workspace-file';

const policy = 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p # comment kept\n';
const ws = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: WORKSPACE_FORMAT,
  version: 1,
  documents: [{ name: 'p', text: policy }],
  ...extra,
});

describe('readWorkspaceFile', () => {
  it('reads a minimal workspace and keeps texts verbatim', () => {
    const r = readWorkspaceFile(ws());
    expect(r).toEqual({
      ok: true,
      warnings: [],
      workspace: { format: WORKSPACE_FORMAT, version: WORKSPACE_VERSION, documents: [{ name: 'p', text: policy }] },
    });
  });

  it.each([
    [null, /expected a JSON object/],
    [[], /expected a JSON object/],
    [{ documents: [] }, /"format" is missing/],
    [{ format: 'kaptest', version: 1, documents: [] }, /"format" is "kaptest"/],
    [{ format: WORKSPACE_FORMAT, documents: [] }, /"version" must be a whole number/],
    [{ format: WORKSPACE_FORMAT, version: 1.5, documents: [] }, /"version" must be a whole number/],
    [{ format: WORKSPACE_FORMAT, version: 7, documents: [] }, /newer Admission Workbench \(format version 7/],
    [{ format: WORKSPACE_FORMAT, version: 0, documents: [] }, /format version 0 is not supported/],
    [{ format: WORKSPACE_FORMAT, version: 1 }, /"documents" must be a list/],
    [{ format: WORKSPACE_FORMAT, version: 1, documents: [{ text: 'a' }, { name: 'x' }] }, /documents\[1\]\.text must be a string/],
  ])('refuses %j with a clear error', (value, message) => {
    const r = readWorkspaceFile(value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it('a scratchpad (version 2): read with its draft; a bad one is dropped with a warning', () => {
    const r = readWorkspaceFile(
      ws({
        version: 2,
        documents: [],
        scratchpad: { context: 'webhook-matchCondition', expression: 'request.operation == "CREATE"', draft: { request: { operation: 'DELETE' } } },
      }),
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.workspace.scratchpad).toMatchObject({
      context: 'webhook-matchCondition',
      expression: 'request.operation == "CREATE"',
      params: false,
      draft: { request: { operation: 'DELETE' } },
    });
    const bad = readWorkspaceFile(ws({ scratchpad: { context: 'nowhere', expression: 'true' } }));
    expect(bad.ok && bad.workspace.scratchpad).toBe(undefined);
    expect(bad.ok && bad.warnings).toEqual([expect.stringMatching(/^"scratchpad" needs an "expression" and a "context"/)]);
  });

  it('tolerates unknown fields (a newer app of the same version may add some)', () => {
    const r = readWorkspaceFile(ws({ theme: 'dark', documents: [{ text: 'a: 1\n', color: 'red' }] }));
    expect(r.ok && r.workspace.documents).toEqual([{ text: 'a: 1\n' }]);
  });

  it('migrates older versions through the migration table', () => {
    const v0 = { format: WORKSPACE_FORMAT, version: 0, docs: ['a: 1\n'] };
    const r = readWorkspaceFile(v0, { ...MIGRATIONS, 0: (p) => ({ ...p, documents: (p.docs as string[]).map((text) => ({ text })) }) });
    expect(r.ok && r.workspace).toEqual({ format: WORKSPACE_FORMAT, version: WORKSPACE_VERSION, documents: [{ text: 'a: 1\n' }] });
  });

  it("version 2 keeps each document's separator; a version-1 file (none) is still read", () => {
    const v2 = readWorkspaceFile(ws({ version: 2, documents: [{ text: 'a: 1\n', separator: '# head\n--- # one\n' }] }));
    expect(v2.ok && v2.workspace.documents).toEqual([{ text: 'a: 1\n', separator: '# head\n--- # one\n' }]);
    expect(WORKSPACE_VERSION).toBe(2);
    const v1 = readWorkspaceFile(ws());
    expect(v1.ok && v1.workspace.version).toBe(2);
  });

  it('opens a file at the pre-release 1.38 as it is, and one at 1.39 at the nearest (1.38)', () => {
    const at138 = readWorkspaceFile(ws({ kubernetesVersion: '1.38' }));
    expect(at138.ok && at138.workspace.kubernetesVersion).toBe('1.38');
    expect(at138.ok && at138.warnings).toEqual([]);
    const at139 = readWorkspaceFile(ws({ kubernetesVersion: '1.39' }));
    expect(at139.ok && at139.workspace.kubernetesVersion).toBe('1.38');
    expect(at139.ok && at139.warnings[0]).toMatch(/^kubernetesVersion "1\.39" is not one of .*: opened at the nearest, 1\.38$/);
  });

  it('checks kubernetesVersion and the document indexes of test data, dropping only what is wrong', () => {
    const r = readWorkspaceFile(
      ws({
        kubernetesVersion: '1.99',
        celCases: [
          { document: 0, path: 'spec.validations[0].expression', cases: [{ name: 'c', expect: { value: 'true' } }] },
          { document: 3, path: 'x', cases: [] },
        ],
        policyCases: [{ policy: 'p', cases: [{ name: 'ok', request: { operation: 'CREATE' }, expect: { outcome: 'deny' } }, { name: 'no request' }] }, {}],
        scenarios: 'nope',
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual([
      'kubernetesVersion "1.99" is not one of 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37, 1.38: opened at the nearest, 1.38',
      'celCases[1]: needs a "document" index into documents: ignored',
      'policyCases[1]: needs a "document" index into documents or a "policy" name: ignored',
      '"scenarios" is not a list: ignored',
    ]);
    expect(r.workspace.kubernetesVersion).toBe('1.38');
    expect(r.workspace.celCases?.[0]?.cases[0]).toMatchObject({ name: 'c', expect: { error: false, value: 'true' } });
    // a case in the shape before the one request model is read into it
    expect(r.workspace.policyCases).toEqual([
      {
        policy: 'p',
        cases: [
          {
            name: 'ok',
            input: { request: { operation: 'CREATE', resource: { group: '', version: '', resource: '' }, kind: { group: '', version: '', kind: '' } } },
            expect: { outcome: 'deny' },
          },
        ],
      },
    ]);
  });

  it('round-trips the app state: documents by id ↔ indexes, test data included', () => {
    const docs = [
      { id: 'a', text: policy, name: 'p' },
      { id: 'b', text: 'kind: ConfigMap\n' },
    ];
    const draft = readWorkspaceFile(ws({ drafts: [{ document: 0, draft: {} }] }));
    const d = draft.ok ? draft.workspace.drafts![0]!.draft : undefined;
    const tests = {
      docs: {
        a: {
          draft: d,
          celCases: { 'spec.validations[0].expression': [{ id: 'x', name: 'c', input: d!, expect: { error: true as const } }] },
          policyCases: [],
          open: [],
        },
        b: {
          celCases: {},
          policyCases: [
            {
              name: 'pc',
              input: {
                request: {
                  operation: 'CREATE' as const,
                  resource: { group: '', version: 'v1', resource: 'pods' },
                  kind: { group: '', version: 'v1', kind: 'Pod' },
                },
              },
              expect: { outcome: 'admit' as const },
            },
          ],
          open: [],
        },
      },
      scenarios: [],
    };
    const file = toWorkspaceFile(docs, tests, { kubernetesVersion: '1.33' });
    const back = readWorkspaceFile(JSON.parse(JSON.stringify(file)));
    expect(back.ok && back.workspace).toEqual(file);
    const data = testsDataOf(file, ['n1', 'n2']);
    expect(data.docs.n1?.celCases).toEqual(tests.docs.a.celCases);
    expect(data.docs.n1?.draft).toEqual(d);
    expect(data.docs.n2?.policyCases).toEqual(tests.docs.b.policyCases);
  });
});

describe('the target platform in a workspace file', () => {
  it('round-trips a platform with its Kubernetes release; files without one read as before', () => {
    const file = toWorkspaceFile([{ id: 'a', text: policy }], undefined, { kubernetesVersion: '1.32', platform: 'openshift-4.19' });
    expect(file).toMatchObject({ kubernetesVersion: '1.32', platform: 'openshift-4.19' });
    const back = readWorkspaceFile(JSON.parse(JSON.stringify(file)));
    expect(back.ok && back.workspace).toEqual(file);
    expect(back.ok && back.warnings).toEqual([]);
    const old = readWorkspaceFile(ws({ kubernetesVersion: '1.34' }));
    expect(old.ok && old.workspace.platform).toBeUndefined();
    expect(old.ok && old.workspace.kubernetesVersion).toBe('1.34');
  });

  it('the platform decides the Kubernetes release, and one this Workbench lacks opens at the nearest and says so', () => {
    const mismatch = readWorkspaceFile(ws({ kubernetesVersion: '1.37', platform: 'openshift-4.20' }));
    expect(mismatch.ok && mismatch.workspace).toMatchObject({ platform: 'openshift-4.20', kubernetesVersion: '1.33' });
    const older = readWorkspaceFile(ws({ platform: 'openshift-4.12' }));
    expect(older.ok && older.workspace).toMatchObject({ platform: 'openshift-4.17', kubernetesVersion: '1.30' });
    expect(older.ok && older.warnings).toEqual([
      'platform "openshift-4.12" is not one of openshift-4.17, openshift-4.18, openshift-4.19, openshift-4.20, openshift-4.21, openshift-4.22: opened at the nearest, openshift-4.17',
    ]);
    const unknown = readWorkspaceFile(ws({ kubernetesVersion: '1.31', platform: 'rancher-2.9' }));
    expect(unknown.ok && unknown.workspace.platform).toBeUndefined();
    expect(unknown.ok && unknown.workspace.kubernetesVersion).toBe('1.31');
    expect(unknown.ok && unknown.warnings[0]).toMatch(/^platform "rancher-2.9" is not one of .*: ignored$/);
  });
});

describe('base64url and crc32', () => {
  it('round-trips all byte values and refuses other alphabets', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    expect(toBase64Url(bytes)).not.toMatch(/[+/=]/);
    expect(fromBase64Url('ab+c')).toBeUndefined();
    expect(fromBase64Url('abcde')).toBeUndefined();
  });
  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
});

describe('share links', () => {
  const file = readWorkspaceFile(ws()) as { ok: true; workspace: WorkspaceFile };

  it('encode → decode gives the same workspace; the URL keeps the page and replaces the fragment', async () => {
    const url = await shareUrl('https://portal.example/tools/workbench/#old', file.workspace);
    expect(url).toMatch(/^https:\/\/portal\.example\/tools\/workbench\/#workspace=[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
    const r = await decodeShareFragment(new URL(url).hash);
    expect(r).toEqual({ ok: true, workspace: file.workspace, warnings: [] });
  });

  it('refuses links that are not ours, truncated or tampered, with a message', async () => {
    const f = await encodeShareFragment(file.workspace);
    const notOurs = await decodeShareFragment('#section-2');
    expect(!notOurs.ok && notOurs.error).toMatch(/not an Admission Workbench share link/);
    for (const bad of [
      f.slice(0, -5),
      f.slice(0, 20),
      f.replace(/\.(.)/, (_, c: string) => `.${c === 'A' ? 'B' : 'A'}`),
      `${f}!`,
      f.replace(/^workspace=..../, 'workspace=0000'),
    ]) {
      const r = await decodeShareFragment(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/broken/);
    }
  });

  it('refuses a valid link whose payload is not a workspace', async () => {
    const json = new TextEncoder().encode('{"hello":1}');
    const frag = `workspace=${crc32(json).toString(16).padStart(8, '0')}.${toBase64Url(deflateRawSync(json))}`;
    const r = await decodeShareFragment(frag);
    expect(!r.ok && r.error).toMatch(/"format" is missing/);
  });

  it('stops decompressing a zip bomb at the size limit', async () => {
    const bomb = deflateRawSync(Buffer.alloc(MAX_SHARE_JSON_BYTES + 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const r = await decodeShareFragment(`workspace=00000000.${toBase64Url(bomb)}`);
    expect(!r.ok && r.error).toMatch(/expands to more than 16 MB/);
  });
});
