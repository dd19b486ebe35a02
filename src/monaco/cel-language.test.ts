/** The Monaco `cel` language (src/monaco/cel-language.ts) with a minimal fake Monaco and the real engine. */
import { describe, expect, test } from 'vitest';
import { celMarkers, celMonarch, codePointColumnToUtf16, receiverBefore, registerCelLanguage, setCelModelContext } from './cel-language';
import { compile, declarations, typeAt } from '../cel';
import { kindFieldsAt, objectFieldsAt, typedRootKinds } from '../admission/schema-fields';
import { macroScopes, typedPath } from './cel-model';
import { useEngine } from '../cel/test-helpers';

useEngine();

type At = { lineNumber: number; column: number };
/** What the tests call of the registered providers (the fake model stands in for Monaco's ITextModel). */
type Provider = {
  provideCompletionItems?: (model: unknown, position: At) => Promise<{ suggestions: unknown[] }>;
  provideHover?: (model: unknown, position: At) => Promise<{ contents: { value: string }[] } | null | undefined>;
};

function fakeMonaco() {
  const providers: Record<string, Provider> = {};
  const monaco = {
    MarkerSeverity: { Error: 8 },
    editor: { setModelMarkers: () => undefined },
    languages: {
      getLanguages: () => [],
      register: () => undefined,
      setMonarchTokensProvider: () => ({ dispose() {} }),
      setLanguageConfiguration: () => ({ dispose() {} }),
      registerCompletionItemProvider: (_id: string, p: Provider) => ((providers.completion = p), { dispose() {} }),
      registerHoverProvider: (_id: string, p: Provider) => ((providers.hover = p), { dispose() {} }),
      CompletionItemKind: { Function: 1, Method: 0, Field: 3, Variable: 4, Property: 9, Module: 8, Keyword: 17 },
      CompletionItemInsertTextRule: { InsertAsSnippet: 4 },
    },
  };
  return { monaco, providers };
}

