/**
 * Quick fixes for validation errors, where the remedy is unambiguous: a table from
 * (field pattern, error types) to a fix. Errors stay exactly as the apiserver words them;
 * their fixes are looked up here.
 */
import type { FieldError, ErrorType } from '../errors';
import { convertToV1 } from '../convert';
import { getIn, setIn } from '../edit';
import { isObject, objList, str } from '../../base/json';
import { parsePath } from '../../base/path';
import { renameTo, setField, suggestDnsName } from './edits';
import { paramValue, type Fix } from './types';

interface ErrorFixRule {
  field: RegExp;
  types: readonly ErrorType[];
  fix(e: FieldError, object: unknown): Fix | undefined;
}

const V1_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];

/** Webhooks whose sideEffects v1 does not accept (Unknown, Some or unset in v1beta1): the user chooses. */
const sideEffectsToChoose = (o: unknown): number[] =>
  isObject(o) ? objList(o.webhooks).flatMap((w, i) => (!V1_SIDE_EFFECTS.includes(str(w.sideEffects)) ? [i] : [])) : [];

const valueAt = (object: unknown, field: string): unknown => getIn(object, parsePath(field));

const RULES: readonly ErrorFixRule[] = [
  {
    field: /^apiVersion$/,
    types: ['NotSupported'],
    fix: (_e, o) => {
      const first = convertToV1(o);
      if (first.object === o) return undefined;
      const choose = sideEffectsToChoose(first.object).length > 0;
      const fix: Fix = {
        title: 'Convert to v1',
        note: first.notes.join('; '),
        params: choose
          ? [
              {
                name: 'sideEffects',
                label: 'sideEffects for the webhooks that said Unknown or Some (v1 accepts None or NoneOnDryRun)',
                default: 'NoneOnDryRun',
              },
            ]
          : undefined,
        apply: (object, input) => {
          let next = convertToV1(object).object;
          const value = paramValue(fix, input, 'sideEffects');
          if (choose && !V1_SIDE_EFFECTS.includes(value)) return { object };
          for (const i of sideEffectsToChoose(next)) next = setIn(next, ['webhooks', i, 'sideEffects'], value);
          return { object: next };
        },
      };
      return fix;
    },
  },
  {
    field: /^webhooks\[\d+\]\.sideEffects$/,
    types: ['Required', 'NotSupported'],
    fix: (e) =>
      setField('Set sideEffects: None', e.field, 'None', 'Say NoneOnDryRun instead if the webhook has side effects that it skips for dry-run requests.'),
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
        ? setField(
            'Remove Warn (Deny already reports the failure)',
            e.field,
            actions.filter((a) => a !== 'Warn'),
          )
        : undefined;
    },
  },
  {
    field: /matchConditions\[\d+\]\.name$/,
    types: ['Invalid', 'Duplicate'],
    fix: (e, o) => {
      const v = valueAt(o, e.field);
      if (typeof v !== 'string' || v === '') return undefined;
      const siblings = objList(valueAt(o, e.field.replace(/\[\d+\]\.name$/, ''))).map((c) => str(c.name));
      const base = suggestDnsName(v)
        .slice(0, 60)
        .replace(/[.-]+$/, '');
      let next = base;
      for (let n = 2; siblings.includes(next); n++) next = `${base}-${n}`;
      return next === v ? undefined : setField(`Rename to "${next}"`, e.field, next);
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
