/**
 * Differential test of the AuthorizationConditionsEnforcer (Kubernetes 1.38, alpha gate
 * ConditionalAuthorization) against a real kube-apiserver v1.38.0-beta.0: TestConditionalAuthorization
 * (conditional_test.go, the admission-oracle-1.38 binary) starts it with the gate on, a structured
 * authorization configuration whose only authorizer is a webhook served by the test, and a real
 * audit log.
 *
 * Real: the apiserver's authorization filter, the enforcer, the webhook authorizer's
 * SubjectAccessReview and AuthorizationConditionsReview round trips, the status the client gets
 * and the audit annotations the log holds. Chosen by the test (the Workbench's assumed answer,
 * played by the authorizer): a ConditionsMap with a Deny and an Allow condition, evaluated to
 * Allow, Deny, Deny with an evaluationError, or NoOpinion (no condition holds; simulated as a deny)
 * — or an unconditional allow ("none"). simulate() takes the matching decision as
 * `conditionalAuthorization` and must give the same status
 * code, reason and message, and the same authorization.k8s.io/ audit annotations;
 * conditionalAuthorizationOf (the impact replay) must read the assumed decision back from the
 * real annotations. Requests: CREATE, UPDATE, a merge PATCH, DELETE (dry runs), a pods/exec
 * CONNECT (a POST, as kubectl exec sends it), and a CREATE a ValidatingAdmissionPolicy refuses first.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../src/admission';
import type { ConditionalAuthorization } from '../../src/admission';
import { useEngine } from '../../src/cel/test-helpers';
import { conditionalAuthorizationOf } from '../../src/impact/audit';
import type { SimRequest } from '../../src/admission/types';
import { buildOracleAsync, ORACLE_BUILDS, oracleCacheDir, runOracle, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';

useEngine();

const NS = 'conditional';
const configMap = (data: Record<string, string>, name = 'settings') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data });
const existing = configMap({ mode: 'old' });
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: NS },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
};
/** Created as the admin before the requests (the ServiceAccount: the ServiceAccount admission plugin wants it for the Pod). */
const SETUP = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } },
  existing,
  pod,
];

type Verb = 'create' | 'update' | 'patch' | 'delete' | 'connect';
type Decision = ConditionalAuthorization['decision'];

interface Case {
  verb: Verb;
  decision: Decision;
  reason: string;
  /** The reason simulate() assumes, where the apiserver's differs from the authorizer's (absent: `reason`). */
  simulatedReason?: string;
}

interface CondScenario {
  name: string;
  objects: unknown[];
  verb: Verb;
  resource: { group: string; version: string; resource: string };
  subresource: string;
  namespace: string;
  objectName: string;
  body?: unknown;
  query: string;
  user: string;
  waitDenied?: string;
  /** The authorizer's answer (conditional_test.go plays it); `decision` is what simulate() assumes for it. */
  answer: 'none' | 'Allow' | 'Deny' | 'Error' | 'NoOpinion';
  decision: Decision;
  reason: string;
  /** The reason simulate() assumes, where the apiserver's differs from the authorizer's (absent: `reason`). */
  simulatedReason?: string;
}

interface CondResult {
  name: string;
  allowed: boolean;
  code?: number;
  reason?: string;
  message?: string;
  annotations: Record<string, string>;
  evaluated: string;
  error?: string;
}

const REASONS: Record<Decision, string> = {
  none: '',
  allow: 'the oracle conditions allow',
  deny: 'the oracle conditions deny',
  error: 'the oracle conditions could not be evaluated',
};
const CASES: Case[] = [
  ...(['none', 'allow', 'deny', 'error'] as const).map((decision) => ({ verb: 'create' as const, decision, reason: REASONS[decision] })),
  ...(['update', 'patch', 'delete', 'connect'] as const).flatMap((verb) =>
    (['allow', 'deny'] as const).map((decision) => ({ verb, decision, reason: REASONS[decision] })),
  ),
];

const ANSWERS = { none: 'none', allow: 'Allow', deny: 'Deny', error: 'Error' } as const;
const PATCH = { data: { mode: 'patched' } };
const EXEC = { apiVersion: 'v1', kind: 'PodExecOptions', command: ['sh'], stdout: true };

