/**
 * matchConditions (webhooks, ValidatingAdmissionPolicy, MutatingAdmissionPolicy):
 * validation.go validateMatchConditions / validateMatchCondition.
 * At most 64; per condition: expression (trimmed) required and compiled, name
 * required and a qualified name, names unique within the list.
 */
import type { CelContext } from '../../cel/types';
import { append, duplicate, required, tooMany, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { validateCELExpression, type CelEnv } from './cel';
import { validateLabelName } from './selectors';
import { goList, goString, goStruct, trimSpace } from './values';

export const maxMatchConditions = 64;

export function validateMatchConditions(conditions: unknown, env: CelEnv, context: CelContext, path: FieldPath): FieldError[] {
  const list = goList(conditions);
  if (!list) return [];
  const errs: FieldError[] = [];
  if (list.length > maxMatchConditions) errs.push(tooMany(path, list.length, maxMatchConditions));
  let names: Set<string> | undefined; // allocated on first use: only a later condition can repeat a name
  for (let i = 0; i < list.length; i++) {
    if (!(i in list)) continue; // a hole is skipped, as forEach skips it
    const condition = goStruct(list[i]);
    if (!condition) continue;
    const p = path.index(i);
    const expression = goString(condition.expression);
    if (expression !== undefined) {
      const trimmed = trimSpace(expression);
      if (trimmed === '') errs.push(required(p.child('expression')));
      else append(errs, validateCELExpression(env, context, trimmed, p.child('expression')));
    }
    const name = goString(condition.name);
    if (name === undefined) continue;
    if (name === '') errs.push(required(p.child('name')));
    else {
      append(errs, validateLabelName(name, p.child('name')));
      if (names?.has(name)) errs.push(duplicate(p.child('name'), name));
      else if (i < list.length - 1) (names ??= new Set()).add(name);
    }
  }
  return errs;
}
