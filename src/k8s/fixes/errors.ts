/**
 * Quick fixes for validation errors, where the remedy is unambiguous: a table from
 * (field pattern, error types) to a fix. Errors stay exactly as the apiserver words them;
 * their fixes are looked up here.
 */
import type { FieldError, ErrorType } from '../errors';
import { getIn } from '../edit';
import { parsePath } from '../path';
import { renameTo, setField } from './edits';
import type { Fix } from './types';

interface ErrorFixRule {
  field: RegExp;
  types: readonly ErrorType[];
  fix(e: FieldError, object: unknown): Fix | undefined;
}

const valueAt = (object: unknown, field: string): unknown => getIn(object, parsePath(field));

const RULES: readonly ErrorFixRule[] = [
  {
    field: /^webhooks\[\d+\]\.sideEffects$/,
    types: ['Required', 'NotSupported'],
    fix: (e) => setField('Set sideEffects: None', e.field, 'None', 'Say NoneOnDryRun instead if the webhook has side effects that it skips for dry-run requests.'),
  },
  {
    field: /^webhooks\[\d+\]\.admissionReviewVersions$/,
    types: ['Required', 'Invalid'],
    fix: (e) => setField('Set admissionReviewVersions: [v1]', e.field, ['v1']),
  },
  {
    field: /^webhooks\[\d+\]\.timeoutSeconds$/,
    types: ['Invalid'],
    fix: (e) => setField('Set timeoutSeconds: 5', e.field, 5),
  },
  {
    field: /^spec\.validationActions$/,
    types: ['Invalid'],
    fix: (e, o) => {
      const actions = valueAt(o, e.field);
      return /both Deny and Warn/.test(e.message) && Array.isArray(actions)
        ? setField('Remove Warn (Deny already reports the failure)', e.field, actions.filter((a) => a !== 'Warn'))
        : undefined;
    },
  },
  {
    field: /^metadata\.name$/,
    types: ['Invalid'],
    fix: (e, o) => {
      const v = valueAt(o, e.field);
      return typeof v === 'string' && v !== '' ? renameTo(e.field, v) : undefined;
    },
  },
  {
    field: /^webhooks\[\d+\]\.name$/,
    types: ['Invalid'],
    fix: (e, o) => {
      const v = valueAt(o, e.field);
      return typeof v === 'string' && v !== '' && !/^Duplicate/.test(e.message) ? renameTo(e.field, v, 3) : undefined;
    },
  },
];

/** The fixes of one validation error of `object` (the object as written, not defaulted). */
export function fixesForError(e: FieldError, object: unknown): Fix[] {
  const out: Fix[] = [];
  for (const rule of RULES) {
    if (!rule.types.includes(e.type) || !rule.field.test(e.field)) continue;
    const fix = rule.fix(e, object);
    if (fix) out.push(fix);
  }
  return out;
}
