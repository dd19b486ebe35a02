/**
 * Seeded generator of CEL expressions over the admission CEL environment: every library
 * (strings, lists, sets, regex, url, ip/cidr, quantity, semver, format, optional, math,
 * base64, timestamps, durations and time zones, authorizer), the macros and comprehensions,
 * backtick escapes and the error paths (overflow, division by zero, no such key, no such
 * overload, bad arguments). Deterministic: the same seed gives the same list.
 *
 * The expressions read INPUTS (a Pod being created), the inputs both the oracle and the
 * engine are given.
 */
import { seededRandom } from '../../src/base/random';

export const INPUTS = {
  object: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'default', labels: { app: 'web', 'my-label': 'x', 'a.b/c': 'd' }, annotations: { note: 'hello world' } },
    spec: {
      containers: [
        { name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }], securityContext: { capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } } },
        { name: 'side', image: 'busybox:latest', resources: { limits: { cpu: '500m', memory: '128Mi' } } },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
      hostNetwork: false,
      priority: 10,
    },
  },
  request: {
    uid: 'u',
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace: 'default',
    name: 'web-1',
    userInfo: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  },
  namespaceObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { env: 'prod' } } },
};

type Pick = <T>(xs: readonly T[]) => T;

const STR = [
  "'hello'",
  "'Hello World'",
  "''",
  "'a,b,,c'",
  "'  pad  '",
  "'ünïcödé'",
  "'\\u00e9'",
  "'\\x41\\101'",
  "r'\\d+'",
  "'''tri\nple'''",
  'object.metadata.name',
  "object.metadata.annotations['note']",
];
const INT = ['0', '1', '-1', '2', '3', '7', '-5', '100', '9223372036854775807', '-9223372036854775808', 'object.spec.priority'];
const UINT = ['0u', '1u', '3u', '18446744073709551615u'];
const DBL = ['0.0', '1.5', '-2.5', '1e308', "double('NaN')", "double('Infinity')", '2.0'];
const LIST = [
  '[]',
  '[1, 2, 3]',
  '[3, 1, 2, 1]',
  "['b', 'a', 'c']",
  '[[1], [2, [3]]]',
  '[1, 2.0, 3u]',
  "[1, 'a']",
  'object.spec.containers',
  'object.spec.containers.map(c, c.name)',
  'request.userInfo.groups',
];
const TZ = ["'UTC'", "'America/New_York'", "'Europe/Berlin'", "'Asia/Kolkata'", "'+05:30'", "'-08:00'", "'Mars/Olympus'", "'local'", "''", "'02:00'"];
const TS = [
  "timestamp('2024-02-29T12:34:56Z')",
  "timestamp('1970-01-01T00:00:00.5Z')",
  "timestamp('9999-12-31T23:59:59Z')",
  "timestamp('2024-01-01T00:00:00+02:00')",
  'timestamp(0)',
  "timestamp('bad')",
];
const DUR = ["duration('1h30m')", "duration('-1.5s')", "duration('0s')", "duration('290000h')", "duration('1d')", "duration('100ms')"];
const QTY = ["'1'", "'500m'", "'1.5Gi'", "'128Mi'", "'1e3'", "'100000000000000000000'", "'-2k'", "'abc'", "'0.1'"];
const SEMVER = ["'1.2.3'", "'v1.2.3'", "'1.2'", "'1.2.3-alpha.1+build'", "'01.2.3'", "'bogus'"];
const IPS = ["'10.0.0.1'", "'::1'", "'127.0.0.1'", "'fe80::1'", "'::ffff:1.2.3.4'", "'1.2.3'", "'192.168.001.1'", "'2001:db8::'"];
const CIDRS = ["'10.0.0.0/8'", "'192.168.0.0/16'", "'::1/128'", "'10.0.0.1/8'", "'2001:db8::/32'", "'10.0.0.0/33'"];
const URLS = [
  "'https://user@example.com:8443/a/b?x=1&y=2#f'",
  "'http://[::1]:80/'",
  "'/relative/path'",
  "'not a url'",
  "'https://example.com'",
  "'ftp://h/%zz'",
];
const REGEX = ["'[a-z]+'", "'^web-(\\\\d+)$'", "'(a)(b)?'", "'['", "'.*'", "'\\\\w+@\\\\w+'"];
const FORMATS = [
  'dns1123Label',
  'dns1123Subdomain',
  'dns1035Label',
  'qualifiedName',
  'dns1123LabelPrefix',
  'dns1123SubdomainPrefix',
  'dns1035LabelPrefix',
  'labelValue',
  'uri',
  'uuid',
  'byte',
  'date',
  'datetime',
];
const FIELD = [
  'object.metadata.name',
  'object.spec.hostNetwork',
  'object.spec.priority',
  'object.spec.containers',
  'object.metadata.labels',
  'object.spec.missing',
  'oldObject',
  'object.spec.containers[0].securityContext.capabilities.add',
  'object.metadata.labels.app',
  'request.name',
];

