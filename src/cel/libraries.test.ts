/**
 * Every library of the Kubernetes 1.37 CEL environment (for new expressions), a passing and a failing case each,
 * against the real engine. Expected values follow Kubernetes' documented semantics
 * (k8s.io/apiserver/pkg/cel/library and cel-go ext docs), not engine output.
 */
import { describe, expect, test } from 'vitest';
import { compileError, runtimeError, useEngine, value } from './test-helpers';

useEngine();

describe('kubernetes.lists', () => {
  test('isSorted, sum, min, max, indexOf, lastIndexOf', async () => {
    expect(await value('[1, 2, 3].isSorted()')).toBe(true);
    expect(await value('[3, 1, 2].isSorted()')).toBe(false);
    expect(await value('[1, 2, 3].sum()')).toBe(6);
    expect(await value("['b', 'a'].min()")).toBe('a');
    expect(await value('[1.5, 2.5].max()')).toBe(2.5);
    expect(await value('[1, 2, 1].indexOf(1)')).toBe(0);
    expect(await value('[1, 2, 1].lastIndexOf(1)')).toBe(2);
    expect(await value('[1, 2].indexOf(9)')).toBe(-1);
  });
  test('min of an empty list fails', async () => {
    expect(await runtimeError('[].min()')).toContain('min called on empty list');
  });
  test('includes() is 1.37 only', async () => {
    expect(await compileError('[1].includes(1)')).toMatch(/undeclared reference to 'includes'|no matching overload for 'includes'/);
  });
});

describe('kubernetes.regex', () => {
  test('find and findAll', async () => {
    expect(await value("'abc 123 def 456'.find('[0-9]+')")).toBe('123');
    expect(await value("'abc 123 def 456'.findAll('[0-9]+')")).toEqual(['123', '456']);
    expect(await value("'abc 123 def 456'.findAll('[0-9]+', 1)")).toEqual(['123']);
    expect(await value("'abc'.find('[0-9]+')")).toBe('');
  });
  test('an invalid constant pattern fails at program instantiation (an internal field error)', async () => {
    const { compile } = await import('./index');
    const r = await compile("'abc'.find('[') == ''", 'vap-validation');
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/^program instantiation failed: error parsing regexp/);
    expect(r.errorType).toBe('Internal');
  });
  test('a non-constant invalid pattern fails at runtime', async () => {
    expect(await runtimeError("'abc'.find(object.p)", { object: { p: '[' } })).toContain('error parsing regexp');
  });
});

describe('kubernetes.urls', () => {
  test('url accessors', async () => {
    const u = "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y=z')";
    expect(await value(`${u}.getScheme()`)).toBe('https');
    expect(await value(`${u}.getHost()`)).toBe('example.com:8443');
    expect(await value(`${u}.getHostname()`)).toBe('example.com');
    expect(await value(`${u}.getPort()`)).toBe('8443');
    expect(await value(`${u}.getEscapedPath()`)).toBe('/a%20b/c');
    expect(await value(`${u}.getQuery()`)).toEqual({ x: ['1', '2'], y: ['z'] });
    expect(await value("url('https://[::1]:80/').getHostname()")).toBe('::1');
    expect(await value("isURL('/absolute/path')")).toBe(true);
    expect(await value("isURL('relative/path')")).toBe(false);
  });
  test('a relative URL does not parse', async () => {
    expect(await runtimeError("url('not a url').getHost()")).toContain('URL parse error during conversion from string');
  });
});

describe('kubernetes.quantity', () => {
  test('parsing, comparison and arithmetic', async () => {
    expect(await value("quantity('1Gi') == quantity('1024Mi')")).toBe(true);
    expect(await value("quantity('1.5G').isGreaterThan(quantity('1G'))")).toBe(true);
    expect(await value("quantity('500m').isLessThan(quantity('1'))")).toBe(true);
    expect(await value("quantity('2').compareTo(quantity('10'))")).toBe(-1);
    expect(await value("quantity('50k').add(20).asInteger()")).toBe(50020);
    expect(await value("quantity('1').sub(quantity('500m')).asApproximateFloat()")).toBe(0.5);
    expect(await value("quantity('500m').isInteger()")).toBe(false);
    expect(await value("sign(quantity('-1'))")).toBe(-1);
    expect(await value("isQuantity('1Ki')")).toBe(true);
    expect(await value("isQuantity('1KB')")).toBe(false);
  });
  test('invalid quantities and the member form of sign()', async () => {
    expect(await runtimeError("quantity('abc').isInteger()")).toContain('quantities must match the regular expression');
    expect(await runtimeError("quantity('1.5').asInteger()")).toContain('cannot convert value to integer');
    expect(await compileError("quantity('1').sign() == 1")).toContain("found no matching overload for 'sign'");
  });
});

