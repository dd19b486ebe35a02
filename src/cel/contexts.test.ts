/**
 * Each context's variables and result-type rules, compile-error wording and positions, and
 * how inputs become the activation (request, namespaceObject, variables).
 */
import { describe, expect, test } from 'vitest';
import { compile, declarations, evaluate } from './index';
import { CEL_CONTEXTS, type CelContext } from './types';
import { compileError, compiles, runtimeError, useEngine, value } from './test-helpers';

useEngine();

const policyContexts = CEL_CONTEXTS.filter((c) => c !== 'webhook-matchCondition');

describe('result types', () => {
  test('validations and match conditions must be bool, exactly (dyn is not accepted)', async () => {
    for (const ctx of ['vap-validation', 'vap-matchCondition', 'map-matchCondition', 'webhook-matchCondition'] as const) {
      expect(await compileError('object.spec.paused', ctx)).toBe('must evaluate to bool but got dyn');
      await compiles('object.spec.paused == true', ctx);
    }
  });
  test('messageExpression must be a string', async () => {
    expect(await compileError('1', 'vap-messageExpression')).toBe('must evaluate to string but got int');
    await compiles("'replicas: ' + string(object.spec.replicas)", 'vap-messageExpression');
  });
  test('audit annotations: string or null', async () => {
    await compiles('null', 'vap-auditAnnotation');
    await compiles("'x'", 'vap-auditAnnotation');
    expect(await compileError('1', 'vap-auditAnnotation')).toBe('must evaluate to one of [string null_type] but got int');
  });
  test('variables may have any type', async () => {
    const r = await compiles('object.spec', 'vap-variable');
    expect(r.type).toBe('dyn');
    expect((await compiles('[1, 2]', 'vap-variable')).type).toBe('list(int)');
  });
  test('applyConfiguration: exactly Object', async () => {
    const r = await compiles('Object{spec: Object.spec{replicas: 3}}', 'map-applyConfiguration');
    expect(r.type).toBe('Object');
    expect(await compileError('object', 'map-applyConfiguration')).toBe('must evaluate to Object but got dyn');
  });
  test('jsonPatch: exactly list(JSONPatch)', async () => {
    const r = await compiles("[JSONPatch{op: 'replace', path: '/spec/replicas', value: 3}]", 'map-jsonPatch');
    expect(r.type).toBe('list(JSONPatch)');
    expect(await compileError("JSONPatch{op: 'remove', path: '/x'}", 'map-jsonPatch')).toBe('must evaluate to list(JSONPatch) but got JSONPatch');
  });
  test('Object and JSONPatch exist only in MAP mutations', async () => {
    for (const ctx of ['vap-validation', 'map-matchCondition', 'vap-variable'] as const) {
      expect(await compileError('Object{} == Object{}', ctx)).toContain("undeclared reference to 'Object'");
    }
  });
});

