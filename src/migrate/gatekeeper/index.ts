/**
 * The Gatekeeper converter: ConstraintTemplates with CEL code (engine K8sNativeValidation) and
 * their constraints into ValidatingAdmissionPolicies and bindings, per template (rule = the
 * template's name) and per constraint. See README.md beside this file.
 */
import { kindOf, nameOf, obj, type Obj } from '../../base/json';
import type { Conversion, ConvertOptions, Converter, RuleResult } from '../types';
import { duplicateNote, occurrences, occurrenceSuffix, ordinal } from '../duplicates';
import { bindingName, constraintToBinding, enforcementActions, templateToPolicy, VALIDATION_ACTION } from './as-gatekeeper';
import { constraintUnknownFields, isConstraint, isTemplate, listed, readTemplate, type TemplateInfo } from './read';
import { STANDALONE_DIFFERENCE, standaloneFor } from './standalone';

/**
 * The constraint's match fields Gatekeeper's webhook reads and its generated binding does not carry
 * (ConstraintToBinding): the generated policy applies where the webhook's match leaves the object out.
 */
function unboundMatch(constraint: Obj): string[] {
  const match = obj(obj(constraint.spec).match);
  const out: string[] = [];
  if (match.scope === 'Cluster' || match.scope === 'Namespaced')
    out.push(
      `spec.match.scope ${match.scope}: Gatekeeper's webhook matches only ${match.scope === 'Cluster' ? 'cluster-scoped objects (and Namespaces)' : 'namespaced objects'}, its generated binding every scope`,
    );
  if (match.source !== undefined && match.source !== 'All')
    out.push(`spec.match.source ${JSON.stringify(match.source)}: Gatekeeper's generated binding does not carry it`);
  return out;
}

export { importGatorSuite } from './suite';
export { isConstraint, isTemplate, readTemplate, templateOf } from './read';

/** A result line's extra for a Rego-only template: the Rego, for the UI to show beside an empty CEL editor. */
export interface GatekeeperRuleResult extends RuleResult {
  rego?: string;
}

const produced = (o: Obj) => `${kindOf(o)}/${nameOf(o)}`;

/** Why a template cannot be converted at all, or undefined. */
function templateBlocker(t: TemplateInfo, mode: ConvertOptions['gatekeeper']): string | undefined {
  if (t.errors.length) return `Gatekeeper rejects this template: ${t.errors.join('; ')}`;
  if (!t.cel)
    return t.rego
      ? 'the template has only Rego code: Rego cannot be converted to CEL; write the CEL (engine K8sNativeValidation) by hand'
      : 'the template has no code (neither K8sNativeValidation CEL nor Rego)';
  if (t.cel.validations.length === 0) return 'the template CEL source has no validations';
  if (mode === 'as-gatekeeper' && t.cel.generateVAP === false)
    return 'the template sets generateVAP: false: Gatekeeper generates no ValidatingAdmissionPolicy for it';
  return undefined;
}

/**
 * Documents of one name in the input (a template, a constraint of one kind) are converted apart, as
 * the Kyverno converter does (../duplicates.ts): -n after a later template's name and after a later
 * constraint's name in their objects' names; a constraint is converted for every copy of its template.
 */
function occurrenceOf(o: { n: number; of: number }, source: RuleResult['source'], note: string[]): Pick<RuleResult, 'source' | 'duplicate'> {
  return {
    source: o.of > 1 ? { ...source, occurrence: o.n } : source,
    ...(note.length ? { duplicate: note.join('; ') } : {}),
  };
}

