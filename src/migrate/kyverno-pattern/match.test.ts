import { describe, expect, it } from 'vitest';
import { matchOf } from './match';

const rules = (kinds: string[]) => matchOf({ match: { any: [{ resources: { kinds } }] } }).matchConstraints.resourceRules;

describe("a Kyverno rule's kinds as resource rules", () => {
  it('reads `Kind.subresource` as Kyverno does (the last part split on the dot)', () => {
    expect(rules(['tekton.dev/v1beta1/TaskRun.status'])).toEqual([
      { apiGroups: ['tekton.dev'], apiVersions: ['v1beta1'], operations: ['CREATE', 'UPDATE'], resources: ['taskruns/status'] },
    ]);
    expect(rules(['Pod.status', 'Pod/exec', 'apps/v1/Deployment'])).toEqual([
      { apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['pods/status'] },
      { apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['pods/exec'] },
      { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
    ]);
  });
});