describe('declared variables', () => {
  test('params only with hasParams', async () => {
    for (const ctx of policyContexts) {
      const e =
        ctx === 'vap-messageExpression' || ctx === 'vap-auditAnnotation' ? 'string(params.x)' : ctx === 'map-applyConfiguration' ? 'params.x' : 'params.x == 1';
      const without = await compile(e, ctx);
      expect(without.ok, ctx).toBe(false);
      expect(without.message, ctx).toContain("undeclared reference to 'params'");
      const withParams = await compile(e, ctx, { hasParams: true });
      expect(withParams.message ?? '', ctx).not.toContain("undeclared reference to 'params'");
    }
  });
  test('webhook match conditions: no params, no variables, even with options', async () => {
    expect(await compileError('params.x == 1', 'webhook-matchCondition', { hasParams: true })).toContain("undeclared reference to 'params'");
    expect(await compileError('variables.a == 1', 'webhook-matchCondition', { variables: [{ name: 'a', expression: '1' }] })).toContain(
      "undeclared reference to 'variables'",
    );
  });
  test('authorizer is absent in messageExpression only', async () => {
    const e = "authorizer.path('/healthz').check('get').allowed() ? 'a' : 'b'";
    expect(await compileError(e, 'vap-messageExpression')).toContain("undeclared reference to 'authorizer'");
    await compiles(e, 'vap-auditAnnotation');
    await compiles("authorizer.requestResource.check('get').allowed()", 'vap-validation');
    await compiles("authorizer.requestResource.check('get').allowed()", 'webhook-matchCondition');
  });
  test('request is typed: only AdmissionRequest fields', async () => {
    expect(await compileError("request.uid == ''")).toContain("undefined field 'uid'");
    expect(await compileError('request.object == null')).toContain("undefined field 'object'");
    await compiles("request.userInfo.groups.exists(g, g == 'system:masters') && request.dryRun == false");
    expect(await compileError('request.operation == 1')).toContain("found no matching overload for '_==_' applied to '(string, int)'");
  });
  test('namespaceObject is typed', async () => {
    await compiles("namespaceObject.metadata.labels['env'] == 'prod'");
    expect(await compileError('namespaceObject.metadata.managedFields.size() == 0')).toContain("undefined field 'managedFields'");
  });
  test('declarations() lists exactly the declared variables', async () => {
    const names = async (ctx: CelContext, hasParams = false) => (await declarations(ctx, { hasParams })).variables.map((v) => v.name).sort();
    expect(await names('webhook-matchCondition')).toEqual(
      ['authorizer', 'authorizer.requestResource', 'namespaceObject', 'object', 'oldObject', 'request'].sort(),
    );
    expect(await names('vap-messageExpression', true)).toEqual(['namespaceObject', 'object', 'oldObject', 'params', 'request', 'variables'].sort());
    const d = await declarations('vap-validation', { variables: [{ name: 'isProd', expression: "object.metadata.namespace == 'prod'" }] });
    expect(d.resultTypes).toEqual(['bool']);
    expect(d.types['kubernetes.variables']).toEqual([{ name: 'isProd', type: 'bool' }]);
    expect(d.types['kubernetes.AdmissionRequest']?.map((f) => f.name)).toContain('userInfo');
    expect(d.types['kubernetes.UserInfo']).toContainEqual({ name: 'groups', type: 'list(string)' });
    expect(d.functions.find((f) => f.name === 'quantity')?.overloads[0]?.signature).toBe('quantity(string) -> kubernetes.Quantity');
    expect(d.macros.map((m) => m.name)).toEqual(expect.arrayContaining(['has', 'all', 'exists', 'exists_one', 'map', 'filter']));
    const m = await declarations('map-jsonPatch');
    expect(m.functions.map((f) => f.name)).toContain('jsonpatch.escapeKey');
    expect(d.functions.map((f) => f.name)).not.toContain('jsonpatch.escapeKey');
  });
});

describe('policy variables', () => {
  const variables = [
    { name: 'isProd', expression: "has(object.metadata.labels) && object.metadata.labels['env'] == 'prod'" },
    { name: 'spec', expression: 'object.spec' },
    { name: 'replicas', expression: 'int(variables.spec.replicas)' },
  ];
  test('variables keep their static type', async () => {
    await compiles('variables.isProd', 'vap-validation', { variables });
    expect(await compileError('variables.spec', 'vap-validation', { variables })).toBe('must evaluate to bool but got dyn');
    expect(await compileError("variables.replicas == 'x'", 'vap-validation', { variables })).toContain(
      "found no matching overload for '_==_' applied to '(int, string)'",
    );
    expect(await compileError('variables.nope == 1', 'vap-validation', { variables })).toContain("undefined field 'nope'");
  });
  test('a variable sees only the variables declared before it', async () => {
    await compiles('int(variables.spec.replicas)', 'vap-variable', { variables, variableName: 'replicas' });
    expect(await compileError('variables.replicas + 1', 'vap-variable', { variables, variableName: 'spec' })).toContain("undefined field 'replicas'");
  });
  test('variables are evaluated lazily from the inputs, or taken from inputs.variables', async () => {
    const inputs = { object: { metadata: { labels: { env: 'prod' } }, spec: { replicas: 4 } } };
    expect(await value('variables.isProd && variables.replicas == 4', inputs, 'vap-validation', { variables })).toBe(true);
    // a variable that fails is only an error when used
    const failing = [{ name: 'bad', expression: 'object.nope' }];
    expect(await value('true', inputs, 'vap-validation', { variables: failing })).toBe(true);
    expect(await runtimeError('variables.bad == 1', inputs, 'vap-validation', { variables: failing })).toContain('composited variable "bad" fails to evaluate');
    const given = { ...inputs, variables: { replicas: 9 } };
    expect(await value('variables.replicas', given, 'vap-variable', { variables })).toBe(9);
  });
});

