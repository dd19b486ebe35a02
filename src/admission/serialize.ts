/**
 * The JSON Patch that turns one object into another (for the changes a MutatingAdmissionPolicy
 * made). The objects themselves, as the apiserver decodes and encodes them, come from
 * src/k8s/typed (apiserverObject).
 */
import { diffJson, formatPointer, parsePointer, type JsonPatchOp } from '../policy';

/** A JSON Patch (add / remove / replace) from `before` to `after`. */
export function patchBetween(before: unknown, after: unknown): JsonPatchOp[] {
  return diffJson(before, after).map((d) => {
    // keep pointers canonical (diffJson already escapes; re-format defensively)
    const path = formatPointer(parsePointer(d.path) ?? []);
    return d.op === 'remove' ? { op: 'remove', path } : { op: d.op, path, value: d.after };
  });
}
