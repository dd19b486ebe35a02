import { describe, expect, it } from 'vitest';
import { base64DecodeError } from './base64';
import {
  isCELIdentifier,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isLabelValue,
  isPathSegmentName,
  isQualifiedName,
  maskTrailingDash,
  nameIsDNSSubdomain,
} from './names';
import { parseGoURL } from './url';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('messages worded as apimachinery words them', () => {
  it('DNS-1123 subdomain', () => expect(isDNS1123Subdomain('Foo')).toEqual([SUBDOMAIN_MSG]));
  it('DNS-1035 label (Go puts two spaces before "or")', () => expect(isDNS1035Label('0v')).toEqual([DNS1035_MSG]));
  it('qualified name part', () => expect(isQualifiedName('-x')).toEqual([NAME_PART_MSG]));
  it('label value', () => expect(isLabelValue('-x')).toEqual([LABEL_VALUE_MSG]));
  it('too long', () => expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']));
});

describe.each<[string, string, number]>([
  ['example.com', 'valid', 0],
  ['a', 'one label', 0],
  ['a.b.c', 'three labels', 0],
  ['a-b.c-d', 'dashes inside', 0],
  ['Example.com', 'upper case', 1],
  ['-a', 'leading dash', 1],
  ['a-', 'trailing dash', 1],
  ['a..b', 'empty label', 1],
  ['a.', 'trailing dot', 1],
  ['', 'empty', 1],
  ['a_b', 'underscore', 1],
  ['a'.repeat(253), '253 characters', 0],
  ['a'.repeat(254), '254 characters', 1],
  ['-'.repeat(254), 'too long and malformed', 2],
])('isDNS1123Subdomain(%j) — %s', (value, _what, count) => {
  it(`gives ${count} message(s)`, () => expect(isDNS1123Subdomain(value)).toHaveLength(count));
});

describe.each<[string, number]>([
  ['v1', 0],
  ['v1beta1', 0],
  ['invalid-version', 0],
  ['0v', 1],
  ['V1', 1],
  ['', 1],
  ['a.b', 1],
  ['a'.repeat(64), 1],
  ['0'.repeat(64), 2],
])('isDNS1035Label(%j)', (value, count) => {
  it(`gives ${count} message(s)`, () => expect(isDNS1035Label(value)).toHaveLength(count));
});

describe.each<[string, string[]]>([
  ['app', []],
  ['example.com/MyName', []],
  ['check_1.v2', []],
  ['a/b/c', ['a valid label key']],
  ['', ['name part must be non-empty', 'name part must consist']],
  ['/name', ['prefix part must be non-empty']],
  ['Example.com/name', ['prefix part a lowercase RFC 1123 subdomain']],
  ['example.com/', ['name part must be non-empty', 'name part must consist']],
  ['-hello', ['name part must consist']],
  ['some name', ['name part must consist']],
  ['.io', ['name part must consist']],
  // content.IsLabelKey (k8s.io/apimachinery v0.35 on) says bytes; older releases: validation/releases.ts
  ['a'.repeat(64), ['name part must be no more than 63 bytes']],
  ['-'.repeat(64), ['name part must be no more than 63 bytes', 'name part must consist']],
])('isQualifiedName(%j)', (value, starts) => {
  it(`gives ${starts.length} message(s)`, () => {
    const msgs = isQualifiedName(value);
    expect(msgs).toHaveLength(starts.length);
    starts.forEach((s, i) => expect(msgs[i]!.startsWith(s)).toBe(true));
  });
});

describe.each<[string, number]>([
  ['', 0],
  ['MyValue', 0],
  ['my_value.1-2', 0],
  ['-x', 1],
  ['a b', 1],
  ['a'.repeat(63), 0],
  ['a'.repeat(64), 1],
  ['_'.repeat(64), 2],
])('isLabelValue(%j)', (value, count) => {
  it(`gives ${count} message(s)`, () => expect(isLabelValue(value)).toHaveLength(count));
});

describe.each<[string, string[]]>([
  ['', []],
  ['Config_Map', []],
  ['.', ["may not be '.'"]],
  ['..', ["may not be '..'"]],
  ['...', []],
  ['a/b', ["may not contain '/'"]],
  ['a%b', ["may not contain '%'"]],
  ['a/%', ["may not contain '/'", "may not contain '%'"]],
])('isPathSegmentName(%j)', (value, expected) => {
  it('gives the expected messages', () => expect(isPathSegmentName(value)).toEqual(expected));
});

describe.each<[string, boolean]>([
  ['foo', true],
  ['_x1', true],
  ['Camel_Case', true],
  ['1x', false],
  ['a-b', false],
  ['', false],
  ['in', false],
  ['namespace', false],
  ['true', false],
])('isCELIdentifier(%j)', (value, ok) => {
  it(`is ${ok}`, () => expect(isCELIdentifier(value)).toBe(ok));
});

describe('generateName tolerance (maskTrailingDash)', () => {
  it('replaces a trailing dash and the character before it', () => expect(maskTrailingDash('foo-')).toBe('foa'));
  it('keeps a lone dash', () => expect(maskTrailingDash('-')).toBe('-'));
  it('accepts a generateName ending in a dash', () => expect(nameIsDNSSubdomain('webhook-', true)).toEqual([]));
  it('rejects the same as a name', () => expect(nameIsDNSSubdomain('webhook-', false)).toHaveLength(1));
});

describe.each<[string, { scheme?: string; host?: string; user?: string | null; fragment?: string; rawQuery?: string; error?: string }]>([
  ['https://webhook.example.com/validate', { scheme: 'https', host: 'webhook.example.com', user: null }],
  ['HTTPS://Host/x', { scheme: 'https', host: 'Host' }],
  ['https://10.0.0.1:99999/x', { host: '10.0.0.1:99999' }],
  ['https://[::1]:8443/x', { host: '[::1]:8443' }],
  ['https://a b/', { error: 'parse "https://a b/": invalid character " " in host name' }],
  ['https://host:abc/', { error: 'parse "https://host:abc/": invalid port ":abc" after host' }],
  ['https://[::1/', { error: `parse "https://[::1/": missing ']' in host` }],
  [':foo', { error: 'parse ":foo": missing protocol scheme' }],
  ['a:b/c', { scheme: 'a', host: '' }],
  ['host:443/x', { scheme: 'host', host: '' }],
  ['1host:443/x', { error: 'parse "1host:443/x": first path segment in URL cannot contain colon' }],
  ['webhook.example.com/x', { scheme: '', host: '' }],
  ['https://user:pw@host/', { user: 'user:pw', host: 'host' }],
  ['https://@host/', { user: '', host: 'host' }],
  ['https://host/?', { rawQuery: '' }],
  ['https://host/#', { fragment: '' }],
  ['https://host/?a=b', { rawQuery: 'a=b' }],
  ['https://host/#frag', { fragment: 'frag' }],
  ['https://host/a%3Fb', { host: 'host', rawQuery: '' }],
  ['https://host/a%zz', { error: 'parse "https://host/a%zz": invalid URL escape "%zz"' }],
  ['https://ho\nst/', { error: 'parse "https://ho\\nst/": net/url: invalid control character in URL' }],
  ['', { scheme: '', host: '' }],
])('parseGoURL(%j)', (raw, expected) => {
  it('matches Go net/url', () => {
    const u = parseGoURL(raw);
    if (expected.error) expect(u).toEqual({ ok: false, error: expected.error });
    else expect(u).toMatchObject({ ok: true, ...expected });
  });
});

describe.each<[string, string | undefined]>([
  ['', undefined],
  ['Cg==', undefined],
  ['LS0t\nLS1C\r\nRUdJ', undefined],
  ['YWJj', undefined],
  ['YWI=', undefined],
  ['<omitted>', 'illegal base64 data at input byte 0'],
  ['YWJ', 'illegal base64 data at input byte 0'],
  ['Cg=', 'illegal base64 data at input byte 3'],
  ['Cg==Cg==', 'illegal base64 data at input byte 4'],
  ['=abc', 'illegal base64 data at input byte 0'],
  ['YW Jj', 'illegal base64 data at input byte 2'],
])('base64DecodeError(%j)', (s, expected) => {
  it('matches Go base64.StdEncoding', () => expect(base64DecodeError(s)).toBe(expected));
});

describe.each<[string, string[]]>([
  ['my-name', []],
  ['123-abc', []],
  ['a.b', ['must not contain dots']],
  [
    'My-Name',
    [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
  ],
  ['a'.repeat(64), ['must be no more than 63 characters']],
])('isDNS1123Label(%j)', (value, expected) => {
  it('gives the expected messages', () => expect(isDNS1123Label(value)).toEqual(expected));
});

describe('remembered valid values', () => {
  it('give the same answers the second time, valid or not', () => {
    for (let i = 0; i < 2; i++) {
      expect(isQualifiedName('example.com/name')).toEqual([]);
      expect(isQualifiedName('-bad')).toHaveLength(1);
      expect(isDNS1123Subdomain('ok.example.com')).toEqual([]);
      expect(isDNS1123Subdomain('Bad')).toHaveLength(1);
    }
  });
});
