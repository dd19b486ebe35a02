/**
 * Converting other projects' admission policies (Gatekeeper, Kyverno) into native admission:
 * ValidatingAdmissionPolicy / MutatingAdmissionPolicy and their bindings. See README.md.
 */
import type { Obj } from '../base/json';
import type { Conversion, ConvertOptions, Converter } from './types';
import { kyvernoConverter } from './kyverno';

export type { Conversion, ConvertOptions, Converter, RuleResult, RuleStatus, SourceRule } from './types';

/** Every source project's converter; each owns its own documents. */
export const CONVERTERS: readonly Converter[] = [kyvernoConverter];

/** Whether some converter reads `object` (a source policy, constraint or template). */
export const isSourcePolicy = (object: Obj): boolean => CONVERTERS.some((c) => c.owns(object));

/**
 * Converts every source policy among `objects`; objects no converter owns are not part of
 * the result (they are not source policies). Each converter sees the whole set.
 */
export function convertPolicies(objects: readonly Obj[], options: ConvertOptions): Conversion {
  const out: Conversion = { objects: [], rules: [] };
  for (const converter of CONVERTERS) {
    if (!objects.some((o) => converter.owns(o))) continue;
    const { objects: produced, rules } = converter.convert(objects, options);
    out.objects.push(...produced);
    out.rules.push(...rules);
  }
  return out;
}