function fakeModel(text: string) {
  const lines = text.split('\n');
  const offsetAt = (p: { lineNumber: number; column: number }) => lines.slice(0, p.lineNumber - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  return {
    getValue: () => text,
    getLineCount: () => lines.length,
    getLineContent: (n: number) => lines[n - 1]!,
    getLineMaxColumn: (n: number) => lines[n - 1]!.length + 1,
    getOffsetAt: offsetAt,
    getValueInRange: (r: { endLineNumber: number; endColumn: number }) => text.slice(0, offsetAt({ lineNumber: r.endLineNumber, column: r.endColumn })),
    getWordAtPosition: (p: { lineNumber: number; column: number }) => {
      const line = lines[p.lineNumber - 1]!;
      let s = p.column - 1;
      let e = p.column - 1;
      while (s > 0 && /\w/.test(line[s - 1]!)) s--;
      while (e < line.length && /\w/.test(line[e]!)) e++;
      return s === e ? null : { word: line.slice(s, e), startColumn: s + 1, endColumn: e + 1 };
    },
  };
}

const engine = { declarations, typeAt };

async function complete(text: string, ctx: Parameters<typeof setCelModelContext>[1]) {
  const { monaco, providers } = fakeMonaco();
  registerCelLanguage(monaco as never, engine);
  const model = fakeModel(text);
  setCelModelContext(model as never, ctx);
  const lines = text.split('\n');
  const position = { lineNumber: lines.length, column: lines[lines.length - 1]!.length + 1 };
  const r = await providers.completion!.provideCompletionItems!(model, position);
  return r.suggestions as { label: string; detail?: string; insertText: string; sortText?: string }[];
}

type MonarchAction = string | { token?: string; next?: string; cases?: Record<string, string | { token: string }> };

/**
 * The grammar run as Monarch runs it (one line, first rule that matches at the position wins,
 * `@name` attributes substituted into the patterns, `cases` on the matched text, a state stack),
 * so the test checks what the rules say, not only that they parse.
 */
function monarchTokens(line: string): [string, string][] {
  const lang = celMonarch as unknown as Record<string, unknown> & { tokenizer: Record<string, [RegExp, MonarchAction][]> };
  const sticky = (re: RegExp) =>
    new RegExp(
      re.source.replace(/@(\w+)/g, (_m, name: string) => (lang[name] as RegExp).source),
      'y',
    );
  const out: [string, string][] = [];
  const stack = ['root'];
  let pos = 0;
  while (pos < line.length) {
    const rules = lang.tokenizer[stack[stack.length - 1]!]!;
    let matched = false;
    for (const [re, action] of rules) {
      const y = sticky(re);
      y.lastIndex = pos;
      const m = y.exec(line);
      if (!m || m[0] === '') continue;
      let token: string;
      let next: string | undefined;
      if (typeof action === 'string') token = action;
      else if (action.cases) {
        const key = Object.keys(action.cases).find((k) => k === '@default' || (lang[k.slice(1)] as string[]).includes(m[0]))!;
        const c = action.cases[key]!;
        token = typeof c === 'string' ? c : c.token;
      } else {
        token = action.token ?? '';
        next = action.next;
      }
      out.push([m[0], token]);
      if (next === '@pop') stack.pop();
      else if (next) stack.push(next.slice(1));
      pos += m[0].length;
      matched = true;
      break;
    }
    if (!matched) out.push([line[pos++]!, lang.defaultToken as string]);
  }
  return out;
}

describe('helpers', () => {
  test('receiverBefore scans back over paths, calls and index groups', () => {
    expect(receiverBefore('x && request.userInfo')).toBe('request.userInfo');
    expect(receiverBefore("object.metadata.labels['a.b/c']")).toBe("object.metadata.labels['a.b/c']");
    expect(receiverBefore('!(quantity(object.x)')).toBe('quantity(object.x)');
    expect(receiverBefore('a || f(x).g')).toBe('f(x).g');
  });
  test('code point columns become UTF-16 columns', () => {
    expect(codePointColumnToUtf16('abc', 2)).toBe(2);
    expect(codePointColumnToUtf16("'😀' + x", 6)).toBe(7);
  });
  test('the Monarch grammar gives CEL tokens their classes', () => {
    const tokens = (line: string) => monarchTokens(line).filter(([, t]) => t !== 'white');
    expect(tokens('a.b in [1, 2.5e3, 0xFFu, 3u] && !x')).toEqual([
      ['a', 'identifier'],
      ['.', 'delimiter'],
      ['b', 'identifier'],
      ['in', 'keyword'],
      ['[', '@brackets'],
      ['1', 'number'],
      [',', 'delimiter'],
      ['2.5e3', 'number.float'],
      [',', 'delimiter'],
      ['0xFFu', 'number.hex'],
      [',', 'delimiter'],
      ['3u', 'number'],
      [']', '@brackets'],
      ['&&', 'operator'],
      ['!', 'operator'],
      ['x', 'identifier'],
    ]);
    // escapes in ordinary strings, none in raw strings; bytes prefixes
    expect(tokens(String.raw`'a\n' + r'\d' + b'x'`)).toEqual([
      ["'", 'string.quote'],
      ['a', 'string'],
      [String.raw`\n`, 'string.escape'],
      ["'", 'string.quote'],
      ['+', 'operator'],
      ["r'", 'string.quote'],
      [String.raw`\d`, 'string'],
      ["'", 'string.quote'],
      ['+', 'operator'],
      ['b', 'string.quote'],
      ["'", 'string.quote'],
      ['x', 'string'],
      ["'", 'string.quote'],
    ]);
    // reserved words, type names, comments
    expect(tokens('let x = dyn(null) // c')).toEqual([
      ['let', 'invalid'],
      ['x', 'identifier'],
      ['=', ''],
      ['dyn', 'type'],
      ['(', '@brackets'],
      ['null', 'keyword'],
      [')', '@brackets'],
      ['// c', 'comment'],
    ]);
    const q3 = '"'.repeat(3);
    expect(tokens(`${q3}a"b${q3}`)).toEqual([
      [q3, 'string.quote'],
      ['a', 'string'],
      ['"', 'string'],
      ['b', 'string'],
      [q3, 'string.quote'],
    ]);
  });
});

describe('completion', () => {
  test('top level: the context’s variables, functions and macros', async () => {
    const s = await complete('', { context: 'vap-messageExpression' });
    const labels = s.map((x) => x.label);
    expect(labels).toEqual(expect.arrayContaining(['object', 'request', 'variables', 'quantity', 'has', 'sets', 'true']));
    expect(labels).not.toContain('authorizer');
    expect(labels).not.toContain('params');
    const withParams = (await complete('', { context: 'vap-validation', options: { hasParams: true } })).map((x) => x.label);
    expect(withParams).toEqual(expect.arrayContaining(['params', 'authorizer']));
  });
  test('typed fields after a dot', async () => {
    const s = await complete('request.userInfo.', { context: 'vap-validation' });
    expect(s.filter((x) => x.detail !== undefined && !x.insertText.includes('(')).map((x) => x.label)).toEqual(
      expect.arrayContaining(['username', 'groups', 'extra', 'uid']),
    );
    const a = await complete('authorizer.', { context: 'vap-validation' });
    expect(a.map((x) => x.label)).toEqual(expect.arrayContaining(['requestResource', 'group', 'path', 'serviceAccount']));
  });
  test('keys of the sample input for dyn variables, quoted when needed', async () => {
    const sample = { object: { metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'web', team: 'a' } } } };
    const s = await complete('object.metadata.labels.', { context: 'vap-validation', sampleInputs: () => sample });
    expect(s.map((x) => x.label)).toEqual(expect.arrayContaining(['team', "['app.kubernetes.io/name']"]));
    const m = await complete('object.metadata.', { context: 'vap-validation', sampleInputs: () => sample });
    expect(m.find((x) => x.label === 'name')?.detail).toBe('string');
    // the sample's value is a map: its macros and size(), not string or Quantity functions
    expect(m.map((x) => x.label)).toEqual(expect.arrayContaining(['all', 'exists', 'size']));
    expect(m.map((x) => x.label)).not.toContain('startsWith');
    expect(m.map((x) => x.label)).not.toContain('asApproximateFloat');
    const n = (await complete('object.metadata.name.', { context: 'vap-validation', sampleInputs: () => sample })).map((x) => x.label);
    expect(n).toEqual(expect.arrayContaining(['startsWith', 'lowerAscii']));
    expect(n).not.toContain('add');
  });
  test('member functions by receiver type, and namespaces', async () => {
    const s = (await complete("'abc'.", { context: 'vap-validation' })).map((x) => x.label);
    expect(s).toEqual(expect.arrayContaining(['startsWith', 'matches', 'lowerAscii', 'find']));
    expect(s).not.toContain('isSorted');
    expect(s).not.toContain('all');
    const ns = (await complete('sets.', { context: 'vap-validation' })).map((x) => x.label);
    expect(ns.sort()).toEqual(['contains', 'equivalent', 'intersects']);
  });
  test('a typed field is listed once, even when the sample input has the same key', async () => {
    const request = { operation: 'CREATE', name: 'web', namespace: 'default', dryRun: false, kind: { group: '', version: 'v1', kind: 'Pod' }, extraKey: 1 };
    const s = await complete('request.', { context: 'webhook-matchCondition', sampleInputs: () => ({ request }) });
    const labels = s.map((x) => x.label);
    expect(labels.filter((l, i) => labels.indexOf(l) !== i)).toEqual([]);
    // the typed field wins (it has the declared type); a key the type does not declare is still offered
    expect(s.find((x) => x.label === 'operation')?.detail).toBe('string');
    expect(s.find((x) => x.label === 'kind')?.detail).toBe('kubernetes.GroupVersionKind');
    expect(labels).toContain('extraKey');
  });
  test('variables.<name> with the variable types', async () => {
    const s = await complete('variables.', {
      context: 'vap-validation',
      options: { variables: [{ name: 'isProd', expression: 'true' }] },
    });
    expect(s.find((x) => x.label === 'isProd')?.detail).toBe('bool');
  });
});

