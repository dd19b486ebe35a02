/**
 * The gallery's shapes: an entry opens as documents (its YAML, comments and source included)
 * with saved policy cases attached to its policies. The case shape is the saved policy case of
 * src/policy/cases.ts (PolicyTestCase) written as plain data: src/k8s sits below src/policy.
 */

export interface GalleryRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  userInfo: { username: string; groups?: string[] };
}

export interface GalleryCase {
  name: string;
  request: GalleryRequest;
  object?: unknown;
  oldObject?: unknown;
  namespaceObject?: unknown;
  expect: {
    outcome: 'admit' | 'deny' | 'warn' | 'skip' | 'error';
    /** The policy's part of the message (after "denied request: "). */
    message?: string;
    /** A mutating policy: the object after mutation. */
    object?: unknown;
  };
}

export interface GalleryEntry {
  id: string;
  title: string;
  /** One or two sentences: what the policy does and what it shows. */
  summary: string;
  /** The page of the Kubernetes documentation the example is from. */
  source: string;
  /** Where the documents differ from the page's text, and why. */
  changes: readonly string[];
  /** Multi-document YAML: policy, binding(s), params. */
  yaml: string;
  /** Saved cases by policy name (metadata.name of a policy in `yaml`). */
  cases: Readonly<Record<string, readonly GalleryCase[]>>;
}