/** Families: each makes one expression from the picker. */
const FAMILIES: ((p: Pick) => string)[] = [
  // strings
  (p) =>
    `${p(STR)}.${p(['charAt(1)', 'charAt(100)', 'indexOf("l")', 'lastIndexOf("l")', 'indexOf("l", 3)', 'lowerAscii()', 'upperAscii()', 'trim()', 'reverse()', 'size()', 'split(",")', 'split(",", 2)', 'substring(1)', 'substring(2, 1)', 'substring(1, 3)', 'replace("l", "L")', 'replace("l", "L", 1)', 'startsWith("h")', 'endsWith("d")', 'contains("o")', 'matches("^h")'])}`,
  (p) => `${p(STR)}.${p(['indexOf', 'lastIndexOf'])}(${p(["''", "'l'", "'lo'", "'ü'", "'web'"])}, ${p(['-1', '0', '2', '5', '100'])})`,
  (p) => `${p(STR)}.${p(['startsWith', 'endsWith', 'contains'])}(${p(STR)})`,
  (p) => `matches(${p(STR)}, ${p(REGEX)})`,
  (p) => `${p(LIST.slice(3, 4))}.join(${p(["''", "'-'"])})`,
  (p) => `strings.quote(${p(STR)})`,
  (p) =>
    `${p(["'%s and %d'", "'%.2f'", "'%x %X %o %b'", "'%e'", "'%s'", "'%d'", "'%v'"])}.format([${p(['1', "'a'", '1.5', '[1, 2]', "{'k': 1}", '255', 'null', 'true', "duration('1s')", "timestamp('2024-01-01T00:00:00Z')", "b'ab'"])}${p(['', ', 2', ", 'x'"])}])`,
  (p) => `size(${p(STR)}) ${p(['+', '*', '-'])} ${p(INT)}`,
  (p) => `${p(STR)} + ${p(STR)}`,
  // lists extension and Kubernetes lists
  (p) => `lists.range(${p(['-1', '0', '3', '5'])})`,
  (p) =>
    `${p(LIST)}.${p(['sort()', 'distinct()', 'flatten()', 'flatten(1)', 'flatten(-1)', 'reverse()', 'slice(0, 2)', 'slice(2, 1)', 'slice(0, 10)', 'first()', 'last()', 'isSorted()', 'sum()', 'min()', 'max()', 'indexOf(1)', 'lastIndexOf(1)', 'includes(2)', 'size()'])}`,
  (p) => `${p(LIST)}.sortBy(e, ${p(['e', '-e', 'string(e)', 'e.name'])})`,
  (p) => `${p(LIST)}[${p(['0', '1', '-1', '10', "'a'", '1u', '1.0'])}]`,
  (p) => `${p(INT)} in ${p(LIST)}`,
  // sets
  (p) => `sets.${p(['contains', 'equivalent', 'intersects'])}(${p(LIST)}, ${p(LIST)})`,
  // regex
  (p) => `${p(STR)}.${p(['find', 'findAll', 'matches'])}(${p(REGEX)})`,
  (p) => `${p(STR)}.findAll(${p(REGEX)}, ${p(['-1', '0', '1', '2'])})`,
  (p) => `regex.${p(['extract', 'extractAll'])}(${p(STR)}, ${p(REGEX)})`,
  (p) => `regex.replace(${p(STR)}, ${p(REGEX)}, ${p(["'x'", "'\\\\1'", "'$1'"])})`,
  // url
  (p) => `url(${p(URLS)}).${p(['getScheme()', 'getHost()', 'getHostname()', 'getPort()', 'getEscapedPath()', 'getQuery()'])}`,
  (p) => `isURL(${p(URLS)})`,
  // ip / cidr
  (p) =>
    `ip(${p(IPS)}).${p(['family()', 'isCanonical()', 'isLoopback()', 'isGlobalUnicast()', 'isLinkLocalMulticast()', 'isLinkLocalUnicast()', 'isUnspecified()'])}`,
  (p) => `isIP(${p(IPS)})`,
  (p) => `ip.isCanonical(${p(IPS)})`,
  (p) => `string(ip(${p(IPS)}))`,
  (p) => `cidr(${p(CIDRS)}).${p(['prefixLength()', 'ip()', 'masked()', `containsIP(${p(IPS)})`, `containsIP(ip(${p(IPS)}))`, `containsCIDR(${p(CIDRS)})`])}`,
  (p) => `isCIDR(${p(CIDRS)})`,
  // quantity
  (p) =>
    `quantity(${p(QTY)}).${p(['asInteger()', 'asApproximateFloat()', 'sign()', 'isInteger()', `add(quantity(${p(QTY)}))`, `sub(${p(INT)})`, `add(${p(INT)})`, `compareTo(quantity(${p(QTY)}))`, `isGreaterThan(quantity(${p(QTY)}))`, `isLessThan(quantity(${p(QTY)}))`])}`,
  (p) => `isQuantity(${p(QTY)})`,
  (p) => `quantity(${p(QTY)}) == quantity(${p(QTY)})`,
  // semver
  (p) =>
    `semver(${p(SEMVER)}${p(['', ', true'])}).${p(['major()', 'minor()', 'patch()', `isLessThan(semver('1.3.0'))`, `isGreaterThan(semver('1.0.0'))`, `compareTo(semver('1.2.3'))`])}`,
  (p) => `isSemver(${p(SEMVER)}${p(['', ', true', ', false'])})`,
  // format
  (p) => `format.${p(FORMATS)}().validate(${p(STR)})`,
  (p) => `format.named(${p(FORMATS.map((f) => `'${f}'`).concat(["'nope'"]))}).hasValue()`,
  // optional
  (p) =>
    `${p(['optional.of(1)', 'optional.none()', "optional.ofNonZeroValue('')", 'optional.ofNonZeroValue([1])', 'object.?spec.?missing', 'object.?metadata.?name', "object.metadata.labels[?'app']", "object.metadata.labels[?'nope']", 'object.spec.containers[?5]'])}.${p(['hasValue()', 'value()', 'orValue(0)', 'or(optional.of(2))', 'or(optional.none()).hasValue()'])}`,
  (p) => `${p(FIELD)}.orValue(${p(['[]', '{}', "''", '0'])})`,
  (p) => `${p(FIELD)}.or(${p(['optional.of(1)', 'optional.none()', 'object.?spec.?priority'])})${p(['', '.hasValue()', '.orValue(0)'])}`,
  (p) => `${p(FIELD)}.${p(['orValue', 'or'])}(${p(['1 / 0', 'optional.of(1 / 0)'])})`,
  (p) => `${p(FIELD)}.hasValue()`,
  (p) => `{?'a': ${p(['optional.of(1)', 'optional.none()', 'object.?spec.?priority'])}, 'b': 2}`,
  (p) => `[?${p(['optional.of(1)', 'optional.none()'])}, 2]`,
  (p) => `${p(['optional.of(1)', 'optional.none()'])}.optMap(x, x + 1)${p(['', '.value()', '.orValue(-1)'])}`,
  (p) => `${p(['optional.of(1)', 'optional.none()'])}.optFlatMap(x, optional.of(x * 2)).orValue(-1)`,
  // math
  (p) => `math.${p(['greatest', 'least'])}(${p(['1', '1, 2', '[1, 2.5, 3u]', '-1, 2.0', '[]', "'a'"])})`,
  (p) => `math.${p(['ceil', 'floor', 'round', 'trunc', 'abs', 'sign', 'isInf', 'isNaN', 'isFinite', 'sqrt'])}(${p([...DBL, ...INT.slice(0, 4)])})`,
  (p) => `math.${p(['bitAnd', 'bitOr', 'bitXor', 'bitShiftLeft', 'bitShiftRight'])}(${p(['5', '5u', '-1'])}, ${p(['1', '3', '64', '-1', '2u'])})`,
  (p) => `math.bitNot(${p(['0', '5u', '-1'])})`,
  // encoders
  (p) => `base64.encode(${p(["b'hello'", "b''", "bytes('ünï')"])})`,
  (p) => `base64.decode(${p(["'aGVsbG8='", "'aGVsbG8'", "'!!'", "''"])})`,
  // timestamps, durations, time zones
  (p) =>
    `${p(TS)}.${p(['getFullYear', 'getMonth', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'])}(${p(['', ...TZ])})`,
  (p) => `${p(TS)} ${p(['+', '-'])} ${p(DUR)}`,
  (p) => `${p(TS)} - ${p(TS)}`,
  (p) => `${p(DUR)}.${p(['getHours()', 'getMinutes()', 'getSeconds()', 'getMilliseconds()'])}`,
  (p) => `${p(DUR)} ${p(['+', '-', '<', '=='])} ${p(DUR)}`,
  (p) => `string(${p([...TS, ...DUR])})`,
  (p) => `${p(['int', 'string', 'double'])}(${p(TS)})`,
  (p) => `timestamp(${p(["'2024-13-01T00:00:00Z'", "'0000-01-01T00:00:00Z'", "'10000-01-01T00:00:00Z'", '253402300800', '-62135596801'])})`,
  // authorizer
  (p) =>
    `authorizer.group('').resource(${p(["'pods'", "'deployments'"])}).${p(['', "namespace('default').", "subresource('status').", "name('x')."])}check(${p(["'get'", "'create'"])}).${p(['allowed()', 'reason()', 'errored()', 'error()'])}`,
  (p) => `authorizer.path(${p(["'/healthz'", "'/api'"])}).check('get').${p(['allowed()', 'reason()'])}`,
  () => `authorizer.serviceAccount('default', 'sa').group('apps').resource('deployments').check('list').allowed()`,
  (p) =>
    `authorizer.group('').resource('pods').${p(["fieldSelector('spec.nodeName=a')", "labelSelector('app=web')", "fieldSelector('bad selector ==')", "labelSelector('!!')"])}.check('list').${p(['allowed()', 'errored()', 'error()'])}`,
  (p) => `authorizer.requestResource.check('get').${p(['allowed()', 'reason()'])}`,
  // macros and comprehensions
  (p) =>
    `${p(LIST)}.${p(['all', 'exists', 'exists_one'])}(x, ${p(['x > 1', "x == 'a'", 'size(string(x)) > 0', 'true', 'x.name.startsWith("n")', 'x / 0 > 1'])})`,
  (p) => `${p(LIST)}.${p(['map', 'filter'])}(x, ${p(['x * 2', 'x > 1', 'string(x)', 'x.name', "x + 'a'"])})`,
  (p) => `${p(LIST)}.map(x, ${p(['x > 1', 'true'])}, ${p(['x', 'x * 10'])})`,
  (p) => `${p(LIST)}.${p(['all', 'exists', 'exists_one', 'transformList'])}(i, v, ${p(['i < 2', 'v == 1', 'i', 'v'])})`,
  // Over maps only what visits every key: the order is Go's map order, different between runs, so
  // map()/filter() results and the cost of a short-circuiting all()/exists() would vary.
  (p) =>
    `${p(["{'a': 1, 'b': 2}", 'object.metadata.labels', '{}'])}.${p(['exists_one(k, k == "a")', 'all(k, k != "")', 'exists(k, k == "")', 'exists_one(k, true)'])}`,
  (p) => `${p(["{'a': 1, 'b': 2}", 'object.metadata.labels'])}.${p(['transformMap', 'transformMapEntry'])}(k, v, ${p(['{k: v}', 'v', "k + '=' + string(v)"])})`,
  (p) => `object.spec.containers.${p(['all', 'exists'])}(c, c.image.startsWith(${p(["'nginx'", "'busybox'"])}))`,
  (p) =>
    `object.spec.containers.all(c, c.image.startsWith('nginx')) ${p(['&&', '||'])} object.spec.containers.exists(c, c.name == 'side') && ${p(['true', 'false'])} && object.metadata.name != ''`,
  (p) => `[1, 2, 3].map(x, [x, x * 2]).${p(['map(y, y.size())', 'filter(y, y[0] > 1)', 'exists(y, y.exists(z, z == 4))'])}`,
  (p) => `lists.range(${p(['3', '10'])}).map(i, lists.range(${p(['2', '5'])}).map(j, i * j)).${p(['size()', 'flatten().size()'])}`,
  (p) => `cel.bind(x, ${p(INT)}, x ${p(['+', '*', '/'])} ${p(['2', '0'])})`,
  // backtick escapes
  (p) => `object.metadata.labels.${p(['`my-label`', '`a.b/c`', '`app`', '`nope`'])}`,
  (p) => `has(object.metadata.labels.${p(['`my-label`', '`a.b/c`', '`nope`'])})`,
  (p) => `object.?metadata.?labels.?${p(['`my-label`', '`nope`'])}.orValue('none')`,
  // arithmetic and errors
  (p) => `${p([...INT, ...UINT, ...DBL])} ${p(['+', '-', '*', '/', '%'])} ${p([...INT, ...UINT, ...DBL])}`,
  (p) =>
    `${p(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'dyn', 'type'])}(${p([...INT.slice(0, 5), ...UINT.slice(0, 3), ...DBL.slice(0, 5), "'12'", "'abc'", "'true'", 'null', "b'\\xff'", '1e20'])})`,
  (p) => `${p([...INT, ...UINT, ...DBL, "'a'", 'null', '[1]'])} ${p(['==', '!=', '<', '>='])} ${p([...INT, ...UINT, ...DBL, "'a'", 'null', '[1]'])}`,
  (p) => `${p(["{'a': 1}", 'object.metadata.labels', '{1: 2}', '{true: 1}'])}[${p(["'a'", "'b'", "'app'", '1', 'true', '1u', '1.0'])}]`,
  (p) => `${p(FIELD)} ${p(['+', '==', '<'])} ${p(['1', "'a'", '[]'])}`,
  (p) => `has(${p(['object.spec.hostNetwork', 'object.spec.nope', 'object.metadata.labels.app', 'request.userInfo.username', 'object.spec.containers'])})`,
  (p) =>
    `${p(['request.operation', 'request.userInfo.username', 'request.userInfo.groups', 'request.kind.kind', 'request.resource', 'request.namespace', 'request.dryRun', 'namespaceObject.metadata.name', 'namespaceObject.metadata.labels', 'namespaceObject.spec'])}`,
  (p) => `${p(['true', 'false', '1 / 0 == 1'])} ${p(['&&', '||'])} ${p(['true', 'false', '1 / 0 == 1', "{'a': 1}['b'] == 1"])}`,
  (p) => `${p(['true', 'false', '1 > 0'])} ? ${p(['1', "'a'", '1 / 0'])} : ${p(['2', '[1]', "'b'.size() / 0"])}`,
  (p) => `${p(["'abc'", 'object.metadata.name'])}.${p(['size', 'nope', 'startsWith'])}(${p(['', '1', "'a'"])})`,
];

