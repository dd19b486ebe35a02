/**
 * What a policy's CEL expression may refer to besides the request (`params`, `variables.<name>`
 * in scope), as the apiserver compiles it: one answer for validation, the CEL editor and the
 * policy runs. README.md ("What a policy's CEL may refer to").
 */
import type { CelContext } from '../cel/types';
import { isObject, trimSpace } from '../base/json';

/** A declared variable: its name and expression. */
export interface PolicyVariable {
  name: string;
  expression: string;
}

/** Whether a policy spec declares params (spec.paramKind is set: Go's `ParamKind != nil`). */
export const declaresParams = (spec: unknown): boolean => isObject(spec) && spec.paramKind !== undefined && spec.paramKind !== null;

/** spec.variables with a string name and a non-blank expression, in order (what the composition compiler stores). */
export function declaredVariables(variables: unknown): PolicyVariable[] {
  const out: PolicyVariable[] = [];
  for (const v of Array.isArray(variables) ? variables : []) {
    // validation.go's validateVariable never compiles (so never stores) a variable without an expression:
    // later expressions get `undefined field` for it (the validation oracle found it)
    if (isObject(v) && typeof v.name === 'string' && typeof v.expression === 'string' && trimSpace(v.expression) !== '')
      out.push({ name: v.name, expression: v.expression });
  }
  return out;
}

/**
 * The variables an expression of `context` sees in a policy spec; for a variable's own
 * expression (`vap-variable`), those declared before `variableIndex`.
 */
export function variablesInScope(spec: unknown, context: CelContext, variableIndex?: number): PolicyVariable[] {
  if (context.startsWith('webhook-') || context.endsWith('matchCondition') || !isObject(spec)) return [];
  if (context === 'vap-variable') {
    const list = Array.isArray(spec.variables) ? spec.variables : [];
    return declaredVariables(list.slice(0, variableIndex ?? list.length));
  }
  return declaredVariables(spec.variables);
}

/**
 * Whether validation.go compiles an expression of a policy spec with its stateless compiler
 * (`createCompiler(false)`, `variables` undeclared): every matchCondition, and every expression
 * of a ValidatingAdmissionPolicy whose spec.variables is empty (`len(spec.Variables) > 0` decides,
 * so an entry that is itself invalid still counts). A MutatingAdmissionPolicy always composes.
 */
export function compiledStateless(spec: unknown, context: CelContext): boolean {
  if (context.startsWith('webhook-')) return false;
  if (context.endsWith('matchCondition')) return true;
  return context.startsWith('vap-') && !(isObject(spec) && Array.isArray(spec.variables) && spec.variables.length > 0);
}

/** The compile options of an expression of a policy spec: hasParams, the variables in scope (omitted when none), stateless. */
export function celScopeOf(spec: unknown, context: CelContext, variableIndex?: number): { hasParams?: true; variables?: PolicyVariable[]; stateless?: true } {
  if (context.startsWith('webhook-')) return {};
  const out: { hasParams?: true; variables?: PolicyVariable[]; stateless?: true } = {};
  if (declaresParams(spec)) out.hasParams = true;
  const variables = variablesInScope(spec, context, variableIndex);
  if (variables.length) out.variables = variables;
  if (compiledStateless(spec, context)) out.stateless = true;
  return out;
}
