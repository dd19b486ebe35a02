/**
 * Labels and label selectors: k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * (ValidateLabels, ValidateLabelSelector, ValidateLabelSelectorRequirement).
 * Errors for map keys and values are reported at the map field itself.
 */
import { append, forbidden, invalid, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { isLabelValue, isQualifiedName } from './names';
import { goList, goObject, goStruct, isObject } from './values';

/** ValidateLabelName */
export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** ValidateLabels: every key a qualified name, every value a label value. */
export function validateLabels(labels: unknown, path: FieldPath): FieldError[] {
  if (!isObject(labels)) return [];
  const errs: FieldError[] = [];
  for (const k in labels) {
    if (!Object.hasOwn(labels, k)) continue;
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    const v = labels[k];
    if (typeof v === 'string') for (const msg of isLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** ValidateLabelSelectorRequirement (strict: values must be label values, as on create). */
export function validateLabelSelectorRequirement(req: unknown, path: FieldPath): FieldError[] {
  const r = goStruct(req);
  if (!r) return [];
  const errs: FieldError[] = [];
  const values = goList(r.values);
  const operator = r.operator ?? '';
  if (typeof operator === 'string') {
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values && values.length === 0) errs.push(required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values && values.length > 0) errs.push(forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(path.child('operator'), operator, 'not a valid selector operator'));
    }
  }
  const key = r.key ?? '';
  if (typeof key === 'string') append(errs, validateLabelName(key, path.child('key')));
  for (let i = 0; values && i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') for (const msg of isLabelValue(v)) errs.push(invalid(path.child('values').index(i), v, msg));
  }
  return errs;
}

/** ValidateLabelSelector */
export function validateLabelSelector(selector: unknown, path: FieldPath): FieldError[] {
  const s = goObject(selector);
  if (!s) return [];
  const errs = validateLabels(s.matchLabels, path.child('matchLabels'));
  const reqs = goList(s.matchExpressions) ?? [];
  for (let i = 0; i < reqs.length; i++) {
    if (i in reqs) append(errs, validateLabelSelectorRequirement(reqs[i], path.child('matchExpressions').index(i))); // a hole is skipped, as forEach skips it
  }
  return errs;
}
