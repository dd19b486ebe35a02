/**
 * The test input a document starts with: a request for the first resource its rules match
 * (webhook rules or a policy's matchConstraints; CREATE when allowed, else the first
 * operation), a minimal object of that kind, the request's Namespace, and params with the
 * keys the policy's expressions read when it has a paramKind. The same draft object while the
 * rules stay the same, so the engine's answers are reused across renders.
 */
import { groupForResource, isClusterScoped, kindForResource, minimalObject } from '../k8s/resources';
import { isObject, obj, str, strList } from '../base/json';
import { serializeDocuments } from '../yaml';
import { emptyRequestDraft, isOperation, usesObject, usesOldObject } from './draft';
import type { RequestDraft, TestInputDraft } from './model';
import { namespaceObject } from './system-requests';

interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
}

/** The first rule naming a concrete resource: webhooks[*].rules, then spec.matchConstraints.resourceRules. */
function firstRule(document: unknown): Rule | undefined {
  const o = obj(document);
  const candidates: unknown[] = [];
  if (Array.isArray(o.webhooks)) for (const w of o.webhooks) if (isObject(w) && Array.isArray(w.rules)) candidates.push(...w.rules);
  const mc = obj(obj(o.spec).matchConstraints);
  if (Array.isArray(mc.resourceRules)) candidates.push(...mc.resourceRules);
  for (const r of candidates) {
    if (!isObject(r)) continue;
    const resources = strList(r.resources).filter((x) => x !== '*' && !x.startsWith('*/'));
    if (resources.length) return { operations: strList(r.operations), apiGroups: strList(r.apiGroups), apiVersions: strList(r.apiVersions), resources };
  }
  return undefined;
}

function requestFor(rule: Rule | undefined): RequestDraft {
  const req = emptyRequestDraft();
  if (rule) {
    const [resource, sub = ''] = rule.resources[0].split('/');
    const ops = rule.operations.filter(isOperation);
    req.operation = ops.length === 0 || ops.includes('CREATE') ? 'CREATE' : ops[0];
    const groups = rule.apiGroups.filter((g) => g !== '*');
    req.group = groups.length ? groups[0] : groupForResource(resource);
    req.version = rule.apiVersions.find((v) => v !== '*') ?? 'v1';
    req.resource = resource;
    req.subResource = sub === '*' ? '' : sub;
    req.kind = kindForResource(resource);
  }
  if (isClusterScoped(req.kind)) req.namespace = '';
  return req;
}

/** The keys of `params.data.x` the expressions read get a value, so the defaults evaluate. */
function paramsFor(document: unknown, exprText: string): string {
  const pk = obj(obj(obj(document).spec).paramKind);
  if (!isObject(obj(obj(document).spec).paramKind)) return '';
  const kind = str(pk.kind) || 'ConfigMap';
  const p: Record<string, unknown> = { apiVersion: str(pk.apiVersion) || 'v1', kind, metadata: { name: 'params', namespace: 'default' } };
  const keys = [...new Set([...exprText.matchAll(/params\.data\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))];
  if (kind === 'ConfigMap') p.data = Object.fromEntries((keys.length ? keys : ['key']).map((k) => [k, '5']));
  else p.spec = {};
  return serializeDocuments([p]);
}

export const namespaceText = (name: string): string => serializeDocuments([namespaceObject(name)]);

const cache = new Map<string, TestInputDraft>();

export function defaultDraftFor(document: unknown): TestInputDraft {
  const rule = firstRule(document);
  const spec = obj(obj(document).spec);
  const exprText = ['validations', 'variables', 'mutations', 'matchConditions', 'auditAnnotations'].map((k) => JSON.stringify(spec[k] ?? '')).join('');
  const key = JSON.stringify([rule, spec.paramKind, exprText.match(/params\.data\.\w+/g)]);
  const hit = cache.get(key);
  if (hit) return hit;
  const request = requestFor(rule);
  const object = minimalObject(request.group, request.version, request.kind, request.namespace);
  const draft: TestInputDraft = {
    request,
    object: usesObject(request.operation) ? serializeDocuments([object]) : '',
    oldObject: usesOldObject(request.operation) ? serializeDocuments([object]) : '',
    params: paramsFor(document, exprText),
    namespaceObject: namespaceText(request.namespace || 'default'),
    authorizer: [],
  };
  if (cache.size > 100) cache.clear();
  cache.set(key, draft);
  return draft;
}