describe('kubernetes.net.ip', () => {
  test('ip functions', async () => {
    expect(await value("ip('10.0.0.1').family()")).toBe(4);
    expect(await value("ip('fe80::1').family()")).toBe(6);
    expect(await value("ip('127.0.0.1').isLoopback()")).toBe(true);
    expect(await value("ip('fe80::1').isLinkLocalUnicast()")).toBe(true);
    expect(await value("ip('8.8.8.8').isGlobalUnicast()")).toBe(true);
    expect(await value("ip('0.0.0.0').isUnspecified()")).toBe(true);
    expect(await value("ip.isCanonical('2001:db8::1')")).toBe(true);
    expect(await value("ip.isCanonical('2001:DB8::1')")).toBe(false);
    expect(await value("string(ip('2001:0db8::0001'))")).toBe('2001:db8::1');
    expect(await value("isIP('1.2.3.4')")).toBe(true);
    expect(await value("isIP('01.2.3.4')")).toBe(false);
  });
  test('IPv4-mapped IPv6 is rejected', async () => {
    expect(await runtimeError("ip('::ffff:1.2.3.4').family()")).toContain('IPv4-mapped IPv6 address');
  });
});

describe('kubernetes.net.cidr', () => {
  test('cidr functions', async () => {
    expect(await value("cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))")).toBe(true);
    expect(await value("cidr('10.0.0.0/8').containsIP('11.0.0.1')")).toBe(false);
    expect(await value("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')")).toBe(true);
    expect(await value("cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))")).toBe(false);
    expect(await value("cidr('192.168.0.1/24').prefixLength()")).toBe(24);
    expect(await value("string(cidr('192.168.0.1/24').masked())")).toBe('192.168.0.0/24');
    expect(await value("string(cidr('192.168.0.1/24').ip())")).toBe('192.168.0.1');
    expect(await value("isCIDR('10.0.0.0/33')")).toBe(false);
  });
  test('an invalid prefix fails', async () => {
    expect(await runtimeError("cidr('10.0.0.0/33').prefixLength()")).toMatch(/network address .* parse error|invalid/i);
  });
});

describe('kubernetes.format', () => {
  test('named formats validate to optional(list(string))', async () => {
    expect(await value("format.dns1123Label().validate('my-name').hasValue()")).toBe(false);
    expect(await value("format.dns1123Label().validate('My_Name').hasValue()")).toBe(true);
    expect(await value("format.named('uuid').hasValue()")).toBe(true);
    expect(await value("format.named('no-such-format').hasValue()")).toBe(false);
    const messages = await value("format.byte().validate('!!!').value()");
    expect(Array.isArray(messages) && messages.length > 0).toBe(true);
  });
  test('validate wants a string', async () => {
    expect(await compileError('format.dns1123Label().validate(1).hasValue()')).toContain("found no matching overload for 'validate'");
  });
});

describe('kubernetes.Semver', () => {
  test('semver functions', async () => {
    expect(await value("semver('1.2.3').isLessThan(semver('1.10.0'))")).toBe(true);
    expect(await value("semver('1.2.3-alpha').isLessThan(semver('1.2.3'))")).toBe(true);
    expect(await value("semver('1.2.3+build') == semver('1.2.3')")).toBe(true);
    expect(await value("semver('v1.2', true).minor()")).toBe(2);
    expect(await value("semver('2.0.0').compareTo(semver('1.0.0'))")).toBe(1);
    expect(await value("isSemver('1.2')")).toBe(false);
    expect(await value("isSemver('v1.2', true)")).toBe(true);
  });
  test('non-strict versions need normalize=true', async () => {
    expect(await runtimeError("semver('v1.2').major()")).toContain('No Major.Minor.Patch elements found');
  });
});

