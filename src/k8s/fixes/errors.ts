/**
 * Quick fixes for validation errors, where the remedy is unambiguous: a table from
 * (field pattern, error types) to a fix. Errors stay exactly as the apiserver words them;
 * their fixes are looked up here.
 */
import type { FieldError, ErrorType } from '../errors';
import { convertToV1 } from '../convert';
import { getIn, setIn } from '../edit';
import { isObject, obj, objList, str } from '../../base/json';
import { parsePath } from '../../base/path';
import { StaticConfigSuffix } from '../validation';
import { renameTo, serviceToUrl, setField, suggestDnsName } from './edits';
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

/** The errors about the static manifest suffix (their own rules below rename for them). */
const STATIC_NAME = /reserved for static manifest-based configurations|must have a name ending with/;

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
      return typeof v === 'string' && v !== '' && !STATIC_NAME.test(e.message) ? renameTo(e.field, v) : undefined;
    },
  },
  // From 1.37 the API refuses the suffix (1.36 warns): it names static manifests.
  {
    field: /^metadata\.name$/,
    types: ['Invalid'],
    fix: (e, o) => {
      const v = valueAt(o, e.field);
      if (typeof v !== 'string' || !v.endsWith(StaticConfigSuffix) || !/reserved for static manifest-based configurations/.test(e.message)) return undefined;
      const next = v.slice(0, -StaticConfigSuffix.length).replace(/[.-]+$/, '');
      return next
        ? setField(
            `Rename to "${next}"`,
            e.field,
            next,
            `Names ending with "${StaticConfigSuffix}" are for static manifests, which the apiserver loads from its manifest directory: to make this one, mark the document static (its header) instead.`,
          )
        : undefined;
    },
  },
  // A static manifest's name must end with the suffix (the manifest loader).
  {
    field: /^metadata\.name$/,
    types: ['Invalid'],
    fix: (e, o) => {
      const v = valueAt(o, e.field);
      if (typeof v !== 'string' || v === '' || !/must have a name ending with/.test(e.message)) return undefined;
      const stem = suggestDnsName(v)
        .slice(0, 253 - StaticConfigSuffix.length)
        .replace(/[.-]+$/, '');
      return setField(
        `Rename to "${stem}${StaticConfigSuffix}"`,
        e.field,
        `${stem}${StaticConfigSuffix}`,
        str(obj(o).kind).endsWith('Policy')
          ? 'The bindings that name this policy in spec.policyName need the new name too.'
          : 'A static manifest can only be changed in its manifest directory, on every control-plane host.',
      );
    },
  },
  // A static webhook is called by URL only (the manifest loader).
  {
    field: /^webhooks\[\d+\]\.clientConfig\.service$/,
    types: ['Invalid'],
    fix: (e, o) => (/not supported for static manifests/.test(e.message) ? serviceToUrl(e.field.replace(/\.service$/, ''), valueAt(o, e.field)) : undefined),
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
