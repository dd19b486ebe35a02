/**
 * The part of Go's net/url.Parse that webhook URL validation depends on
 * (k8s.io/apiserver/pkg/util/webhook.ValidateWebhookURL): scheme, host, user
 * information, fragment, raw query, and the parse errors worded as Go words them
 * (`parse "<url>": <reason>`).
 */

export type GoURL = { ok: true; scheme: string; host: string; user: string | null; fragment: string; rawQuery: string } | { ok: false; error: string };

/** Go's %q for the ASCII strings seen here. */
const quote = (s: string): string => JSON.stringify(s);

const isAlpha = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** The ASCII characters a one-character pattern accepts, by code: a lookup per character instead of a regex run. */
const asciiAccepted = (pattern: RegExp): Uint8Array => Uint8Array.from({ length: 0x80 }, (_, c) => (pattern.test(String.fromCharCode(c)) ? 1 : 0));

/** Characters allowed unescaped in a host (shouldEscape(c, encodeHost) is false), besides '%' and non-ASCII. */
const hostChar = asciiAccepted(/^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/);

/** validUserinfo */
const userinfoChar = asciiAccepted(/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]$/);

type Step<T> = { ok: true; value: T } | { ok: false; error: string };

/** unescape(s, mode): only the errors matter here. */
function unescapeError(s: string, mode: 'host' | 'other'): string | undefined {
  for (let i = 0; i < s.length; ) {
    const code = s.charCodeAt(i);
    if (code === 0x25 /* % */) {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) return `invalid URL escape ${quote(s.slice(i, i + 3))}`;
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') return `invalid URL escape ${quote(s.slice(i, i + 3))}`;
      i += 3;
      continue;
    }
    if (mode === 'host' && code < 0x80 && !hostChar[code]) return `invalid character ${quote(s[i]!)} in host name`;
    i++;
  }
  return undefined;
}

/** validOptionalPort */
const validOptionalPort = (port: string): boolean => port === '' || (port[0] === ':' && [...port.slice(1)].every(isDigit));

/** parseHost */
function parseHost(host: string): Step<string> {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) return { ok: false, error: "missing ']' in host" };
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) return { ok: false, error: `invalid port ${quote(colonPort)} after host` };
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) return { ok: false, error: `invalid port ${quote(colonPort)} after host` };
    }
  }
  const e = unescapeError(host, 'host');
  return e ? { ok: false, error: e } : { ok: true, value: host };
}

/** parseAuthority: the user information is the part before the last '@' (present even when empty). */
function parseAuthority(authority: string): Step<{ user: string | null; host: string }> {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (!host.ok) return host;
  if (at < 0) return { ok: true, value: { user: null, host: host.value } };
  const userinfo = authority.slice(0, at);
  for (let i = 0; i < userinfo.length; i++) if (!userinfoChar[userinfo.charCodeAt(i)]) return { ok: false, error: 'net/url: invalid userinfo' }; // non-ASCII: outside the table
  const e = unescapeError(userinfo, 'other');
  if (e) return { ok: false, error: e };
  return { ok: true, value: { user: userinfo, host: host.value } };
}

/** getScheme */
function getScheme(raw: string): Step<{ scheme: string; rest: string }> {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === '+' || c === '-' || c === '.') {
      if (i === 0) return { ok: true, value: { scheme: '', rest: raw } };
      continue;
    }
    if (c === ':') {
      if (i === 0) return { ok: false, error: 'missing protocol scheme' };
      return { ok: true, value: { scheme: raw.slice(0, i), rest: raw.slice(i + 1) } };
    }
    return { ok: true, value: { scheme: '', rest: raw } };
  }
  return { ok: true, value: { scheme: '', rest: raw } };
}

/** Go's stringContainsCTLByte: an ASCII control byte or DEL. */
const ctlByte = /[\u0000-\u001f\u007f]/;

/** url.Parse(rawURL) */
export function parseGoURL(rawURL: string): GoURL {
  const fail = (reason: string): GoURL => ({ ok: false, error: `parse ${quote(rawURL)}: ${reason}` });
  const hash = rawURL.indexOf('#');
  const u = hash < 0 ? rawURL : rawURL.slice(0, hash);
  const fragment = hash < 0 ? '' : rawURL.slice(hash + 1);

  if (ctlByte.test(u)) return fail('net/url: invalid control character in URL');
  let scheme = '';
  let host = '';
  let user: string | null = null;
  let rawQuery = '';
  if (u !== '' && u !== '*') {
    const s = getScheme(u);
    if (!s.ok) return fail(s.error);
    scheme = s.value.scheme.toLowerCase();
    let rest = s.value.rest;
    if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
    else {
      const q = rest.indexOf('?');
      if (q >= 0) {
        rawQuery = rest.slice(q + 1);
        rest = rest.slice(0, q);
      }
    }
    if (!rest.startsWith('/')) {
      if (scheme !== '') return finish(); // an opaque URL (scheme:opaque): no host
      const slash = rest.indexOf('/');
      const segment = slash < 0 ? rest : rest.slice(0, slash);
      if (segment.includes(':')) return fail('first path segment in URL cannot contain colon');
    }
    if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
      const slash = rest.indexOf('/', 2);
      const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
      rest = slash < 0 ? '' : rest.slice(slash);
      const a = parseAuthority(authority);
      if (!a.ok) return fail(a.error);
      host = a.value.host;
      user = a.value.user;
    }
    const e = unescapeError(rest, 'other');
    if (e) return fail(e);
  }
  return finish();

  function finish(): GoURL {
    const e = unescapeError(fragment, 'other');
    if (e) return fail(e);
    return { ok: true, scheme, host, user, fragment, rawQuery };
  }
}
