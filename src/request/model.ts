/**
 * The one admission request model, this codebase's `admission.Attributes`: an admission request
 * (admission.k8s.io/v1 AdmissionRequest, the fields admission reads) and what surrounds it
 * (`TestInput`: params, the namespace object, authorizer answers). Matching, policy runs and
 * their saved cases, the webhooks and policies of the simulator, its scenarios, the CEL editor,
 * the CLI's cases and the coming traffic replay all read these; the UI keeps the draft form
 * (`TestInputDraft`: YAML texts exactly as typed) and converts it with `toTestInput`.
 * Plain data only (no classes, no closures): cheap to build by the thousand.
 */
import type { AuthorizerRule } from '../cel/types';
import type { KubernetesVersion } from '../base/releases';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The operations of a request (never '*': that is a rule's wildcard, k8s/registry RULE_OPERATIONS). */
export const REQUEST_OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * An admission request as the apiserver builds it (object and oldObject included). `requestKind`,
 * `requestResource` and `requestSubResource` are the resource as the client asked for it; absent,
 * they equal kind / resource / subResource (`requestAttributes` fills them, and a uid, once).
 */
export interface AdmissionRequest {
  uid?: string;
  operation: Operation;
  resource: GroupVersionResource;
  subResource?: string;
  kind: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestKind?: GroupVersionKind;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  object?: unknown;
  oldObject?: unknown;
  userInfo?: UserInfo;
  dryRun?: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions / PodExecOptions … as JSON. */
  options?: unknown;
}

/**
 * A request and the rest of what admission reads for it. Params and the namespace given here
 * take precedence over the workspace's (a param object, a Namespace document).
 */
export interface TestInput {
  request: AdmissionRequest;
  /** The params object (`params` in CEL); absent: resolved from the workspace by paramRef. */
  params?: unknown;
  /** The request's Namespace (namespaceSelector and `namespaceObject` in CEL). */
  namespaceObject?: unknown;
  /** Authorizer answers for `authorizer` / `authorizer.requestResource` in CEL. */
  authorizer?: AuthorizerRule[];
  /** The release whose apiserver decodes the objects for admission (src/request/admitted.ts); absent: the default release. */
  kubernetesVersion?: KubernetesVersion;
}

/** The request form as the user edits it: plain strings, '' for absent. */
export interface RequestDraft {
  operation: Operation;
  group: string;
  version: string;
  resource: string;
  subResource: string;
  kind: string;
  name: string;
  namespace: string;
  username: string;
  uid: string;
  groups: string[];
  /** userInfo.extra as the request carried it (a replayed request's user); absent: none. */
  extra?: Record<string, string[]>;
  dryRun: boolean;
}

/** A test input as the user typed it: YAML texts are kept verbatim ('' = absent), never lost. */
export interface TestInputDraft {
  request: RequestDraft;
  object: string;
  oldObject: string;
  params: string;
  namespaceObject: string;
  authorizer: AuthorizerRule[];
  /** The request's `options` (CreateOptions, UpdateOptions …) as YAML; absent or '': none. */
  options?: string;
}

/** Where a draft did not convert: which text, and the position in it. */
export interface DraftError {
  field: 'object' | 'oldObject' | 'params' | 'namespaceObject' | 'options';
  message: string;
  line: number;
  column: number;
}

/**
 * What a saved policy case expects. Outcomes: `admit`, `deny`, `warn` (admitted with warnings),
 * `skip` (the policy did not apply) are the run's outcome; `error` passes when the run met an
 * evaluation or configuration error, whatever the failurePolicy then did with it.
 */
export type CaseOutcome = 'admit' | 'deny' | 'warn' | 'skip' | 'error';
export const CASE_OUTCOMES: readonly CaseOutcome[] = ['admit', 'deny', 'warn', 'skip', 'error'];

export interface PolicyCaseExpectation {
  outcome: CaseOutcome;
  /** deny: the apiserver's message, or just the policy's part after "denied request: "; warn: one of the warnings (or its part after the binding). */
  message?: string;
  /** Mutating policies: the object after mutation. */
  object?: unknown;
  /**
   * With `admit`: a run where the policy did not apply (`skip`) passes too. Both admit the
   * request unchanged and without a warning, the only decision an apiserver shows; a deny, a
   * warning or an error still fails. A Kyverno test's `skip` of a pattern rule imports so
   * (src/migrate/kyverno/kyverno-test.ts).
   */
  orSkip?: boolean;
}

/** The expected outcome as a run's failure and the case list name it: `admit or skip` where a skip passes too. */
export const expectedOutcome = (e: PolicyCaseExpectation): string => (e.outcome === 'admit' && e.orSkip ? 'admit or skip' : e.outcome);

/**
 * A saved policy test case: a test input (params typed in replace the paramRef lookup) and
 * the expectation. Stored as plain data; `readPolicyCase` (saved.ts) also reads the shape
 * before the one model (`{request, object, oldObject, params, namespaceObject, authorizer: {rules}}`).
 */
export interface PolicyTestCase {
  name: string;
  input: TestInput;
  expect: PolicyCaseExpectation;
}
