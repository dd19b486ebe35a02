/**
 * caBundle inspection and its lints, on checked-in certificates (the repository's fixtures/ca,
 * made by fixtures/ca/generate.sh) and on certificates openssl makes now, so expiry is relative
 * to the time of the run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePath, readFixture } from '../../fixtures';
import { inspectCaBundle, relativeTime } from './ca-bundle';
import { lintCaBundles } from './lints';

const pem = (name: string) => readFixture('ca', name);
const b64 = (text: string) => Buffer.from(text).toString('base64');

const hook = (caBundle: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'x' },
  webhooks: [
    { name: 'a.b.c', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { service: { name: 'hook', namespace: 'hooks' }, caBundle } },
  ],
});
const caLints = async (caBundle: string, now?: Date) => (await lintCaBundles(hook(caBundle), now)).map((l) => `${l.id} ${l.message}`);

let openssl = false;
try {
  execFileSync('openssl', ['version']);
  openssl = true;
} catch {
  openssl = false;
}

describe('inspectCaBundle on checked-in certificates', () => {
  it('a valid CA: names, validity, key, signature, fingerprint', async () => {
    const r = await inspectCaBundle(b64(pem('valid-ca.pem')));
    expect(r.problems).toEqual([]);
    const [c] = r.certificates;
    expect(c).toMatchObject({
      index: 0,
      subject: 'CN=Workbench Test CA',
      issuer: 'CN=Workbench Test CA',
      isCA: true,
      selfSigned: true,
      keyAlgorithm: 'RSA',
      keySize: 2048,
      signatureAlgorithm: 'SHA-256 with RSA',
    });
    expect(c!.notAfter.startsWith('2126-')).toBe(true);
    expect(c!.sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    if (openssl) {
      const fp = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256', '-in', fixturePath('ca', 'valid-ca.pem')], { encoding: 'utf8' });
      expect(fp.trim().split('=')[1]).toBe(c!.sha256);
      const serial = execFileSync('openssl', ['x509', '-noout', '-serial', '-in', fixturePath('ca', 'valid-ca.pem')], { encoding: 'utf8' });
      expect(serial.trim().split('=')[1]!.toLowerCase().replace(/^0+/, '')).toBe(c!.serial.replace(/^0+/, ''));
    }
    expect(await caLints(b64(pem('valid-ca.pem')))).toEqual([]);
  });

  it('an EC self-signed serving certificate with the service name: DNS and IP SANs, no finding', async () => {
    const r = await inspectCaBundle(b64(pem('self-signed-with-san.pem')));
    expect(r.certificates[0]).toMatchObject({
      isCA: false,
      selfSigned: true,
      keyAlgorithm: 'ECDSA',
      curve: 'P-256',
      keySize: 256,
      dnsNames: ['hook.hooks.svc', 'hook.hooks.svc.cluster.local'],
      ipAddresses: ['10.96.0.10'],
    });
    expect(await caLints(b64(pem('self-signed-with-san.pem')))).toEqual([]);
  });

  it('findings: expired, not yet valid, a leaf that is no CA, a self-signed leaf without the service name, RSA 1024, SHA-1', async () => {
    expect(await caLints(b64(pem('expired-ca.pem')))).toEqual(['C02 certificate 1 (CN=expired-ca) expired on 2021-01-01']);
    expect(await caLints(b64(pem('not-yet-valid-ca.pem')))).toEqual(['C02 certificate 1 (CN=not-yet-valid-ca) is not valid before 2120-01-01']);
    expect(await caLints(b64(pem('leaf-signed-by-ca.pem')))).toEqual(['C04 certificate 1 (CN=hook.hooks.svc) is neither a CA nor self-signed']);
    expect(await caLints(b64(pem('self-signed-without-san.pem')))).toEqual([
      'C05 the self-signed serving certificate 1 (CN=hook) does not name hook.hooks.svc (DNS names: hook.example.com)',
    ]);
    expect(await caLints(b64(pem('rsa-1024-ca.pem')))).toEqual(['C06 certificate 1 (CN=Weak CA) has a 1024-bit RSA key']);
    expect(await caLints(b64(pem('sha1-ca.pem')))).toEqual(['C07 certificate 1 (CN=SHA1 CA) is signed with SHA-1']);
  });

  it('a CA followed by the leaf it signed: two certificates, the leaf is flagged', async () => {
    const r = await inspectCaBundle(b64(pem('valid-ca.pem') + pem('leaf-signed-by-ca.pem')));
    expect(r.certificates.map((c) => [c.subject, c.issuer, c.isCA])).toEqual([
      ['CN=Workbench Test CA', 'CN=Workbench Test CA', true],
      ['CN=hook.hooks.svc', 'CN=Workbench Test CA', false],
    ]);
    expect(await caLints(b64(pem('valid-ca.pem') + pem('leaf-signed-by-ca.pem')))).toEqual([
      'C04 certificate 2 (CN=hook.hooks.svc) is neither a CA nor self-signed',
    ]);
  });

  it('what does not decode: not base64, no PEM block, PEM without base64, a key block, trailing text, a broken certificate, DER', async () => {
    const problems = async (s: string) => (await inspectCaBundle(s)).problems.map((p) => p.message);
    expect(await problems('%%% not base64')).toEqual(['caBundle is not valid base64']);
    expect(await problems(b64(pem('garbage.txt')))).toEqual(['no PEM block (-----BEGIN CERTIFICATE-----) in the decoded caBundle']);
    expect(await problems(pem('valid-ca.pem'))).toEqual(['caBundle holds PEM text, but the API expects it base64-encoded (base64 of the PEM file)']);
    expect(await problems(b64('-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n'))).toEqual([
      'block 1 is a RSA PRIVATE KEY: a private key does not belong in caBundle (remove it, and rotate the key)',
    ]);
    expect(await problems(b64(`${pem('valid-ca.pem')}trailing junk\n`))).toEqual(['text outside the PEM blocks is ignored: "trailing junk"']);
    const broken = await problems(b64('-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n'));
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatch(/^block 1 does not decode as an X.509 certificate/);
    expect(await problems(Buffer.from([0x30, 0x82, 0x01, 0x00]).toString('base64'))).toEqual([
      'caBundle decodes to binary (DER?) data, not PEM: encode the PEM file, not the DER',
    ]);
    expect(await caLints('%%%')).toEqual(['C01 caBundle is not valid base64']);
  });

  it('relative times', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(relativeTime('2026-01-11T00:00:00Z', now)).toBe('in 10 days');
    expect(relativeTime('2025-12-31T21:00:00Z', now)).toBe('3 hours ago');
    expect(relativeTime('2020-01-01T00:00:00Z', now)).toBe('6 years ago');
  });
});

describe.skipIf(!openssl)('certificates made by openssl now (expiry relative to the run)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'wb-ca-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
  const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';

  /** A self-signed certificate valid from `start` to `end` (openssl ca, which takes explicit dates). */
  function dated(name: string, start: Date, end: Date): string {
    const db = join(tmp, `db-${name}`);
    mkdirSync(db);
    writeFileSync(join(db, 'index.txt'), '');
    writeFileSync(join(db, 'serial'), '01\n');
    writeFileSync(
      join(tmp, `${name}.cnf`),
      `[ca]\ndefault_ca=d\n[d]\ndatabase=${db}/index.txt\nnew_certs_dir=${db}\nserial=${db}/serial\ndefault_md=sha256\npolicy=p\nunique_subject=no\nx509_extensions=ext\n[ext]\nbasicConstraints=critical,CA:TRUE\n[p]\ncommonName=supplied\n`,
    );
    run('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    run(
      'ca',
      '-config',
      `${name}.cnf`,
      '-selfsign',
      '-keyfile',
      `${name}.key`,
      '-in',
      `${name}.csr`,
      '-startdate',
      stamp(start),
      '-enddate',
      stamp(end),
      '-batch',
      '-notext',
      '-out',
      `${name}.pem`,
    );
    return readFileSync(join(tmp, `${name}.pem`), 'utf8');
  }

  it('a CA expiring in 10 days, one that expired yesterday, one valid next week, and a fresh serving certificate', async () => {
    const now = Date.now();
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'soon.key', '-out', 'soon.pem', '-days', '10', '-subj', '/CN=soon');
    const soon = await caLints(b64(readFileSync(join(tmp, 'soon.pem'), 'utf8')));
    expect(soon).toHaveLength(1);
    expect(soon[0]).toMatch(/^C03 certificate 1 \(CN=soon\) expires within 30 days/);

    expect(await caLints(b64(dated('yesterday', new Date(now - 30 * 86_400_000), new Date(now - 86_400_000))))).toEqual([
      `C02 certificate 1 (CN=yesterday) expired on ${new Date(now - 86_400_000).toISOString().slice(0, 10)}`,
    ]);
    const later = await caLints(b64(dated('later', new Date(now + 7 * 86_400_000), new Date(now + 400 * 86_400_000))));
    expect(later).toEqual([`C02 certificate 1 (CN=later) is not valid before ${new Date(now + 7 * 86_400_000).toISOString().slice(0, 10)}`]);

    run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'srv.key',
      '-out',
      'srv.pem',
      '-days',
      '365',
      '-subj',
      '/CN=hook.hooks.svc',
      '-addext',
      'basicConstraints=critical,CA:FALSE',
      '-addext',
      'subjectAltName=DNS:hook.hooks.svc',
    );
    const fresh = b64(readFileSync(join(tmp, 'srv.pem'), 'utf8'));
    expect(await caLints(fresh)).toEqual([]);
    const [c] = (await inspectCaBundle(fresh)).certificates;
    expect(relativeTime(c!.notAfter, new Date(now))).toMatch(/^in 36[45] days$/);
  });
});
