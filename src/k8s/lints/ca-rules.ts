/**
 * caBundle lints: what is wrong with the certificates a webhook trusts. Inspection is async
 * (WebCrypto), so these rules run over inspections looked up by the caller: the store keeps
 * a cache filled in the background (caBundleLints), Node callers await them (lintCaBundles).
 */
import { inspectCaBundle, type CaBundleInspection, type CertificateInfo } from '../ca-bundle';
import { fieldPath } from '../../base/path';
import { isObj, kindOf, objs, str } from './helpers';
import type { Lint } from './types';

/** A webhook's caBundle, with its field and the service it serves (if any). */
export interface CaBundleSite {
  field: string;
  caBundle: string;
  service?: { name: string; namespace: string };
}

/** The non-empty caBundles of a webhook configuration. */
export function caBundleSites(object: unknown): CaBundleSite[] {
  if (!isObj(object) || !/WebhookConfiguration$/.test(kindOf(object))) return [];
  return objs(object.webhooks).flatMap((w, i) => {
    const cc = isObj(w.clientConfig) ? w.clientConfig : {};
    const caBundle = str(cc.caBundle);
    if (!caBundle) return [];
    const svc = isObj(cc.service) ? cc.service : undefined;
    return [
      {
        field: String(fieldPath('webhooks').index(i).child('clientConfig', 'caBundle')),
        caBundle,
        service: svc ? { name: str(svc.name), namespace: str(svc.namespace) } : undefined,
      },
    ];
  });
}

interface CertContext {
  now: Date;
  site: CaBundleSite;
  /** The bundle has a single certificate (a self-signed serving certificate then is the server's own). */
  only: boolean;
}

interface CaLintRule {
  id: string;
  name: string;
  severity: 'warning' | 'info';
  /** A message when the certificate has the problem. */
  check(c: CertificateInfo, ctx: CertContext): string | undefined;
  hint: string;
}

const DAY = 86_400_000;
const label = (c: CertificateInfo) => `certificate ${c.index + 1} (${c.subject || 'no subject'})`;

export const CA_LINT_RULES: readonly CaLintRule[] = [
  {
    id: 'C02',
    name: 'certificate-expired',
    severity: 'warning',
    check: (c, { now }) =>
      Date.parse(c.notAfter) < now.getTime()
        ? `${label(c)} expired on ${c.notAfter.slice(0, 10)}`
        : Date.parse(c.notBefore) > now.getTime()
          ? `${label(c)} is not valid before ${c.notBefore.slice(0, 10)}`
          : undefined,
    hint: 'The apiserver cannot verify the webhook with it: every call fails, and failurePolicy decides. Renew the CA and update caBundle.',
  },
  {
    id: 'C03',
    name: 'certificate-expiring',
    severity: 'warning',
    check: (c, { now }) => {
      const left = Date.parse(c.notAfter) - now.getTime();
      return left >= 0 && left < 30 * DAY && Date.parse(c.notBefore) <= now.getTime()
        ? `${label(c)} expires within 30 days (${c.notAfter.slice(0, 10)})`
        : undefined;
    },
    hint: 'Rotate it before then (cert-manager can inject a renewed CA automatically).',
  },
  {
    id: 'C04',
    name: 'not-a-ca',
    severity: 'warning',
    check: (c) => (!c.isCA && !c.selfSigned ? `${label(c)} is neither a CA nor self-signed` : undefined),
    hint: "caBundle must hold the CA that signed the webhook's serving certificate (or the self-signed certificate itself); a leaf signed by another CA cannot verify anything.",
  },
  {
    id: 'C05',
    name: 'san-mismatch',
    severity: 'warning',
    check: (c, { site, only }) => {
      if (!site.service || !c.selfSigned || c.isCA || !only) return undefined;
      const host = `${site.service.name}.${site.service.namespace}.svc`;
      return c.dnsNames.includes(host)
        ? undefined
        : `the self-signed serving ${label(c)} does not name ${host} (DNS names: ${c.dnsNames.join(', ') || 'none'})`;
    },
    hint: 'The apiserver calls the service at <service>.<namespace>.svc and checks that name against the certificate: add it as a DNS subject alternative name.',
  },
  {
    id: 'C06',
    name: 'weak-key',
    severity: 'warning',
    check: (c) => (c.keyAlgorithm === 'RSA' && (c.keySize ?? 0) < 2048 ? `${label(c)} has a ${c.keySize}-bit RSA key` : undefined),
    hint: 'RSA keys under 2048 bits are rejected by current TLS stacks and can be broken: use 2048+ bits or ECDSA P-256.',
  },
  {
    id: 'C07',
    name: 'sha1-signature',
    severity: 'warning',
    check: (c) => (c.signatureHash === 'SHA-1' ? `${label(c)} is signed with SHA-1` : undefined),
    hint: 'SHA-1 is broken, and Go (so the apiserver) rejects SHA-1 signatures in the chains it verifies: re-issue with SHA-256.',
  },
];

/** The caBundle lints of an object, from inspections the caller has (a missing one is skipped for now). */
export function caBundleLints(object: unknown, lookup: (caBundle: string) => CaBundleInspection | undefined, now: Date = new Date()): Lint[] {
  const out: Lint[] = [];
  for (const site of caBundleSites(object)) {
    const inspection = lookup(site.caBundle);
    if (!inspection) continue;
    for (const p of inspection.problems)
      out.push({
        id: 'C01',
        name: 'cabundle-undecodable',
        severity: 'warning',
        field: site.field,
        message: p.message,
        hint: 'The apiserver reads caBundle as base64 of one or more PEM CERTIFICATE blocks.',
      });
    if (inspection.certificates.length === 0 && inspection.problems.length === 0)
      out.push({ id: 'C01', name: 'cabundle-undecodable', severity: 'warning', field: site.field, message: 'caBundle holds no certificate' });
    const ctx = { now, site, only: inspection.certificates.length === 1 };
    for (const c of inspection.certificates)
      for (const rule of CA_LINT_RULES) {
        const message = rule.check(c, ctx);
        if (message) out.push({ id: rule.id, name: rule.name, severity: rule.severity, field: site.field, message, hint: rule.hint });
      }
  }
  return out;
}

/** The caBundle lints of an object, inspecting each bundle (Node, CLI, tests). */
export async function lintCaBundles(object: unknown, now: Date = new Date()): Promise<Lint[]> {
  const found = new Map<string, CaBundleInspection>();
  for (const site of caBundleSites(object)) if (!found.has(site.caBundle)) found.set(site.caBundle, await inspectCaBundle(site.caBundle));
  return caBundleLints(object, (b) => found.get(b), now);
}