function scenario(c: Case, i: number): CondScenario {
  const cm = { group: '', version: 'v1', resource: c.verb === 'connect' ? 'pods' : 'configmaps' };
  const body =
    c.verb === 'create' ? configMap({ mode: 'new' }, 'created') : c.verb === 'update' ? configMap({ mode: 'new' }) : c.verb === 'patch' ? PATCH : undefined;
  return {
    name: `${c.verb} with the conditions' decision ${c.decision}`,
    objects: i === 0 ? SETUP : [],
    verb: c.verb,
    resource: cm,
    subresource: c.verb === 'connect' ? 'exec' : '',
    namespace: NS,
    objectName: c.verb === 'connect' ? 'web-0' : c.verb === 'create' ? 'created' : 'settings',
    ...(body ? { body } : {}),
    query: c.verb === 'connect' ? 'command=sh&stdout=true' : '',
    user: `${c.verb}-${c.decision}@example.com`,
    answer: ANSWERS[c.decision],
    decision: c.decision,
    reason: c.reason,
  };
}
/**
 * A ValidatingAdmissionPolicy that refuses the request before the enforcer is reached: the
 * authorization filter had already marked the request conditional (last: the policy stays).
 */
const VAP_MESSAGE = 'the name vap-denied is refused';
const VAP = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'refuse-vap-denied' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: "object.metadata.name != 'vap-denied'", message: VAP_MESSAGE }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'refuse-vap-denied' },
    spec: { policyName: 'refuse-vap-denied', validationActions: ['Deny'] },
  },
];
const SCENARIOS: CondScenario[] = [
  ...CASES.map(scenario),
  // no condition holds: the authorizer has no opinion and none follows it, so the request is
  // forbidden with the union's reason, "<authorizer name>: <reason>" (pkg/authorization/union)
  {
    ...scenario({ verb: 'create', decision: 'deny', reason: 'no condition holds' }, 1),
    name: 'create where none of the conditions holds (NoOpinion), simulated as a deny',
    user: 'create-noopinion@example.com',
    answer: 'NoOpinion',
    simulatedReason: 'oracle-conditional: no condition holds',
  },
  ...(['deny', 'allow'] as const).map((decision) => ({
    ...scenario({ verb: 'create', decision, reason: REASONS[decision] }, 1),
    name: `create refused by a ValidatingAdmissionPolicy before the conditions (${decision}) are evaluated`,
    objects: VAP,
    body: configMap({}, 'vap-denied'),
    objectName: 'vap-denied',
    user: `vap-${decision}@example.com`,
    waitDenied: VAP_MESSAGE,
  })),
];
/** The workspace simulate() gets: the scenario's admission objects. */
const workspace = (s: CondScenario) => s.objects.filter((o) => /Policy/.test((o as { kind: string }).kind));

/** The admission request the apiserver builds for a scenario (what simulate() is given). */
function admissionRequest(s: CondScenario): SimRequest {
  const base = {
    resource: s.resource,
    name: s.objectName,
    namespace: s.namespace,
    userInfo: { username: s.user, groups: ['system:authenticated'] },
    dryRun: s.verb !== 'connect',
  };
  const cm = { group: '', version: 'v1', kind: 'ConfigMap' };
  const meta = (kind: string) => ({ apiVersion: 'meta.k8s.io/v1', kind, dryRun: ['All'] });
  switch (s.verb) {
    case 'create':
      return { ...base, operation: 'CREATE', kind: cm, object: s.body, options: meta('CreateOptions') };
    case 'update':
      return { ...base, operation: 'UPDATE', kind: cm, object: s.body, oldObject: existing, options: meta('UpdateOptions') };
    case 'patch':
      return { ...base, operation: 'UPDATE', kind: cm, object: configMap({ mode: 'patched' }), oldObject: existing, options: meta('PatchOptions') };
    case 'delete':
      return { ...base, operation: 'DELETE', kind: cm, oldObject: existing, options: meta('DeleteOptions') };
    case 'connect':
      return { ...base, operation: 'CONNECT', subResource: 'exec', kind: { group: '', version: 'v1', kind: 'PodExecOptions' }, object: EXEC };
  }
}

