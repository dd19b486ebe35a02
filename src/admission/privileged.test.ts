/**
 * The apiserver's authorizer allows every check by a member of system:masters before any other
 * authorizer answers (pkg/kubeapiserver/authorizer: the privileged group heads the union): so does
 * `authorizer` in CEL here, for the request's user, whatever the test's rules say; a check for
 * another principal (`authorizer.serviceAccount`) is answered by the rules.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { binding, policy } from './test-helpers';

useEngine();

const guard = (name: string, expression: string) => [
  policy('ValidatingAdmissionPolicy', name, {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
    validations: [{ expression, message: `${name} says no` }],
  }),
  binding('ValidatingAdmissionPolicyBinding', name, name),
];
const create = (groups: string[], username = 'jane') => ({
  operation: 'CREATE' as const,
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  name: 'c',
  namespace: 'apps',
  userInfo: { username, groups: [...groups, 'system:authenticated'] },
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'apps' } },
});
const canDelete = guard('can-delete', "authorizer.group('').resource('configmaps').namespace('apps').check('delete').allowed()");
const saCanGet = guard('sa-can-get', "authorizer.serviceAccount('kube-system', 'reader').group('').resource('configmaps').check('get').allowed()");

describe('the privileged group in CEL authorizer checks', () => {
  it("a member of system:masters is allowed every check of the request's user, over the rules", async () => {
    const deny = [{ verb: 'delete', decision: 'deny' as const }];
    expect((await simulate(canDelete, create(['system:masters']))).allowed).toBe(true);
    expect((await simulate(canDelete, create(['system:masters']), { authorizer: deny })).allowed).toBe(true);
    expect((await simulate(canDelete, create([]))).allowed).toBe(false);
    expect((await simulate(canDelete, create([]), { authorizer: [{ verb: 'delete', decision: 'allow' }] })).allowed).toBe(true);
  });

  it("another principal's check is the rules' to answer", async () => {
    expect((await simulate(saCanGet, create(['system:masters']))).allowed).toBe(false);
    expect(
      (await simulate(saCanGet, create(['system:masters']), { authorizer: [{ user: 'system:serviceaccount:kube-system:reader', decision: 'allow' }] })).allowed,
    ).toBe(true);
  });

  it('the group allows, not the user name: a member named with a trailing * is no prefix of other principals', async () => {
    for (const name of ['system:*', '*']) {
      expect((await simulate(saCanGet, create(['system:masters'], name))).allowed).toBe(false);
      expect((await simulate(canDelete, create(['system:masters'], name))).allowed).toBe(true);
    }
  });
});
