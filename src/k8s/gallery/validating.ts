/** ValidatingAdmissionPolicy examples of the Kubernetes documentation, with cases. */
import { deployment, deploymentRequest, namespace } from './fixtures';
import type { GalleryEntry } from './types';

const VAP_PAGE = 'https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/';

/** The matchConstraints every policy of the page uses: Deployments created or updated. */
const DEPLOYMENTS = `  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
`;

const testNs = namespace('default', { environment: 'test' });
const prodNs = namespace('default', { environment: 'prod' });

export const replicaLimit: GalleryEntry = {
  id: 'replica-limit',
  title: 'Limit Deployment replicas',
  summary:
    'The first example of the page: Deployments in namespaces labelled environment=test may have at most 5 replicas. The binding, not the policy, decides where it applies.',
  source: VAP_PAGE,
  changes: [],
  yaml: `# From ${VAP_PAGE}
# (examples validatingadmissionpolicy/basic-example-policy.yaml and basic-example-binding.yaml)
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo-policy.example.com
spec:
  failurePolicy: Fail
${DEPLOYMENTS}  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-test.example.com
spec:
  policyName: demo-policy.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`,
  cases: {
    'demo-policy.example.com': [
      {
        name: '5 replicas in a test namespace are admitted',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 5),
        namespaceObject: testNs,
        expect: { outcome: 'admit' },
      },
      {
        name: '6 replicas in a test namespace are denied',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 6),
        namespaceObject: testNs,
        expect: { outcome: 'deny', message: 'failed expression: object.spec.replicas <= 5' },
      },
      {
        name: 'outside test namespaces the binding does not apply',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 6),
        namespaceObject: prodNs,
        expect: { outcome: 'skip' },
      },
    ],
  },
};

export const replicaLimitParams: GalleryEntry = {
  id: 'replica-limit-params',
  title: 'Replica limit from a parameter resource',
  summary: 'One policy, two bindings: each binding picks its own ReplicaLimit object (3 replicas in test namespaces, 100 elsewhere) through paramRef.',
  source: VAP_PAGE,
  changes: [
    'replicalimit-param.yaml: its "namesapce" typo is written namespace.',
    'replicalimit-param-prod.yaml: namespace default added (the binding looks for it there).',
    'binding-with-param-prod.yaml: parameterNotFoundAction: Deny added (v1 requires it).',
  ],
  yaml: `# From ${VAP_PAGE} (section "Parameter resources";
# examples validatingadmissionpolicy/policy-with-param.yaml, binding-with-param.yaml,
# binding-with-param-prod.yaml, replicalimit-param.yaml, replicalimit-param-prod.yaml)
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicalimit-policy.example.com
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: rules.example.com/v1
    kind: ReplicaLimit
${DEPLOYMENTS}  validations:
  - expression: "object.spec.replicas <= params.maxReplicas"
    reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicalimit-binding-test.example.com
spec:
  policyName: replicalimit-policy.example.com
  validationActions: [Deny]
  paramRef:
    name: replica-limit-test.example.com
    namespace: default
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicalimit-binding-nontest
spec:
  policyName: replicalimit-policy.example.com
  validationActions: [Deny]
  paramRef:
    name: replica-limit-prod.example.com
    namespace: default
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchExpressions:
      - key: environment
        operator: NotIn
        values: [test]
---
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: replica-limit-test.example.com
  namespace: default
maxReplicas: 3
---
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: replica-limit-prod.example.com
  namespace: default
maxReplicas: 100
`,
  cases: {
    'replicalimit-policy.example.com': [
      {
        name: 'test: 3 replicas are admitted',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 3),
        namespaceObject: testNs,
        expect: { outcome: 'admit' },
      },
      {
        name: 'test: 4 replicas are denied',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 4),
        namespaceObject: testNs,
        expect: { outcome: 'deny', message: 'failed expression: object.spec.replicas <= params.maxReplicas' },
      },
      {
        name: 'prod: 50 replicas are admitted (limit 100)',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 50),
        namespaceObject: prodNs,
        expect: { outcome: 'admit' },
      },
      {
        name: 'prod: 101 replicas are denied',
        request: deploymentRequest('web', 'default'),
        object: deployment('web', 'default', 101),
        namespaceObject: prodNs,
        expect: { outcome: 'deny', message: 'failed expression: object.spec.replicas <= params.maxReplicas' },
      },
    ],
  },
};

