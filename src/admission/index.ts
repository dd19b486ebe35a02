/**
 * The admission simulator (pure TypeScript, Node and browser):
 *   simulate(objects, request, options?) → Promise<SimResult>   (./simulate.ts)
 *   lockoutReport(objects, options?) → Promise<LockoutReport>   (./lockout.ts)
 *   probe(objects, request, options?): simulate without stopping at a rejection (lockout)
 *   prepareChain(objects, { kubernetesVersion }) once, then simulatePrepared/probePrepared per request (impact)
 *   leanSet([leanChain(prepared), …]) once, then leanVerdicts(set, request, options, cel): the verdict alone where it is "allowed, unchanged" (impact)
 *   mutationBreaks(objects, request, options?): validators rejecting only the mutated object (M06)
 *   simulateDraft(objects, draft, { kubernetesVersion?, staticDocuments?, trace? }): a simulator draft parsed, simulated and checked for M06
 *   typeCheckPolicy(policy, { kubernetesVersion, workspace }) → Promise<{ fieldRef, warning }[]>: status.typeChecking (./typecheck.ts)
 *   objectFieldsAt(policy, path, { kubernetesVersion, workspace }): the typed fields of object at a path, for completion and hover (./schema-fields.ts);
 *   typedRootKinds(doc, field, 'object' | 'params', …) + kindFieldsAt(kinds, path, …): the same for params and webhook matchConditions
 * See README.md.
 */
export * from './types';
export { simulate, probe, prepareChain, simulatePrepared, probePrepared, requestCel, type PreparedChain } from './simulate';
export { leanChain, leanSet, leanVerdicts, type LeanChain, type LeanRegistry, type LeanSet, type LeanVerdict } from './lean';
export { lockoutReport } from './lockout';
export { webhookCalled } from './webhooks';
export { mutationBreaks, type MutationBreak } from './mutation-check';
export { notRunReason, simulateDraft, type DraftOptions, type DraftRun } from './simulate-draft';
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
