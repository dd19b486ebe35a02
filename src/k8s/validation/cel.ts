/**
 * CEL expressions: compiled through an optional CelCompiler, as validation.go's
 * validateCELCondition / convertCELErrorToValidationError do. A result with
 * ok:false is Invalid at the expression's path, value = the expression, detail =
 * the compiler's message. `undefined` (not known yet) and no compiler at all mean
 * no CEL error; the non-CEL rules (required, lengths) are checked by the callers.
 */
import type { CelCompileResult, CelCompiler, CelContext } from '../../cel/types';
import { invalid, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { compiledStateless } from '../cel-scope';

export interface Variable {
  name: string;
  expression: string;
}

/** What a policy (or webhook) declares for its CEL sites. */
export interface CelEnv {
  compiler?: CelCompiler;
  /** spec.paramKind is set. */
  hasParams: boolean;
  /** The policy spec, for which compiler validation.go picks (`compiledStateless`); absent for webhooks. */
  spec?: unknown;
}

/**
 * Compile `expression` in `context` and turn a failure into a field error.
 * `value` is what the apiserver prints as the Invalid value (some sites compile
 * the trimmed expression but report it as written).
 */
export function validateCELExpression(
  env: CelEnv,
  context: CelContext,
  expression: string,
  path: FieldPath,
  variables?: readonly Variable[],
  value: string = expression,
): FieldError[] {
  if (!env.compiler) return [];
  let result: CelCompileResult | undefined;
  try {
    result = env.compiler.compile(expression, context, {
      hasParams: env.hasParams,
      ...(variables ? { variables } : {}),
      ...(env.spec !== undefined && compiledStateless(env.spec, context) ? { stateless: true } : {}),
    });
  } catch {
    return []; // a broken compiler is "unknown", never a validation error
  }
  if (!result || result.ok) return [];
  const detail = result.message ?? result.issues.map((i) => `ERROR: <input>:${i.line}:${i.column}: ${i.message}`).join('\n');
  // The engine may say how the apiserver files the error (cel.Error type); Required is the only
  // other kind a field error can carry here (InternalError has no FieldError type: reported as Invalid).
  if ((result as { errorType?: unknown }).errorType === 'Required') return [required(path, detail)];
  return [invalid(path, value, detail)];
}