const stagingNs = namespace('team-a', { environment: 'staging' });

export const imageMatchesEnvironment: GalleryEntry = {
  id: 'image-matches-namespace-environment',
  title: 'Images from the namespace’s environment (variables)',
  summary:
    'Variables compose the check: images from example.com must come from the registry of the namespace’s environment label (prod when unset), unless the Deployment is labelled exempt=true. The message names the environment.',
  source: VAP_PAGE,
  changes: [
    'apiVersion v1beta1 written as v1 (the same fields).',
    'The page shows no binding for this policy: image-matches-namespace-environment-binding (Deny, every namespace) is added.',
  ],
  yaml: `# From ${VAP_PAGE} (section "Variable composition";
# example access/image-matches-namespace-environment.policy.yaml). The binding is not on the page.
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: image-matches-namespace-environment.policy.example.com
spec:
  failurePolicy: Fail
${DEPLOYMENTS}  variables:
  - name: environment
    expression: "'environment' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['environment'] : 'prod'"
  - name: exempt
    expression: "'exempt' in object.metadata.labels && object.metadata.labels['exempt'] == 'true'"
  - name: containers
    expression: "object.spec.template.spec.containers"
  - name: containersToCheck
    expression: "variables.containers.filter(c, c.image.contains('example.com'))"
  validations:
  - expression: "variables.exempt || variables.containersToCheck.all(c, c.image.startsWith(variables.environment + '.'))"
    messageExpression: "'only ' + variables.environment + ' images are allowed in namespace ' + namespaceObject.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: image-matches-namespace-environment-binding
spec:
  policyName: image-matches-namespace-environment.policy.example.com
  validationActions: [Deny]
`,
  cases: {
    'image-matches-namespace-environment.policy.example.com': [
      {
        name: 'a staging image in a staging namespace is admitted',
        request: deploymentRequest('web', 'team-a'),
        object: deployment('web', 'team-a', 2, 'staging.example.com/web:1.0'),
        namespaceObject: stagingNs,
        expect: { outcome: 'admit' },
      },
      {
        name: 'a prod image in a staging namespace is denied',
        request: deploymentRequest('web', 'team-a'),
        object: deployment('web', 'team-a', 2, 'prod.example.com/web:1.0'),
        namespaceObject: stagingNs,
        expect: { outcome: 'deny', message: 'only staging images are allowed in namespace team-a' },
      },
      {
        name: 'exempt=true skips the check',
        request: deploymentRequest('web', 'team-a'),
        object: deployment('web', 'team-a', 2, 'prod.example.com/web:1.0', { app: 'web', exempt: 'true' }),
        namespaceObject: stagingNs,
        expect: { outcome: 'admit' },
      },
      {
        name: 'without an environment label the namespace counts as prod',
        request: deploymentRequest('web', 'team-b'),
        object: deployment('web', 'team-b', 2, 'staging.example.com/web:1.0'),
        namespaceObject: namespace('team-b'),
        expect: { outcome: 'deny', message: 'only prod images are allowed in namespace team-b' },
      },
      {
        name: 'images from other registries are not checked',
        request: deploymentRequest('web', 'team-a'),
        object: deployment('web', 'team-a', 2, 'registry.k8s.io/pause:3.10'),
        namespaceObject: stagingNs,
        expect: { outcome: 'admit' },
      },
    ],
  },
};
