/**
 * Conditional authorization in audit logs (1.38+, gate ConditionalAuthorization; k8s.io/apiserver
 * v0.38 pkg/endpoints/filters/authorization.go and the AuthorizationConditionsEnforcer): the
 * annotations say whether the authorizer's decision was conditional and what its conditions gave;
 * a conditional forbid came from admission, so the request is replayed, not skipped.
 */
import { describe, expect, it } from 'vitest';
import { conditionalAuthorizationOf, readAuditLine } from './audit';

const C = 'authorization.k8s.io/is-conditional-decision';
const D = 'authorization.k8s.io/decision';
const R = 'authorization.k8s.io/reason';

const event = (annotations: Record<string, string>, code = 403) =>
  JSON.stringify({
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Event',
    level: 'RequestResponse',
    stage: 'ResponseComplete',
    auditID: 'a1',
    verb: 'create',
    requestURI: '/api/v1/namespaces/default/configmaps',
    user: { username: 'alice' },
    objectRef: { resource: 'configmaps', namespace: 'default', name: 'c', apiVersion: 'v1' },
    responseStatus: { code },
    requestObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } },
    requestReceivedTimestamp: '2026-12-01T10:00:00Z',
    annotations,
  });

describe('conditional authorization decisions from audit annotations', () => {
  it('reads the enforcer’s decision', () => {
    expect(conditionalAuthorizationOf({})).toBeUndefined();
    expect(conditionalAuthorizationOf({ [D]: 'allow', [R]: 'RBAC: allowed' })).toBeUndefined();
    expect(conditionalAuthorizationOf({ [C]: 'true', [D]: 'allow', [R]: 'ok' })).toEqual({ decision: 'allow', reason: 'ok' });
    expect(conditionalAuthorizationOf({ [C]: 'true', [D]: 'forbid', [R]: 'label mismatch' })).toEqual({ decision: 'deny', reason: 'label mismatch' });
    expect(conditionalAuthorizationOf({ [C]: 'true', [R]: 'internal error' })).toEqual({ decision: 'error' });
    // stopped before the enforcer: the log does not say, assumed allowed
    expect(conditionalAuthorizationOf({ [C]: 'true' })).toEqual({ decision: 'allow', reason: '' });
  });

  it('a forbid by authorization is skipped; a conditional one reached admission', () => {
    const plain = readAuditLine(event({ [D]: 'forbid', [R]: 'no RBAC' }), 1, true);
    expect(plain).toMatchObject({ kind: 'skip', reason: 'before-admission' });
    const conditional = readAuditLine(event({ [C]: 'true', [D]: 'forbid', [R]: 'label mismatch' }), 2, true);
    expect(conditional).toMatchObject({ kind: 'write' });
  });
});
