/**
 * What is inside a webhook's `clientConfig.caBundle`: base64 → PEM → X.509, per certificate
 * the names, validity, key, signature and SHA-256 fingerprint, and problems for whatever
 * does not decode. Async: the fingerprint and the self-signature check use WebCrypto
 * (browser and Node 20). The X.509 parser (@peculiar/x509) is loaded on first use, so it
 * stays out of the app's first bundle.
 */

export interface CertificateInfo {
  /** Position in the bundle, from 0. */
  index: number;
  subject: string;
  issuer: string;
  /** Hex, as openssl prints it (lower case). */
  serial: string;
  /** ISO 8601 times. */
  notBefore: string;
  notAfter: string;
  dnsNames: string[];
  ipAddresses: string[];
  isCA: boolean;
  /** RSA, ECDSA, Ed25519, … */
  keyAlgorithm: string;
  /** RSA modulus bits (or the EC curve's size). */
  keySize?: number;
  /** EC curve name (P-256). */
  curve?: string;
  /** e.g. "SHA-256 with RSA", "SHA-1 with RSA", "SHA-384 with ECDSA". */
  signatureAlgorithm: string;
  /** The hash inside the signature algorithm (SHA-1, SHA-256, …). */
  signatureHash?: string;
  /** SHA-256 of the DER, upper-case hex pairs joined by ':'. */
  sha256: string;
  selfSigned: boolean;
}

export interface CaBundleProblem {
  message: string;
  /** The PEM block it concerns, from 0. */
  block?: number;
}

export interface CaBundleInspection {
  certificates: CertificateInfo[];
  problems: CaBundleProblem[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Bytes of standard base64 (what the apiserver decodes []byte fields with), or undefined. */
function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const compact = text.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 !== 0) return undefined;
  const bin = atob(compact);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const hexPairs = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');

const CURVE_BITS: Record<string, number> = { 'P-256': 256, 'P-384': 384, 'P-521': 521 };
const KEY_NAMES: Record<string, string> = { 'RSASSA-PKCS1-v1_5': 'RSA', 'RSA-PSS': 'RSA', RSA: 'RSA', ECDSA: 'ECDSA', ECDH: 'EC' };

type X509Module = typeof import('@peculiar/x509');
let x509Module: Promise<X509Module> | undefined;
/** The parser, loaded once (reflect-metadata first: the library needs the Reflect polyfill). */
const loadX509 = (): Promise<X509Module> => (x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509')));

async function describeCertificate(x509: X509Module, der: Uint8Array<ArrayBuffer>, index: number): Promise<CertificateInfo> {
  const cert = new x509.X509Certificate(der);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const names = san ? san.names.items : [];
  const key = cert.publicKey.algorithm as { name: string; modulusLength?: number; namedCurve?: string };
  const sig = cert.signatureAlgorithm as { name: string; hash?: { name: string } };
  const keyAlgorithm = KEY_NAMES[key.name] ?? key.name;
  let selfSigned = cert.subject === cert.issuer;
  if (selfSigned) selfSigned = await cert.isSelfSigned().catch(() => true);
  return {
    index,
    subject: cert.subject,
    issuer: cert.issuer,
    serial: cert.serialNumber.toLowerCase(),
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    dnsNames: names.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === 'ip').map((n) => n.value),
    isCA: cert.getExtension(x509.BasicConstraintsExtension)?.ca ?? false,
    keyAlgorithm,
    keySize: key.modulusLength ?? (key.namedCurve ? CURVE_BITS[key.namedCurve] : undefined),
    curve: key.namedCurve,
    signatureAlgorithm: `${sig.hash?.name ? `${sig.hash.name} with ` : ''}${KEY_NAMES[sig.name] ?? sig.name}`,
    signatureHash: sig.hash?.name,
    sha256: hexPairs(await cert.getThumbprint('SHA-256')),
    selfSigned,
  };
}

/** Inspect a caBundle as written in the object (base64 of PEM). Never throws: what does not decode is a problem. */
export async function inspectCaBundle(caBundle: string): Promise<CaBundleInspection> {
  const problems: CaBundleProblem[] = [];
  const certificates: CertificateInfo[] = [];
  if (!caBundle.trim()) return { certificates, problems: [{ message: 'caBundle is empty' }] };
  let text: string;
  if (caBundle.includes('-----BEGIN')) {
    problems.push({ message: 'caBundle holds PEM text, but the API expects it base64-encoded (base64 of the PEM file)' });
    text = caBundle;
  } else {
    const bytes = fromBase64(caBundle);
    if (!bytes) return { certificates, problems: [{ message: 'caBundle is not valid base64' }] };
    if (bytes[0] === 0x30)
      return { certificates, problems: [{ message: 'caBundle decodes to binary (DER?) data, not PEM: encode the PEM file, not the DER' }] };
    text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  }
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (!blocks.length) return { certificates, problems: [...problems, { message: 'no PEM block (-----BEGIN CERTIFICATE-----) in the decoded caBundle' }] };
  const outside = blocks.reduce((rest, m) => rest.replace(m[0], ''), text).trim();
  if (outside) problems.push({ message: `text outside the PEM blocks is ignored: "${outside.slice(0, 40)}${outside.length > 40 ? '…' : ''}"` });
  let x509: X509Module;
  try {
    x509 = await loadX509();
  } catch (e) {
    return { certificates, problems: [...problems, { message: `the certificate parser did not load: ${String(e)}` }] };
  }
  for (const [i, m] of blocks.entries()) {
    const type = m[1]!;
    if (type !== 'CERTIFICATE') {
      problems.push({
        block: i,
        message: type.includes('PRIVATE KEY')
          ? `block ${i + 1} is a ${type}: a private key does not belong in caBundle (remove it, and rotate the key)`
          : `block ${i + 1} is a ${type}, not a CERTIFICATE`,
      });
      continue;
    }
    const der = fromBase64(m[2]!);
    if (!der) {
      problems.push({ block: i, message: `block ${i + 1}: the PEM body is not base64` });
      continue;
    }
    try {
      certificates.push(await describeCertificate(x509, der, i));
    } catch (e) {
      problems.push({ block: i, message: `block ${i + 1} does not decode as an X.509 certificate (${e instanceof Error ? e.message : String(e)})` });
    }
  }
  return { certificates, problems };
}

const DAY = 86_400_000;

/** "in 12 days", "3 days ago", "in 5 hours": a time relative to `now`. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const ms = Date.parse(iso) - now.getTime();
  const abs = Math.abs(ms);
  const [n, unit] =
    abs >= 2 * 365 * DAY
      ? [Math.round(abs / (365 * DAY)), 'year']
      : abs >= 2 * DAY
        ? [Math.round(abs / DAY), 'day']
        : abs >= 7_200_000
          ? [Math.round(abs / 3_600_000), 'hour']
          : [Math.max(1, Math.round(abs / 60_000)), 'minute'];
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}