function convertGatekeeper(objects: readonly Obj[], options: ConvertOptions): Conversion {
  const out: Conversion = { objects: [], rules: [] };
  const rules: GatekeeperRuleResult[] = [];
  const templates = objects.filter(isTemplate).map(readTemplate);
  const constraints = objects.filter(isConstraint);
  const byKind = new Map<string, TemplateInfo>();
  for (const t of templates) if (t.kind && !byKind.has(t.kind)) byKind.set(t.kind, t);
  const templateCopies = occurrences(templates, (t) => t.name);
  const constraintCopies = occurrences(constraints, (c) => `${kindOf(c)}/${nameOf(c)}`);
  const mode = options.gatekeeper === 'as-gatekeeper' ? 'as Gatekeeper names them' : 'as for one';

  templates.forEach((t, ti) => {
    const tc = templateCopies[ti]!;
    const tSuffix = occurrenceSuffix(tc.n);
    const templateNote =
      tc.of > 1
        ? [
            duplicateNote(
              `ConstraintTemplate ${t.name}`,
              tc.n,
              tc.of,
              tc.n === 1 ? `its objects named ${mode}` : `the names of the objects made from it with -${tc.n} after the template's name`,
            ),
          ]
        : [];
    const source = occurrenceOf(tc, { kind: 'ConstraintTemplate', name: t.name, rule: t.name }, templateNote);
    // a constraint's rule under this copy of its template: its own copies, and this template's
    const mine = constraints.flatMap((c, ci) => (kindOf(c) === t.kind ? [{ c, cc: constraintCopies[ci]! }] : []));
    const constraintRule = (c: Obj, cc: { n: number; of: number }) =>
      occurrenceOf(cc, { kind: kindOf(c), name: nameOf(c), rule: t.name }, [
        ...(cc.of > 1
          ? [
              duplicateNote(
                `${kindOf(c)} ${nameOf(c)}`,
                cc.n,
                cc.of,
                cc.n === 1 ? `its objects named ${mode}` : `its objects' names with -${cc.n} after the constraint's name`,
              ),
            ]
          : []),
        ...(tc.n > 1
          ? [
              `its ConstraintTemplate ${t.name} is in the input ${tc.of} times: converted for each, this for the ${ordinal(tc.n)}, its objects' names with -${tc.n} after the template's name`,
            ]
          : []),
      ]);
    const blocker = templateBlocker(t, options.gatekeeper);
    const rego = t.rego ? { rego: t.rego } : {};
    const unknown = t.unknown.length ? `Gatekeeper ignores ${listed(t.unknown)}: not converted` : '';
    if (blocker) {
      rules.push({ ...source, status: 'unsupported', reason: unknown ? `${blocker}; ${unknown}` : blocker, produced: [], ...rego });
      for (const { c, cc } of mine)
        rules.push({ ...constraintRule(c, cc), status: 'unsupported', reason: `its template ${t.name} is not converted`, produced: [] });
      return;
    }
    const cel = t.cel!;
    if (options.gatekeeper === 'as-gatekeeper') {
      const policy = templateToPolicy(t.name, t.kind, cel);
      policy.metadata = { name: `${nameOf(policy)}${tSuffix}` };
      out.objects.push(policy);
      // exact: tools/gatekeeper-oracle requires these objects to equal Gatekeeper's own
      rules.push({ ...source, status: unknown ? 'different' : 'exact', ...(unknown ? { reason: unknown } : {}), produced: [produced(policy)], ...rego });
      for (const { c, cc } of mine) {
        const b = constraintToBinding(c);
        const extra = constraintUnknownFields(c);
        const ignored = [extra.length ? `Gatekeeper ignores ${listed(extra)}: not converted` : '', ...unboundMatch(c)].filter(Boolean).join('; ');
        if ('binding' in b) {
          if (tSuffix || cc.n > 1) {
            b.binding.metadata = { name: bindingName(`${kindOf(c)}${tSuffix}`, `${nameOf(c)}${occurrenceSuffix(cc.n)}`) };
            obj(b.binding.spec).policyName = nameOf(policy);
          }
          out.objects.push(b.binding);
          rules.push({
            ...constraintRule(c, cc),
            status: ignored ? 'different' : 'exact',
            ...(ignored ? { reason: ignored } : {}),
            produced: [produced(b.binding)],
          });
        } else
          rules.push({
            ...constraintRule(c, cc),
            status: 'unsupported',
            reason: 'error' in b ? `Gatekeeper rejects this constraint: ${b.error}` : b.none,
            produced: [],
          });
      }
    } else {
      rules.push({ ...source, status: 'different', reason: `${STANDALONE_DIFFERENCE}${unknown ? `; ${unknown}` : ''}`, produced: [], ...rego });
      const templateRule = rules[rules.length - 1]!;
      for (const { c, cc } of mine) {
        const cs = constraintRule(c, cc);
        const ea = enforcementActions(c);
        if ('error' in ea) {
          rules.push({ ...cs, status: 'unsupported', reason: ea.error, produced: [] });
          continue;
        }
        // a binding's validationActions: no duplicates, and Deny never beside Warn (the apiserver refuses both)
        const wanted = [...new Set(ea.actions.map((a) => VALIDATION_ACTION[a] ?? a))];
        const actions = wanted.includes('Deny') ? wanted.filter((a) => a !== 'Warn') : wanted;
        if (actions.length === 0) {
          rules.push({ ...cs, status: 'unsupported', reason: 'no scoped enforcement action names the vap.k8s.io enforcement point', produced: [] });
          continue;
        }
        const s = standaloneFor(`${t.name}${tSuffix}`, cel, c, actions, t.object, occurrenceSuffix(cc.n));
        if ('objects' in s && actions.length < wanted.length)
          s.notes.push('its enforcement actions deny and warn: the binding denies (the apiserver refuses Deny beside Warn), and gives no warning');
        if ('unsupported' in s) {
          rules.push({ ...cs, status: 'unsupported', reason: s.unsupported, produced: [] });
          continue;
        }
        out.objects.push(...s.objects);
        const extra = constraintUnknownFields(c);
        const notes = [STANDALONE_DIFFERENCE, ...s.notes, ...(extra.length ? [`${listed(extra)} not converted (Gatekeeper ignores them too)`] : [])];
        const names = s.objects.map(produced);
        templateRule.produced.push(...names);
        rules.push({ ...cs, status: 'different', reason: notes.join('; '), produced: names });
      }
    }
  });
  // constraints whose kind no template defines
  for (const c of constraints) {
    if (byKind.has(kindOf(c))) continue;
    rules.push({
      source: { kind: kindOf(c), name: nameOf(c), rule: kindOf(c).toLowerCase() },
      status: 'unsupported',
      reason: `no ConstraintTemplate defines the kind ${kindOf(c) || '(none)'}: add the template ${JSON.stringify(kindOf(c).toLowerCase())} to convert this constraint`,
      produced: [],
    });
  }
  out.rules = rules;
  return out;
}

export const gatekeeperConverter: Converter = {
  name: 'Gatekeeper',
  owns: (o) => isTemplate(o) || isConstraint(o),
  convert: convertGatekeeper,
};