async function oracleResults(): Promise<CondResult[]> {
  const bin = await buildOracleAsync(ORACLE_BUILDS['admission-oracle-1.38']);
  const cached = join(
    oracleCacheDir,
    `conditional-answers-${createHash('sha256').update(bin.path).update(JSON.stringify(SCENARIOS)).digest('hex').slice(0, 16)}.json`,
  );
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as CondResult[];
  const dir = mkdtempSync(join(tmpdir(), 'conditional-oracle-'));
  try {
    const [input, output] = [join(dir, 'scenarios.json'), join(dir, 'results.json')];
    writeFileSync(input, JSON.stringify(SCENARIOS));
    const t0 = Date.now();
    await runOracle(bin.path, '', ['-test.run', '^TestConditionalAuthorization$', '-test.timeout', '20m'], { COND_IN: input, COND_OUT: output });
    const results = JSON.parse(readFileSync(output, 'utf8')) as CondResult[];
    console.info(`conditional authorization oracle 1.38: ${results.length} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (results.every((r) => !r.error)) writeFileSync(cached, JSON.stringify(results));
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.env.ORACLE_RELEASES?.split(',');

describe.skipIf(only && !only.includes('1.38'))('the AuthorizationConditionsEnforcer agrees with a real kube-apiserver 1.38', () => {
  let results: CondResult[];
  beforeAll(async () => {
    results = await oracleResults();
  }, ORACLE_TEST_TIMEOUT);

  it.each(SCENARIOS.map((s, i) => [s.name, i] as const))('%s', async (_name, i) => {
    const s = SCENARIOS[i]!;
    const real = results[i]!;
    expect(real.error, 'the oracle could not run it').toBeUndefined();
    const reason = s.simulatedReason ?? s.reason;
    const assumed: ConditionalAuthorization = { decision: s.decision, ...(reason ? { reason } : {}) };
    const sim = await simulate(workspace(s), admissionRequest(s), {
      kubernetesVersion: '1.38',
      featureGates: ['ConditionalAuthorization'],
      conditionalAuthorization: assumed,
    });
    // the Workbench's annotations are admission's; an unconditional allow's were written by the authorization filter
    const conditional = s.decision !== 'none';
    expect(sim.auditAnnotations).toEqual(conditional ? real.annotations : {});
    if (!conditional) expect(real.annotations).toEqual({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    // the impact replay reads the decision back from the real log (an error's text is not in the annotations)
    expect(conditionalAuthorizationOf(real.annotations)).toEqual(
      !conditional
        ? undefined
        : s.waitDenied
          ? { decision: 'allow', reason: '' } // stopped before the enforcer: the log cannot say, the replay assumes the conditions allow
          : s.decision === 'error'
            ? { decision: 'error' }
            : { decision: s.decision, reason },
    );
    // the authorizer was asked to evaluate its conditions on the objects simulate() was given (when the chain reached the enforcer)
    const kindOf = (o: unknown) => (o ? `${(o as { apiVersion: string }).apiVersion}/${(o as { kind: string }).kind}` : '-');
    const request = admissionRequest(s);
    const reached = conditional && sim.steps.some((st) => st.kind === 'AuthorizationConditionsEnforcer');
    expect(real.evaluated).toBe(reached ? `${request.operation} object=${kindOf(request.object)} oldObject=${kindOf(request.oldObject)}` : '');
    if (s.verb === 'connect' && real.code !== 403 && real.code !== 500) {
      // admitted: the apiserver then fails to reach a kubelet (the Pod has no node), after admission
      expect(sim.allowed).toBe(true);
      expect(real.message).not.toMatch(/forbidden|Internal error/);
      return;
    }
    expect({ allowed: sim.allowed, code: sim.deniedBy?.code, reason: sim.deniedBy?.reason, message: sim.deniedBy?.message }).toEqual({
      allowed: real.allowed,
      code: real.code,
      reason: real.reason,
      message: real.message,
    });
  });
});