describe('activation from inputs', () => {
  test('request follows CreateAdmissionRequest: omitempty fields are absent, kinds copied', async () => {
    const inputs = {
      request: { operation: 'CREATE', kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, userInfo: { username: 'alice' } },
    };
    expect(await value('request.requestKind.kind', inputs)).toBe('Deployment');
    expect(await value('request.dryRun', inputs)).toBe(false);
    expect(await value('has(request.namespace)', inputs)).toBe(false);
    expect(await runtimeError("request.namespace == 'x'", inputs, 'vap-validation')).toContain('no such key: namespace');
    expect(await value("request.userInfo.username == 'alice' && request.operation == 'CREATE'", inputs, 'vap-validation')).toBe(true);
  });
  test('object fields: missing keys are runtime errors, has() guards', async () => {
    const inputs = { object: { metadata: { name: 'a' } } };
    expect(await runtimeError('object.spec.replicas > 1', inputs, 'vap-validation')).toBe(
      "expression 'object.spec.replicas > 1' resulted in error: no such key: spec",
    );
    expect(await value('has(object.spec)', inputs)).toBe(false);
    expect(await value('oldObject == null', inputs)).toBe(true);
  });
  test('namespaceObject is bound for validations but not for match conditions', async () => {
    const inputs = { namespaceObject: { metadata: { name: 'team-a', labels: { env: 'prod' } } } };
    expect(await value("namespaceObject.metadata.labels['env'] == 'prod'", inputs, 'vap-validation')).toBe(true);
    expect(await value('namespaceObject == null', inputs, 'vap-matchCondition')).toBe(true);
    expect(await value('namespaceObject == null', inputs, 'webhook-matchCondition')).toBe(true);
  });
  test('params is null when the binding resolves none', async () => {
    expect(await value('params == null', {}, 'vap-validation', { hasParams: true })).toBe(true);
    expect(await value('params.max', { params: { max: 3 } }, 'vap-variable', { hasParams: true })).toBe(3);
  });
  test('the authorizer is not bound for audit annotations', async () => {
    const inputs = { authorizer: { rules: [{ decision: 'allow' as const }] } };
    const r = await evaluate("authorizer.path('/x').check('get').allowed() ? 'yes' : 'no'", 'vap-auditAnnotation', inputs);
    expect(r.ok).toBe(false);
    expect(await value("authorizer.path('/x').check('get').allowed()", inputs, 'vap-validation')).toBe(true);
  });
  test('MAP: applyConfiguration values and the type-name check', async () => {
    expect(await value('Object{spec: Object.spec{replicas: 3}}', {}, 'map-applyConfiguration')).toEqual({ spec: { replicas: 3 } });
    expect(await runtimeError('Object{spec: Object.wrong{replicas: 3}}', {}, 'map-applyConfiguration')).toContain(
      'type mismatch: unexpected type name "Object.wrong"',
    );
  });
});

describe('compile errors: apiserver wording and positions', () => {
  test('syntax error: message with caret, 1-based line and column', async () => {
    const r = await compile('object.metadata.name ==', 'vap-validation');
    expect(r.ok).toBe(false);
    expect(r.errorType).toBe('Invalid');
    expect(r.message).toMatch(/^compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>'/);
    expect(r.message).toContain('\n | object.metadata.name ==\n | .......................^');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ line: 1, column: 24 });
  });
  test('type error on a later line', async () => {
    const r = await compile("object.metadata.name == 'a' &&\n  foo", 'vap-validation');
    expect(r.message).toBe("compilation failed: ERROR: <input>:2:3: undeclared reference to 'foo' (in container '')\n |   foo\n | ..^");
    expect(r.issues).toEqual([{ message: "undeclared reference to 'foo' (in container '')", line: 2, column: 3 }]);
  });
  test('several issues are all reported', async () => {
    const r = await compile('a + b == c', 'vap-validation');
    expect(r.issues.map((i) => i.column)).toEqual([1, 5, 10]);
  });
  test('reserved identifiers and homogeneous literals', async () => {
    expect(await compileError("namespace == 'x'")).toContain('reserved identifier: namespace');
    expect(await compileError('[1, 2.0].size() == 2')).toContain("expected type 'int' but found 'double'");
    expect(await compileError('1 == 1.0')).toContain("found no matching overload for '_==_' applied to '(int, double)'");
    expect(await compileError("duration('1x') == duration('1s')")).toContain('invalid duration argument');
  });
  test('a successful compile reports its type and an estimated cost range', async () => {
    const r = await compiles("object.metadata.name.startsWith('a')");
    expect(r.type).toBe('bool');
    expect(r.cost).toBeDefined();
    expect(r.cost!.min).toBeGreaterThan(0);
    expect(r.cost!.max).toBeGreaterThanOrEqual(r.cost!.min);
  });
});