/** A deterministic list of distinct expressions (seed, count). */
export function generateExpressions(seed = 20261202, count = 1600): string[] {
  const r = seededRandom(seed);
  const pick: Pick = (xs) => xs[Math.floor(r() * xs.length)];
  const out = new Set<string>();
  for (let i = 0; out.size < count && i < count * 20; i++) out.add(FAMILIES[i % FAMILIES.length](pick));
  return [...out];
}

/** Cases from reports of real apiservers' answers, always included. */
export const PINNED = [
  'object.metadata.labels.`my-label`',
  'lists.range(-1) == []',
  'object.spec.containers[0].securityContext.capabilities.add.orValue([])',
  "object.spec.containers.all(c, c.image.startsWith('nginx'))",
  "object.spec.containers.all(c, c.image.startsWith('nginx')) && object.spec.containers.exists(c, c.name == 'side') && true && object.metadata.name != ''",
  "timestamp('2024-01-01T00:00:00Z').getHours('Mars/Olympus')",
  // cel-go before v0.29 (Kubernetes before 1.37): `or`/`orValue` pass a value that is not an
  // optional through; startsWith/endsWith cost the receiver; flatten(-1)'s cost wraps around;
  // the global matches() costs 1.
  'object.metadata.name.orValue(0)',
  'object.spec.priority.or(optional.of(1))',
  "object.spec.containers[1].image.endsWith('st')",
  'request.userInfo.groups.flatten(-1)',
  "matches(object.metadata.name, '^web-[0-9]+$')",
  // cel-go v0.22 (1.32, stored expressions): a two-variable comprehension over a dyn range leaves
  // its second variable untyped, a check error or an internal one where it is used.
  'object.spec.containers.exists(i, v, v == 1)',
  'object.spec.containers.transformList(i, v, v)',
  // cel-go before v0.29: duration() of an int type-checks (a literal is refused by the literal
  // validator, another int fails when evaluated); golang.org/x/text up to v0.19 (1.30–1.32) spaces
  // a %e clause's ×.
  'duration(1)',
  'duration(object.spec.priority)',
  "'%.3e, %e and %%e'.format([1234.5678, -0.00012])",
  // cel-go before v0.23 (1.30–1.32): the static estimate knows no size for dyn(x) nor for an
  // optional of a scalar, so their equality may cost up to (2^64-1) × 0.1.
  'dyn(1) == dyn(1)',
  'optional.of(1) != optional.of(2)',
  'object.spec.?priority == optional.of(1)',
  'dyn(object.spec.containers) == dyn([])',
];
