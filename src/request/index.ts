/**
 * The one admission request model (model.ts) and everything around it: drafts → TestInput
 * (`toTestInput`), what CEL sees of a request (`celInputs`, the only builder), a document's default draft,
 * the simulator's request templates and scenarios, CEL case expectations, the saved v2 shape
 * and the migration of the two v1 stores. Pure TypeScript; runs in Node.
 */
export * from './model';
export { emptyRequestDraft, requestOf, toDraft, toTestInput, usesObject, usesOldObject, isOperation, cleanAuthorizer, type Converted } from './draft';
export { parseInputText, type ParsedText } from './parse';
export { admittedInput, admittedInputNow, admittedObject } from './admitted';
export { celInputs, celNamespaceObject, celRequest, REQUEST_UID, requestAttributes, toCelInputs } from './cel-inputs';
export { defaultDraftFor, namespaceText } from './defaults';
export { kubeletLeaseRenewal, kubeletUser, leaseRenewal, namespaceObject } from './system-requests';
export { REQUEST_TEMPLATES, templateById, type RequestTemplate } from './templates';
export { expectationText, expectedValue, passes, sameValue, type CelExpectation, type Outcome } from './expect';
export * from './scenario';
export * from './saved';
export * from './migrate';
