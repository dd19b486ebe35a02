/**
 * What a caBundle holds, under the field: each certificate's subject, issuer, validity
 * relative to now, names, key, signature and fingerprint, and what does not decode.
 */
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { relativeTime, type CertificateInfo } from '../k8s/ca-bundle';
import { useCaInspection } from '../store';

const DAY = 86_400_000;

function validity(c: CertificateInfo, now: Date): { text: string; level: '' | 'soon' | 'bad' } {
  if (Date.parse(c.notBefore) > now.getTime())
    return { text: `not valid yet: valid from ${c.notBefore.slice(0, 10)} (${relativeTime(c.notBefore, now)})`, level: 'bad' };
  const left = Date.parse(c.notAfter) - now.getTime();
  if (left < 0) return { text: `expired ${relativeTime(c.notAfter, now)} (${c.notAfter.slice(0, 10)})`, level: 'bad' };
  return { text: `expires ${relativeTime(c.notAfter, now)} (${c.notAfter.slice(0, 10)})`, level: left < 30 * DAY ? 'soon' : '' };
}

export function CaBundleDetails({ value }: { value: unknown }) {
  const caBundle = typeof value === 'string' ? value : '';
  const inspection = useCaInspection(caBundle);
  if (!caBundle.trim()) return null;
  if (!inspection) return <p className="hint">Reading the certificates…</p>;
  const now = new Date();
  return (
    <div data-testid="ca-certs">
      <ul className="ca-certs" aria-label="Certificates in the CA bundle">
        {inspection.certificates.map((c) => {
          const v = validity(c, now);
          const names = [...c.dnsNames, ...c.ipAddresses];
          return (
            <li key={c.index} className={v.level}>
              <div>
                <strong>{c.subject || '(no subject)'}</strong> {c.isCA ? '· CA' : '· not a CA'}
                {c.selfSigned ? ' · self-signed' : ` · issued by ${c.issuer}`}
              </div>
              <div data-testid="ca-validity">{v.text}</div>
              <div className="ca-meta">
                {c.keyAlgorithm}
                {c.keySize ? ` ${c.keySize}-bit` : ''} · {c.signatureAlgorithm}
                {names.length ? ` · SANs: ${names.join(', ')}` : ''}
              </div>
              <div className="ca-meta">
                serial <code>{c.serial}</code> · SHA-256 <code title={c.sha256}>{c.sha256.slice(0, 23)}…</code>
              </div>
            </li>
          );
        })}
      </ul>
      {inspection.problems.map((p, i) => (
        <p key={i} className="hint">
          {p.message}
        </p>
      ))}
    </div>
  );
}
