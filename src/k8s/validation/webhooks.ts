/**
 * ValidatingWebhookConfiguration and MutatingWebhookConfiguration on create
 * (validation.go validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration
 * with requireNoSideEffects, requireRecognizedAdmissionReviewVersion and
 * requireUniqueWebhookNames on; apiserver util/webhook for clientConfig).
 * A configuration comes decoded, not defaulted: each webhook is defaulted as it is
 * validated (../defaults.ts webhookDefaulting; a v1 webhook needs no defaulted copy, its
 * defaults being values these functions accept wherever they accept the field absent).
 */
import type { CelCompiler } from '../../cel/types';
import { webhookDefaulting, type WebhookDefaulting } from '../defaults';
import { append, duplicate, invalid, notSupported, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { lazyPath } from './lazy-path';
import { base64DecodeError } from './base64';
import { validateMatchConditions } from './match-conditions';
import { validateObjectMeta } from './metadata';
import { isDNS1035Label, isDNS1123Subdomain } from './names';
import { validateRuleWithOperations } from './rules';
import { validateLabelSelector } from './selectors';
import { parseGoURL } from './url';
import { goInt, goList, goObject, goString, goStruct, isAbsent, isObject, type Obj } from './values';
import { strList } from '../../base/json';
import { invalidPrinted, invalidSlice } from './go-print';

export const supportedFailurePolicies = ['Fail', 'Ignore'] as const;
export const supportedMatchPolicies = ['Equivalent', 'Exact'] as const;
/** noSideEffectClasses: what create accepts (Unknown and Some only survive on update). */
export const noSideEffectClasses = ['None', 'NoneOnDryRun'] as const;
export const supportedReinvocationPolicies = ['IfNeeded', 'Never'] as const;
/** AcceptedAdmissionReviewVersions */
export const acceptedAdmissionReviewVersions = ['v1', 'v1beta1'] as const;

type WebhookKind = 'Validating' | 'Mutating';

/** A string-valued enum pointer: NotSupported unless one of `supported` (absent was defaulted or is allowed). */
export function validateEnum(value: unknown, supported: readonly string[], path: FieldPath): FieldError[] {
  return typeof value === 'string' && !supported.includes(value) ? [notSupported(path, value, supported)] : [];
}

/** At least three segments separated by dots (`strings.Split(name, ".")` has three or more parts). */
const hasTwoDots = (name: string): boolean => name.indexOf('.', name.indexOf('.') + 1) > 0;

/** utilvalidation.IsFullyQualifiedName: a DNS-1123 subdomain (messages joined) with at least three segments. */
export function isFullyQualifiedName(path: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(path, name, errs.join(','))];
  if (!hasTwoDots(name)) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** webhook.ValidateWebhookURL(path, url, forceHttps=true) */
export function validateWebhookURL(path: FieldPath, url: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const u = parseGoURL(url);
  if (!u.ok) return [required(path, `url must be a valid URL: ${u.error}${form}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(invalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host.length === 0) errs.push(invalid(path, u.host, `host must be specified${form}`));
  if (u.user !== null) errs.push(invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment.length !== 0) errs.push(invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * webhook.ValidateWebhookService. SOURCE ≠ CHECKLIST: the function is declared
 * `(fldPath, namespace, name, path, port)` but validation.go calls it with
 * `(…, cc.Service.Name, cc.Service.Namespace, …)`, so a missing service name is
 * reported at `service.namespace` and a missing namespace at `service.name`
 * (kubernetes/kubernetes#141353, still so in 1.36). The checklist reports them unswapped.
 */
export function validateWebhookService(path: FieldPath, service: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const namespaceArg = goString(service.name); // swapped, as the apiserver passes them
  const nameArg = goString(service.namespace);
  if (nameArg === '') errs.push(required(path.child('name')));
  if (namespaceArg === '') errs.push(required(path.child('namespace')));
  const port = goInt(service.port);
  if (port !== undefined && (port < 1 || port > 65535))
    errs.push(invalid(path.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = service.path;
  if (typeof urlPath !== 'string' || urlPath === '/' || urlPath === '') return errs;
  const p = path.child('path');
  if (urlPath === '//') return [...errs, invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(invalid(p, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  const steps = toCheck.split('/');
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.length === 0) errs.push(invalid(p, urlPath, `segment[${i}] may not be empty`));
    else for (const failure of isDNS1123Subdomain(step)) errs.push(invalid(p, urlPath, `segment[${i}]: ${failure}`));
  }
  return errs;
}

/** clientConfig: exactly one of url or service; caBundle must decode as base64 (a decoder check). */
export function validateClientConfig(clientConfig: unknown, path: FieldPath): FieldError[] {
  const cc = goStruct(clientConfig);
  if (!cc) return [];
  const errs: FieldError[] = [];
  if (typeof cc.caBundle === 'string') {
    const e = base64DecodeError(cc.caBundle);
    if (e) {
      // a decoder error (HTTP 400 in the apiserver); the value is shortened, certificates run to kilobytes
      const shown = cc.caBundle.length > 64 ? `${cc.caBundle.slice(0, 61)}...` : cc.caBundle;
      errs.push(invalidPrinted(path.child('caBundle'), cc.caBundle, JSON.stringify(shown), e, shown));
    }
  }
  const url = cc.url;
  const service = cc.service;
  if ((!isAbsent(url) && typeof url !== 'string') || (!isAbsent(service) && !goObject(service))) return errs;
  if (isAbsent(url) === isAbsent(service)) errs.push(required(path, 'exactly one of url or service is required'));
  else if (typeof url === 'string') append(errs, validateWebhookURL(path.child('url'), url));
  else append(errs, validateWebhookService(path.child('service'), goObject(service)!));
  return errs;
}

/** validateAdmissionReviewVersions(versions, requireRecognizedAdmissionReviewVersion=true) */
export function validateAdmissionReviewVersions(versions: unknown, path: FieldPath): FieldError[] {
  const list = goList(versions);
  if (!list) return [];
  if (list.length < 1) return [required(path, `must specify one of ${acceptedAdmissionReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  let hasAcceptedVersion = false;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (typeof v !== 'string') continue;
    // seen before (Go fills a set in order); a scan, not a Set: these lists hold a version or two
    if (list.indexOf(v) < i) {
      errs.push(invalid(path.index(i), v, 'duplicate version'));
      continue;
    }
    for (const msg of isDNS1035Label(v)) errs.push(invalid(path.index(i), v, msg));
    if ((acceptedAdmissionReviewVersions as readonly string[]).includes(v)) hasAcceptedVersion = true;
  }
  if (!hasAcceptedVersion && strList(list).length === list.length)
    errs.push(invalidSlice(path, 'string', list, `must include at least one of ${acceptedAdmissionReviewVersions.join(', ')}`));
  return errs;
}

/** validateValidatingWebhook / validateMutatingWebhook */
export function validateWebhook(hook: Obj, kind: WebhookKind, compiler: CelCompiler | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = goString(hook.name);
  if (name !== undefined) append(errs, isFullyQualifiedName(path.child('name'), name));
  const rules = goList(hook.rules) ?? [];
  for (let i = 0; i < rules.length; i++) {
    if (i in rules) append(errs, validateRuleWithOperations(rules[i], path.child('rules').index(i))); // a hole is skipped, as forEach skips it
  }
  append(errs, validateEnum(hook.failurePolicy, supportedFailurePolicies, path.child('failurePolicy')));
  append(errs, validateEnum(hook.matchPolicy, supportedMatchPolicies, path.child('matchPolicy')));
  if (isAbsent(hook.sideEffects)) errs.push(required(path.child('sideEffects'), `must specify one of ${noSideEffectClasses.join(', ')}`));
  else append(errs, validateEnum(hook.sideEffects, noSideEffectClasses, path.child('sideEffects')));
  const timeout = goInt(hook.timeoutSeconds);
  if (timeout !== undefined && (timeout > 30 || timeout < 1))
    errs.push(invalid(path.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  append(errs, validateLabelSelector(hook.namespaceSelector, path.child('namespaceSelector')));
  append(errs, validateLabelSelector(hook.objectSelector, path.child('objectSelector')));
  if (kind === 'Mutating') append(errs, validateEnum(hook.reinvocationPolicy, supportedReinvocationPolicies, path.child('reinvocationPolicy')));
  append(errs, validateClientConfig(hook.clientConfig, path.child('clientConfig')));
  append(errs, validateMatchConditions(hook.matchConditions, { compiler, hasParams: false }, 'webhook-matchCondition', path.child('matchConditions')));
  return errs;
}

/**
 * What one webhook's own checks found, by webhook object as written (decoded). Objects are
 * immutable, so an edit of one webhook re-validates only that one; a webhook found here is
 * not even defaulted again. Keyed by the written object, not the defaulted copy, so that
 * nothing but the errors is kept alive (one WeakMap entry per webhook). The defaulting is
 * part of the key: it depends on the configuration's apiVersion. Results that depended on a
 * CEL answer not known yet are not kept.
 */
const hookMemo = new WeakMap<
  Obj,
  { index: number; kind: WebhookKind; defaulting: WebhookDefaulting | undefined; compiler: CelCompiler | undefined; errs: FieldError[] }
>();

function validateWebhookAt(
  written: unknown,
  kind: WebhookKind,
  defaulting: WebhookDefaulting | undefined,
  compiler: CelCompiler | undefined,
  index: number,
  path: FieldPath,
): FieldError[] {
  const key = isObject(written) ? written : undefined;
  const hit = key && hookMemo.get(key);
  if (hit && hit.index === index && hit.kind === kind && hit.defaulting === defaulting && hit.compiler === compiler) return hit.errs;
  const hook = goStruct(defaulting ? defaulting(written) : written);
  if (!hook) return [];
  let unknown = false;
  const tracking: CelCompiler | undefined = compiler && {
    compile: (expression, context, options) => {
      const r = compiler.compile(expression, context, options);
      if (r === undefined) unknown = true;
      return r;
    },
  };
  const errs = validateWebhook(hook, kind, tracking, path);
  append(errs, validateAdmissionReviewVersions(hook.admissionReviewVersions, path.child('admissionReviewVersions')));
  if (key && !unknown) hookMemo.set(key, { index, kind, defaulting, compiler, errs });
  return errs;
}

/** ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration, of a decoded (not yet defaulted) object. */
export function validateWebhookConfiguration(obj: Obj, kind: WebhookKind, compiler?: CelCompiler): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, lazyPath('metadata'));
  const defaulting = webhookDefaulting(obj);
  const hookNames = new Set<string>();
  const webhooksPath = lazyPath('webhooks');
  goList(obj.webhooks)?.forEach((h, i) => {
    // defaulting leaves the name alone, and a written null is an empty webhook to either
    const hook = goStruct(h);
    if (!hook) return;
    const path = webhooksPath.index(i);
    append(errs, validateWebhookAt(h, kind, defaulting, compiler, i, path));
    const name = hook.name;
    if (typeof name === 'string' && name.length > 0) {
      if (hookNames.has(name)) errs.push(duplicate(path.child('name'), name));
      else hookNames.add(name);
    }
  });
  return errs;
}

export const validateValidatingWebhookConfiguration = (obj: Obj, compiler?: CelCompiler): FieldError[] =>
  validateWebhookConfiguration(obj, 'Validating', compiler);
export const validateMutatingWebhookConfiguration = (obj: Obj, compiler?: CelCompiler): FieldError[] => validateWebhookConfiguration(obj, 'Mutating', compiler);
