/**
 * The one test-input model: an admission request (admission.k8s.io/v1 AdmissionRequest, the
 * fields admission reads) and what an expression, a policy run or a simulation reads besides
 * the workspace. The CEL editor, the matchConditions view, the policy run and the admission
 * simulator all take these; the UI keeps the draft form (`TestInputDraft`: YAML texts exactly
 * as typed) and converts it with `toTestInput`.
 */
import type { AuthorizerRule } from '../cel/types';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

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

/** An admission request as the apiserver builds it (object and oldObject included). */
export interface AdmissionRequest {
  operation: Operation;
  resource: GroupVersionResource;
  subResource?: string;
  kind: GroupVersionKind;
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
}

/** Where a draft did not convert: which text, and the position in it. */
export interface DraftError {
  field: 'object' | 'oldObject' | 'params' | 'namespaceObject';
  message: string;
  line: number;
  column: number;
}
