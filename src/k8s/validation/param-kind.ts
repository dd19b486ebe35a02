/**
 * spec.paramKind of ValidatingAdmissionPolicy and MutatingAdmissionPolicy:
 * validation.go validateParamKind / parseGroupVersion.
 */
import { invalid, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { isDNS1035Label, isDNS1123Subdomain } from './names';
import { goString, type Obj } from './values';

/** parseGroupVersion: "" and "/" are empty; no '/' is a core-group version; more than one '/' is an error. */
export function parseGroupVersion(gv: string): { group: string; version: string } | { error: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { error: `unexpected GroupVersion string: ${gv}` };
}

export function validateParamKind(paramKind: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = goString(paramKind.apiVersion);
  if (apiVersion === '') errs.push(required(path.child('apiVersion')));
  else if (apiVersion !== undefined) {
    const gv = parseGroupVersion(apiVersion);
    if ('error' in gv) errs.push(invalid(path.child('apiVersion'), apiVersion, gv.error));
    else {
      if (gv.group.length > 0) {
        const msgs = isDNS1123Subdomain(gv.group);
        if (msgs.length > 0) errs.push(invalid(path.child('apiVersion'), gv.group, msgs.join(',')));
      }
      if (gv.version.length === 0) errs.push(invalid(path.child('apiVersion'), apiVersion, 'version must be specified'));
      else {
        const msgs = isDNS1035Label(gv.version);
        if (msgs.length > 0) errs.push(invalid(path.child('apiVersion'), gv.version, msgs.join(',')));
      }
    }
  }
  const kind = goString(paramKind.kind);
  if (kind === '') errs.push(required(path.child('kind')));
  else if (kind !== undefined) {
    const msgs = isDNS1035Label(kind.toLowerCase());
    if (msgs.length > 0) errs.push(invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
  }
  return errs;
}
