/**
 * What a release's registry strategy adds to the kind's validation on create (k8s.io/kubernetes
 * pkg/registry/admissionregistration/<kind>/strategy.go `Validate` and `WarningsOnCreate`), and
 * the create path's treatment of the error list; which a release has is its row in
 * src/base/releases.ts (docs/versions.md). Warnings are FieldErrors whose `field: message` is the
 * apiserver's warning text exactly.
 */
import type { ReleaseRow } from '../../base/releases';
import { fieldPath } from '../../base/path';
import { invalid, type FieldError } from '../errors';
import { effectiveName } from './metadata';
import { goList, goString, goStruct, type Obj } from './values';

/** The suffix reserved for manifest-based admission configuration (static_suffix.go StaticConfigSuffix). */
export const StaticConfigSuffix = '.static.k8s.io';

const STATIC_SUFFIX_DETAIL = `names ending with "${StaticConfigSuffix}" are reserved for static manifest-based configurations and cannot be managed via the API`;

const WEBHOOK_KINDS: ReadonlySet<string> = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

const warning = (field: string, message: string): FieldError => ({ type: 'Invalid', field, message, severity: 'warning' });

/** ValidateStaticSuffix (an error, ManifestBasedAdmissionControlConfig on) or WarningsForStaticSuffix (off), as the release's strategy has it. */
function staticSuffix(meta: unknown, row: ReleaseRow): FieldError[] {
  const mode = row.validation.staticSuffix;
  if (mode === 'none') return [];
  const name = effectiveName(meta);
  if (!name.endsWith(StaticConfigSuffix)) return [];
  const path = String(fieldPath('metadata', 'name'));
  return [mode === 'error' ? invalid(path, name, STATIC_SUFFIX_DETAIL) : warning(path, STATIC_SUFFIX_DETAIL)];
}

/** schema.GroupResource.String(): `resource.group`, or the resource alone in the core group. */
const groupResource = (group: string, resource: string): string => (group ? `${resource}.${group}` : resource);

/**
 * WarningsForValidating/MutatingWebhookRules: a rule that names, without a `*` in apiGroups or
 * resources, a resource webhooks are not called for has no effect (warnings.go).
 */
function excludedRuleWarnings(obj: Obj, row: ReleaseRow): FieldError[] {
  if (!row.validation.warnExcludedWebhookRules) return [];
  const excluded = new Set(row.chain.webhookExcludedResources.map((gr) => groupResource(gr.group, gr.resource)));
  const out: FieldError[] = [];
  goList(obj.webhooks)?.forEach((h, i) => {
    goList(goStruct(h)?.rules)?.forEach((r, j) => {
      const rule = goStruct(r);
      const groups = (goList(rule?.apiGroups) ?? []).map((g) => goString(g) ?? '');
      const resources = (goList(rule?.resources) ?? []).map((x) => goString(x) ?? '');
      if (groups.includes('*') || resources.includes('*')) return;
      const seen = new Set<string>();
      for (const g of groups)
        for (const res of resources) {
          const gr = groupResource(g, res);
          if (excluded.has(gr) && !seen.has(gr)) {
            seen.add(gr);
            out.push(
              warning(
                String(fieldPath('webhooks').index(i).child('rules').index(j)),
                `${gr} is excluded from admission webhooks; this rule will have no effect`,
              ),
            );
          }
        }
    });
  });
  return out;
}

/** The strategy's additions for a decoded object of `kind`: errors after the kind's own, then the create warnings. */
export function strategyChecks(kind: string, obj: Obj, row: ReleaseRow): FieldError[] {
  return [...staticSuffix(obj.metadata, row), ...(WEBHOOK_KINDS.has(kind) ? excludedRuleWarnings(obj, row) : [])];
}

/**
 * From 1.37 create runs declarative validation for these kinds, which passes the handwritten
 * errors through ErrorList.Filter → ToAggregate: an error whose text (`field: body`) was seen
 * before is dropped (k8s.io/apimachinery pkg/util/validation/field/errors.go). Warnings stay.
 */
export function withoutRepeatedErrors(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.severity === 'warning') return true;
    const text = `${e.field}: ${e.message}`;
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}