describe('kubernetes.authz', () => {
  const rules = {
    authorizer: {
      rules: [
        { group: 'apps', resource: 'deployments', verb: 'create', decision: 'allow' as const, reason: 'rule 1' },
        { path: '/healthz', decision: 'allow' as const },
        { group: 'apps', resource: 'statefulsets', decision: 'noOpinion' as const, error: 'webhook down' },
        { resource: 'secrets', decision: 'deny' as const, reason: 'no secrets' },
      ],
    },
    request: { userInfo: { username: 'alice' } },
  };
  test('resource and path checks follow the rules (first match wins)', async () => {
    expect(await value("authorizer.group('apps').resource('deployments').check('create').allowed()", rules, 'vap-validation')).toBe(true);
    expect(await value("authorizer.group('apps').resource('deployments').check('create').reason()", rules)).toBe('rule 1');
    expect(await value("authorizer.group('apps').resource('deployments').check('delete').allowed()", rules, 'vap-validation')).toBe(false);
    expect(await value("authorizer.path('/healthz').check('get').allowed()", rules, 'vap-validation')).toBe(true);
    expect(await value("authorizer.group('').resource('secrets').namespace('x').check('get').allowed()", rules, 'vap-validation')).toBe(false);
    expect(await value("authorizer.group('').resource('secrets').check('get').reason()", rules)).toBe('no secrets');
    expect(await value("authorizer.group('apps').resource('statefulsets').check('get').errored()", rules, 'vap-validation')).toBe(true);
    expect(await value("authorizer.group('apps').resource('statefulsets').check('get').error()", rules)).toBe('webhook down');
    // no matching rule: NoOpinion, which is not "allowed"
    expect(await value("authorizer.group('batch').resource('jobs').check('get').allowed()", rules, 'vap-validation')).toBe(false);
    expect(
      await value("authorizer.serviceAccount('default', 'builder').group('apps').resource('deployments').check('create').allowed()", rules, 'vap-validation'),
    ).toBe(true);
  });
  test('invalid checks fail', async () => {
    expect(await runtimeError("authorizer.path('').check('get').allowed()", rules)).toContain('path must not be empty');
    expect(await runtimeError("authorizer.serviceAccount('default', 'Not Valid').path('/x').check('get').allowed()", rules)).toContain(
      'Invalid service account name',
    );
  });
});

describe('sets (cel-go ext)', () => {
  test('contains, equivalent, intersects', async () => {
    expect(await value('sets.contains([1, 2, 3], [2, 3])')).toBe(true);
    expect(await value('sets.contains([1, 2], [3])')).toBe(false);
    expect(await value('sets.equivalent([1, 2, 2], [2, 1])')).toBe(true);
    expect(await value('sets.intersects([1], [2])')).toBe(false);
  });
  test('element types must agree', async () => {
    expect(await compileError("sets.contains([1], ['a'])")).toContain("found no matching overload for 'sets.contains'");
  });
});

describe('strings (cel-go ext, version 2)', () => {
  test('string functions', async () => {
    expect(await value("'Hello'.lowerAscii()")).toBe('hello');
    expect(await value("'héllo'.upperAscii()")).toBe('HéLLO');
    expect(await value("'a,b,c'.split(',')")).toEqual(['a', 'b', 'c']);
    expect(await value("'a,b,c'.split(',', 2)")).toEqual(['a', 'b,c']);
    expect(await value("['a', 'b'].join('-')")).toBe('a-b');
    expect(await value("'%s has %d items'.format(['cart', 3])")).toBe('cart has 3 items');
    expect(await value("'  x '.trim()")).toBe('x');
    expect(await value("'abcd'.substring(1, 3)")).toBe('bc');
    expect(await value("'aaa'.replace('a', 'b', 2)")).toBe('bba');
    expect(await value("'héllo'.charAt(1)")).toBe('é');
    expect(await value("'hello'.indexOf('l')")).toBe(2);
    expect(await value("strings.quote('a\"b')")).toBe('"a\\"b"');
  });
  test('errors: out of range, version 3 functions absent', async () => {
    expect(await runtimeError("'abc'.charAt(5)")).toContain('index out of range: 5');
    expect(await compileError("'abc'.reverse() == 'cba'")).toContain("found no matching overload for 'reverse'");
    expect(await compileError("'%d'.format(['x']) == ''")).toMatch(/error during formatting|format/);
  });
});

