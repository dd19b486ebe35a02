import { describe, expect, it } from 'vitest';
import { celScopeOf, compiledStateless, declaredVariables, declaresParams, variablesInScope } from './cel-scope';

const spec = {
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  variables: [
    { name: 'a', expression: '1' },
    { name: 'b', expression: 'variables.a + 1' },
    { name: 3, expression: 'x' },
    { name: 'c', expression: 'variables.b' },
  ],
};

describe('CEL scope of a policy expression', () => {
  it('params are declared when spec.paramKind is set (any value but null)', () => {
    expect([declaresParams(spec), declaresParams({ paramKind: null }), declaresParams({}), declaresParams('x')]).toEqual([true, false, false, false]);
  });
  it('variables: those with a string name and expression, in order', () => {
    expect(declaredVariables(spec.variables).map((v) => v.name)).toEqual(['a', 'b', 'c']);
    expect(declaredVariables('nope')).toEqual([]);
  });
  it('a variable sees those before it; matchConditions none; other expressions all', () => {
    expect(variablesInScope(spec, 'vap-variable', 0)).toEqual([]);
    expect(variablesInScope(spec, 'vap-variable', 3).map((v) => v.name)).toEqual(['a', 'b']);
    expect(variablesInScope(spec, 'vap-matchCondition')).toEqual([]);
    expect(variablesInScope(spec, 'map-matchCondition')).toEqual([]);
    expect(variablesInScope(spec, 'vap-validation').map((v) => v.name)).toEqual(['a', 'b', 'c']);
    expect(variablesInScope(spec, 'map-applyConfiguration').map((v) => v.name)).toEqual(['a', 'b', 'c']);
  });
  it('compile options: hasParams and variables only when there are some; nothing for webhooks', () => {
    expect(celScopeOf(spec, 'vap-variable', 1)).toEqual({ hasParams: true, variables: [{ name: 'a', expression: '1' }] });
    expect(celScopeOf({ variables: [] }, 'map-jsonPatch')).toEqual({});
    expect(celScopeOf(spec, 'webhook-matchCondition')).toEqual({});
  });
  it('stateless (validation.go createCompiler(false)): matchConditions, and a VAP with no spec.variables entry', () => {
    expect(celScopeOf({ variables: [] }, 'vap-validation')).toEqual({ stateless: true });
    expect(compiledStateless({}, 'vap-messageExpression')).toBe(true);
    expect(compiledStateless(spec, 'vap-validation')).toBe(false);
    expect(compiledStateless({ variables: [null] }, 'vap-auditAnnotation')).toBe(false); // len(spec.Variables) > 0
    expect(compiledStateless(spec, 'vap-matchCondition')).toBe(true);
    expect(compiledStateless({}, 'map-matchCondition')).toBe(true);
    expect(compiledStateless({}, 'map-jsonPatch')).toBe(false); // a MutatingAdmissionPolicy always composes
    expect(compiledStateless({}, 'webhook-matchCondition')).toBe(false);
  });
});