describe('hover', () => {
  test('function docs and types under the cursor', async () => {
    const { monaco, providers } = fakeMonaco();
    registerCelLanguage(monaco as never, engine);
    const text = "object.metadata.name.startsWith('a') && request.userInfo.username == 'x'";
    const model = fakeModel(text);
    setCelModelContext(model as never, { context: 'vap-validation' });
    const h1 = await providers.hover!.provideHover!(model, { lineNumber: 1, column: 25 });
    const v1 = h1!.contents.map((c: { value: string }) => c.value).join('\n');
    expect(v1).toContain('string.startsWith(string) -> bool');
    expect(v1).toContain('`startsWith`: `bool`');
    const h2 = await providers.hover!.provideHover!(model, { lineNumber: 1, column: 50 });
    expect(h2!.contents.map((c: { value: string }) => c.value).join('\n')).toContain('`userInfo`: `kubernetes.UserInfo`');
  });
});

describe('object typed by the matched kinds (the type checker schemas)', () => {
  const policy = (resources: string[]) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources }] } },
  });
  const ctx = (resources: string[]) => ({
    context: 'vap-validation' as const,
    typedFields: (root: 'object' | 'params', path: readonly string[]) =>
      root === 'object' ? objectFieldsAt(policy(resources), path) : Promise.resolve(undefined),
  });
  const hover = async (text: string, column: number, c = ctx(['deployments'])) => {
    const { monaco, providers } = fakeMonaco();
    registerCelLanguage(monaco as never, engine);
    const model = fakeModel(text);
    setCelModelContext(model as never, c);
    const h = await providers.hover!.provideHover!(model, { lineNumber: 1, column });
    return (h?.contents ?? []).map((x: { value: string }) => x.value).join('\n');
  };

  test('typedPath: field names, list elements and map values', () => {
    const object = (path: string[]) => ({ root: 'object', path });
    expect(typedPath('object.spec.template.spec.containers[0].ports')).toEqual(object(['spec', 'template', 'spec', 'containers', '[]', 'ports']));
    expect(typedPath("oldObject.metadata.labels['a.b/c']")).toEqual(object(['metadata', 'labels', '[]']));
    expect(typedPath('object.?spec')).toEqual(object(['spec']));
    expect(typedPath('object')).toEqual(object([]));
    expect(typedPath('objects.spec')).toBeUndefined();
    expect(typedPath('object.spec.containers.filter(c, true)')).toBeUndefined();
    // params is a root of its own (typed by the paramKind)
    expect(typedPath('params.spec')).toEqual({ root: 'params', path: ['spec'] });
  });

  test('completion after object.spec. offers the schema fields with their types', async () => {
    const s = await complete('object.spec.', ctx(['deployments']));
    expect(s.find((x) => x.label === 'replicas')?.detail).toBe('integer');
    // fields first; an object takes no member function (no add, allowed, asApproximateFloat…), its macros after the fields
    const sorted = [...s].sort((a, b) => (a.sortText! < b.sortText! ? -1 : a.sortText! > b.sortText! ? 1 : 0));
    expect(sorted.slice(0, 3).map((x) => x.label)).toEqual(['minReadySeconds', 'paused', 'progressDeadlineSeconds']);
    expect(s.filter((x) => ['add', 'allowed', 'asApproximateFloat', 'startsWith'].includes(x.label))).toEqual([]);
    expect(sorted.at(-1)?.detail).toBe('macro');
    // a typed string field: the string functions
    const name = (await complete('object.metadata.name.', ctx(['deployments']))).map((x) => x.label);
    expect(name).toEqual(expect.arrayContaining(['startsWith', 'matches']));
    expect(name).not.toContain('asApproximateFloat');
    // a list: its functions and macros
    const containers = (await complete('object.spec.template.spec.containers.', ctx(['deployments']))).map((x) => x.label);
    expect(containers).toEqual(expect.arrayContaining(['all', 'size', 'distinct']));
    expect(containers).not.toContain('startsWith');
    expect(s.find((x) => x.label === 'template')?.detail).toBe('PodTemplateSpec');
    const c = await complete('object.spec.template.spec.containers[0].', ctx(['deployments']));
    expect(c.find((x) => x.label === 'image')?.detail).toBe('string');
    expect(c.find((x) => x.label === 'ports')?.detail).toBe('[]ContainerPort');
    // macros are still offered on lists
    expect((await complete('object.spec.template.spec.containers.', ctx(['deployments']))).some((x) => x.label === 'all')).toBe(true);
  });

  test('several kinds: fields of only some kinds say so', async () => {
    const s = await complete('oldObject.spec.', ctx(['deployments', 'daemonsets']));
    expect(s.find((x) => x.label === 'replicas')?.detail).toBe('integer · only in apps/v1 Deployment (not apps/v1 DaemonSet)');
    expect(s.find((x) => x.label === 'template')?.detail).toBe('PodTemplateSpec');
    expect(await hover('object.spec.replicas > 1', 15, ctx(['deployments', 'daemonsets']))).toBe(
      '`replicas`: `integer`\n\nOnly in apps/v1 Deployment (not apps/v1 DaemonSet)',
    );
  });

  test('hover on a field path shows its schema type and kind', async () => {
    expect(await hover('object.spec.replicas <= 5', 15)).toBe('`replicas`: `integer`\n\nIn apps/v1 Deployment');
    expect(await hover('object.spec.replicas <= 5', 9)).toBe('`spec`: `DeploymentSpec`\n\nIn apps/v1 Deployment');
    expect(await hover('object.spec.replicas <= 5', 3)).toBe('`object`: `Deployment` (apps/v1 Deployment)');
  });

  test("typedPath: macro variables stand for their receiver's elements; params is a root", () => {
    expect(typedPath('c.image', 'object.spec.template.spec.containers.all(c, ')).toEqual({
      root: 'object',
      path: ['spec', 'template', 'spec', 'containers', '[*]', 'image'],
    });
    // nested: p ranges over c's ports, c over the containers
    expect(typedPath('p', 'object.spec.containers.all(c, c.ports.exists(p, ')).toEqual({ root: 'object', path: ['spec', 'containers', '[*]', 'ports', '[*]'] });
    // two variables: the second is the element (or a map's value); the first binds nothing typed
    expect(typedPath('v', 'object.metadata.labels.all(k, v, ')).toEqual({ root: 'object', path: ['metadata', 'labels', '[]'] });
    expect(typedPath('k', 'object.metadata.labels.all(k, v, ')).toBeUndefined();
    // the innermost binding of a name wins; a closed call binds nothing
    expect(typedPath('c', 'object.a.all(c, c.b.all(c, ')).toEqual({ root: 'object', path: ['a', '[*]', 'b', '[*]'] });
    expect(typedPath('c', 'object.a.all(c, true) && ')).toBeUndefined();
    // strings do not open or close calls
    expect(macroScopes("object.a.all(c, c.n == ')' && ")).toEqual([{ name: 'c', receiver: 'object.a', element: '[*]' }]);
    expect(typedPath('params.data', '')).toEqual({ root: 'params', path: ['data'] });
  });

  test("completion inside a macro offers the element's fields; over a map's keys nothing typed", async () => {
    const c = await complete('object.spec.template.spec.containers.all(c, c.', ctx(['deployments']));
    expect(c.find((x) => x.label === 'image')?.detail).toBe('string');
    // one variable over a map is its key: the list-only step finds no type there, the element step the value's
    expect(typedPath('k', 'object.metadata.labels.all(k, ')?.path).toEqual(['metadata', 'labels', '[*]']);
    expect(await objectFieldsAt(policy(['deployments']), ['metadata', 'labels', '[*]'])).toBeUndefined();
    expect((await objectFieldsAt(policy(['deployments']), ['metadata', 'labels', '[]']))?.types).toEqual([{ kind: 'apps/v1 Deployment', type: 'string' }]);
    expect(await hover('object.spec.template.spec.containers.all(c, c.image != "")', 48)).toBe('`image`: `string`\n\nIn apps/v1 Deployment');
  });

  test("params typed by the paramKind, a webhook matchCondition's object by its rules", async () => {
    const vap = { ...policy(['deployments']), spec: { ...policy(['deployments']).spec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } };
    const params = await kindFieldsAt(typedRootKinds(vap, 'spec.validations[0].expression', 'params', '1.37', []), []);
    expect(params?.fields.find((f) => f.name === 'data')?.type).toBe('map[string]string');
    const webhooks = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      webhooks: [
        { name: 'a.example.com', rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        { name: 'b.example.com', rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      ],
    };
    expect(typedRootKinds(webhooks, 'webhooks[1].matchConditions[0].expression', 'object', '1.37', [])).toEqual([{ group: '', version: 'v1', kind: 'Pod' }]);
    expect(typedRootKinds(webhooks, 'webhooks[0].matchConditions[0].expression', 'params', '1.37', [])).toEqual([]);
    const spec = await kindFieldsAt(typedRootKinds(webhooks, 'webhooks[1].matchConditions[0].expression', 'object', '1.37', []), ['spec']);
    expect(spec?.fields.find((f) => f.name === 'containers')?.type).toBe('[]Container');
  });

  test('no schema known (wildcards): completion and hover as before', async () => {
    const wild = {
      context: 'vap-validation' as const,
      typedFields: (_root: 'object' | 'params', path: readonly string[]) =>
        objectFieldsAt({ spec: { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] } } }, path),
    };
    const s = await complete('object.spec.', { ...wild, sampleInputs: () => ({ object: { spec: { replicas: 3 } } }) });
    expect(s.find((x) => x.label === 'replicas')?.detail).toBe('int');
    expect(await hover('object.spec.replicas <= 5', 15, wild)).toBe('`replicas`: `dyn`');
  });
});

describe('markers', () => {
  test('issues become markers at their token', async () => {
    const text = "object.metadata.name == 'a' &&\n  foo";
    const r = await compile(text, 'vap-validation');
    const m = celMarkers({ MarkerSeverity: { Error: 8 } } as never, fakeModel(text) as never, r);
    expect(m).toEqual([expect.objectContaining({ startLineNumber: 2, startColumn: 3, endLineNumber: 2, endColumn: 6, severity: 8 })]);
  });
  test('result-type errors span the expression; ok results clear', async () => {
    const text = 'object.spec.paused';
    const r = await compile(text, 'vap-validation');
    const m = celMarkers({ MarkerSeverity: { Error: 8 } } as never, fakeModel(text) as never, r);
    expect(m).toEqual([expect.objectContaining({ startColumn: 1, endColumn: text.length + 1, message: 'must evaluate to bool but got dyn' })]);
    const ok = await compile('object.spec.paused == true', 'vap-validation');
    expect(celMarkers({ MarkerSeverity: { Error: 8 } } as never, fakeModel(text) as never, ok)).toEqual([]);
  });
});