describe('optionals', () => {
  test('optional field selection and functions', async () => {
    const inputs = { object: { metadata: { name: 'a' } } };
    expect(await value('object.?spec.?replicas.orValue(1)', inputs)).toBe(1);
    expect(await value('object.?metadata.?name.orValue("none")', inputs)).toBe('a');
    expect(await value("{'a': 1}[?'b'].hasValue()")).toBe(false);
    expect(await value('optional.of(2).optMap(x, x * 2).value()')).toBe(4);
    expect(await value('[optional.of(1), optional.none()].unwrapOpt()')).toEqual([1]);
    expect(await value('[1, 2].first().value()')).toBe(1);
    expect(await value("{?'k': optional.none()}")).toEqual({});
  });
  test('dereferencing none fails', async () => {
    expect(await runtimeError('optional.none().value()')).toContain('optional.none() dereference');
  });
});

describe('two-variable comprehensions', () => {
  test('all/exists/existsOne/transformList/transformMap/transformMapEntry', async () => {
    expect(await value('[10, 20].all(i, v, v > i)')).toBe(true);
    expect(await value("{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)")).toBe(true);
    expect(await value('[1, 1, 2].existsOne(i, v, v == 2)')).toBe(true);
    expect(await value('[1, 2, 3].transformList(i, v, i > 0, v * 10)')).toEqual([20, 30]);
    expect(await value("{'a': 1}.transformMap(k, v, v + 1)")).toEqual({ a: 2 });
    expect(await value("{'a': 1}.transformMapEntry(k, v, {k + k: v})")).toEqual({ aa: 1 });
  });
  test('a duplicate key from transformMapEntry fails', async () => {
    expect(await runtimeError("{'a': 1, 'b': 1}.transformMapEntry(k, v, {'x': v})")).toContain('insert failed: key x already exists');
  });
});

describe('lists (cel-go ext, version 3)', () => {
  test('range, reverse, slice, flatten, sort, sortBy, distinct', async () => {
    expect(await value('lists.range(3)')).toEqual([0, 1, 2]);
    expect(await value('[1, 2, 3].reverse()')).toEqual([3, 2, 1]);
    expect(await value('[1, 2, 3, 4].slice(1, 3)')).toEqual([2, 3]);
    expect(await value('[[1], [2, 3]].flatten()')).toEqual([1, 2, 3]);
    expect(await value('[3, 1, 2].sort()')).toEqual([1, 2, 3]);
    expect(await value("['bb', 'a'].sortBy(s, s.size())")).toEqual(['a', 'bb']);
    expect(await value('[1, 2, 1].distinct()')).toEqual([1, 2]);
  });
  test('slice out of range fails', async () => {
    expect(await runtimeError('[1, 2].slice(1, 5)')).toContain('cannot slice(1, 5)');
  });
});

describe('not enabled in Kubernetes', () => {
  test('math, base64, cel.bind, regex ext', async () => {
    const notDeclared = /undeclared reference|found no matching overload/;
    expect(await compileError('math.greatest(1, 2) == 2')).toMatch(notDeclared);
    expect(await compileError("base64.encode(b'a') == ''")).toMatch(notDeclared);
    expect(await compileError('cel.bind(x, 1, x) == 1')).toMatch(notDeclared);
    expect(await compileError("regex.replace('a', 'a', 'b') == 'b'")).toMatch(notDeclared);
  });
});

describe('jsonpatch.escapeKey (MAP mutations only)', () => {
  test('escapes ~ and /', async () => {
    const patches = await value("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/a~b'), value: 'x'}]", {}, 'map-jsonPatch');
    expect(patches).toEqual([{ op: 'add', path: '/metadata/labels/example.com~1a~0b', value: 'x' }]);
  });
  test('is not declared outside mutations', async () => {
    expect(await compileError("jsonpatch.escapeKey('a') == 'a'")).toContain('undeclared reference');
  });
});

describe('time zones (the embedded tz database)', () => {
  test('a known zone is read, an unknown one fails as the apiserver words it', async () => {
    expect(await value("timestamp('2024-01-01T12:00:00Z').getHours('Asia/Kolkata')")).toBe(17);
    expect(await runtimeError("timestamp('2024-01-01T00:00:00Z').getHours('Mars/Olympus')")).toContain('unknown time zone Mars/Olympus');
  });
});
