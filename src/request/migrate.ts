/**
 * The two stored shapes before the one test-input model, turned into the v2 shape (saved.ts):
 *   - 'admission-workbench/cel-tests/v1': `{version: 1, docs: {[docId]: {inputs?, cases: {[path]: [{id, name, inputs, expect}]}, open}}}`,
 *     inputs = `{object, oldObject, params, namespaceObject: YAML text, request: {…, groups: string[]}, authorizer: rules}`;
 *   - 'admission-workbench/policy-tests/v1': `{byDoc: {[docId]: {request: {…, groups: 'a, b'}, objectText, oldObjectText,
 *     namespaceText, paramsText, authorizerText: 'rules: […]'}}, cases: {[docId]: PolicyTestCase[]}}`.
 * Every readable case is kept; an unreadable entry is dropped, never the rest.
 */
import { isObject, str, strList } from '../base/json';
import type { PolicyTestCase, TestInputDraft } from './model';
import { parseInputText } from './parse';
import { emptyDocTests, newId, readAuthorizer, readCelExpectation, readDraft, readPolicyCase, readRequestDraft, type DocTests } from './saved';

export const CEL_TESTS_V1_KEY = 'admission-workbench/cel-tests/v1';
export const POLICY_TESTS_V1_KEY = 'admission-workbench/policy-tests/v1';

export function fromCelTestsV1(saved: unknown): Record<string, DocTests> {
  const out: Record<string, DocTests> = {};
  if (!isObject(saved) || saved.version !== 1 || !isObject(saved.docs)) return out;
  for (const [id, d] of Object.entries(saved.docs)) {
    if (!isObject(d)) continue;
    const doc = emptyDocTests();
    if (isObject(d.inputs)) doc.draft = readDraft(d.inputs);
    if (isObject(d.cases)) {
      for (const [path, cs] of Object.entries(d.cases)) {
        const list = (Array.isArray(cs) ? cs : []).filter(isObject).map((c, i) => ({
          id: str(c.id) || newId(),
          name: str(c.name) || `case ${i + 1}`,
          input: readDraft(c.inputs),
          expect: readCelExpectation(c.expect),
        }));
        if (list.length) doc.celCases[path] = list;
      }
    }
    doc.open = strList(d.open);
    out[id] = doc;
  }
  return out;
}

/** The old policy form's authorizer text (`rules: [...]`) as rules; unreadable text gives none. */
function authorizerOf(text: unknown): TestInputDraft['authorizer'] {
  const v = parseInputText(str(text)).value;
  return isObject(v) ? readAuthorizer(v.rules) : [];
}

function policyDraft(v: Record<string, unknown>): TestInputDraft {
  return {
    request: readRequestDraft(v.request),
    object: str(v.objectText),
    oldObject: str(v.oldObjectText),
    params: str(v.paramsText),
    namespaceObject: str(v.namespaceText),
    authorizer: authorizerOf(v.authorizerText),
  };
}

export function fromPolicyTestsV1(saved: unknown): Record<string, DocTests> {
  const out: Record<string, DocTests> = {};
  if (!isObject(saved)) return out;
  const doc = (id: string) => (out[id] ??= emptyDocTests());
  if (isObject(saved.byDoc)) for (const [id, v] of Object.entries(saved.byDoc)) if (isObject(v)) doc(id).draft = policyDraft(v);
  if (isObject(saved.cases)) {
    for (const [id, cs] of Object.entries(saved.cases)) {
      const list = (Array.isArray(cs) ? cs : []).map(readPolicyCase).filter((c): c is PolicyTestCase => !!c);
      if (list.length) doc(id).policyCases = list;
    }
  }
  return out;
}

/**
 * Both migrations together. A document with inputs in both stores keeps the CEL editor's
 * (the policy run then starts from them too); cases of both kinds are all kept.
 */
export function migrateV1(celSaved: unknown, policySaved: unknown): Record<string, DocTests> {
  const cel = fromCelTestsV1(celSaved);
  const policy = fromPolicyTestsV1(policySaved);
  const out: Record<string, DocTests> = { ...policy };
  for (const [id, c] of Object.entries(cel)) {
    const p = policy[id];
    out[id] = p ? { ...c, draft: c.draft ?? p.draft, policyCases: p.policyCases } : c;
  }
  return out;
}
