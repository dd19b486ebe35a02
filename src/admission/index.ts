/** The admission simulator's public surface (pure TypeScript, Node and browser): README.md lists it. */
export * from './types';
export { CONDITIONAL_ANNOTATION, DECISION_ANNOTATION, REASON_ANNOTATION, enforcerOn } from './conditions';
export { simulate, probe, prepareChain, simulatePrepared, probePrepared, requestCel, type PreparedChain } from './simulate';
export { leanSet, leanVerdicts, PARAM_ERROR, type LeanSet } from './lean';
export { leanChain, type LeanChain, type LeanRegistry } from './lean-chain';
export { fallback as countLeanFallback, leanFallbacks, type LeanVerdict } from './lean-verdict';
export { lockoutReport } from './lockout';
export { unknownReach, type Unknown, type UnknownReach } from './unknown-reach';
export { webhookCalled } from './webhooks';
export { convertsExactly, warnersOf } from './context';
export { mutationBreaks, type MutationBreak } from './mutation-check';
export { notRunReason, simulateDraft, withClusterObjects, type DraftOptions, type DraftRun } from './simulate-draft';
export { CRITICAL_REQUESTS, criticalRequests } from './critical-requests';
export { discoveryFor, type Discovery, type ResourceInfo } from './discovery';
export { typeCheckPolicy, typeCheckPolicyResult, typeCheckMappings, crdSchemas, typesToCheck, type CheckedKind, type TypeCheckOptions } from './typecheck';
export {
  kindFieldsAt,
  objectFieldsAt,
  schemaFieldsAt,
  schemaRoots,
  schemaTypeName,
  typedRootKinds,
  ELEMENT,
  LIST_ELEMENT,
  type SchemaFieldsAt,
  type SchemaField,
  type SchemaRoot,
  type TypedRoot,
} from './schema-fields';
