/**
 * String formats, worded exactly as k8s.io/apimachinery words them
 * (pkg/util/validation, pkg/api/validate/content). Each function returns the
 * list of messages (empty = valid); callers turn each into a field error.
 */
import { byteLength } from './values';
import { CEL_KEYWORDS, CEL_RESERVED } from '../../cel/reserved';

/**
 * No messages: the value is valid. Shared, and `readonly` so that callers only read it; not
 * frozen, because V8 iterates a frozen array (`for (const msg of …)`) on a slow path that
 * allocates at every loop.
 */
const VALID: readonly string[] = [];

/**
 * Remember values a format accepted (workspaces repeat the same label keys, versions and
 * names thousands of times). Bounded: cleared when it grows past `limit`.
 */
function memoValid(check: (value: string) => string[], limit = 20_000): (value: string) => readonly string[] {
  const valid = new Set<string>();
  return (value) => {
    if (valid.has(value)) return VALID;
    const msgs = check(value);
    if (msgs.length === 0) {
      if (valid.size >= limit) valid.clear();
      valid.add(value);
    }
    return msgs;
  };
}

/** validation.MaxLenError */
export const maxLenError = (length: number): string => `must be no more than ${length} characters`;

/**
 * content.MaxLenError: label keys and values say "bytes" since k8s.io/apimachinery v0.35
 * (Kubernetes 1.35), where they moved to pkg/api/validate/content; DNS names keep "characters".
 */
const contentMaxLenError = (length: number): string => `must be no more than ${length} bytes`;
/** content.IsDNS1123Subdomain (the prefix of a label key): the same checks, in content's words. */
const contentDNS1123Subdomain = (value: string): string[] =>
  isDNS1123Subdomain(value).map((m) => (m === maxLenError(DNS1123SubdomainMaxLength) ? contentMaxLenError(DNS1123SubdomainMaxLength) : m));

/** validation.RegexError */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** validation.EmptyError */
export const emptyError = (): string => 'must be non-empty';

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
export const DNS1123LabelMaxLength = 63;
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
export const DNS1123SubdomainMaxLength = 253;

/** content.IsDNS1123Subdomain */
export const isDNS1123Subdomain = memoValid(function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
});

/** content.IsDNS1123Label: a valid subdomain that is not a label can only have dots. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1123LabelRegexp.test(value)) {
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);
export const DNS1035LabelMaxLength = 63;

/** validation.IsDNS1035Label */
export const isDNS1035Label = memoValid(function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035LabelMaxLength) errs.push(maxLenError(DNS1035LabelMaxLength));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
});

const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyRegexp = new RegExp(`^${labelKeyFmt}$`);
const labelKeyMaxLength = 63;

/** content.IsLabelKey (= validation.IsQualifiedName): optional DNS-subdomain prefix and '/', then a name part. */
export const isQualifiedName = memoValid(function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  switch (parts.length) {
    case 1:
      name = parts[0]!;
      break;
    case 2: {
      const prefix = parts[0]!;
      name = parts[1]!;
      if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
      else for (const m of contentDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
      break;
    }
    default:
      return [
        `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > labelKeyMaxLength) errs.push(`name part ${contentMaxLenError(labelKeyMaxLength)}`);
  if (!labelKeyRegexp.test(name)) errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
});

const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);
export const LabelValueMaxLength = 63;

/** content.IsLabelValue */
export const isLabelValue = memoValid(function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LabelValueMaxLength) errs.push(contentMaxLenError(LabelValueMaxLength));
  if (!labelValueRegexp.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
});

/** content.IsPathSegmentName: not '.' or '..' (and then nothing else), no '/' or '%'. Empty and length are not checked. */
export function isPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** generic.go maskTrailingDash: a generateName may end in '-' (the random suffix follows it). */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** genericvalidation.NameIsDNSSubdomain(name, prefix) */
export const nameIsDNSSubdomain = (name: string, prefix: boolean): readonly string[] => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

const celIdentRegex = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set<string>([...CEL_KEYWORDS, ...CEL_RESERVED]);

/** validation.go isCELIdentifier */
export const isCELIdentifier = (name: string): boolean => celIdentRegex.test(name) && !celReserved.has(name);
