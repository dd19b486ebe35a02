/** MutatingAdmissionPolicy examples of the Kubernetes documentation, with cases. */
import { pod, podRequest } from './fixtures';
import type { GalleryEntry } from './types';

const MAP_PAGE = 'https://kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy/';

const app = { name: 'myapp', image: 'example/myapp:v1.0.0' };
const initializer = { name: 'myapp-initializer', image: 'example/initializer:v1.0.0' };
const meshProxy = { name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', args: ['proxy', 'sidecar'], restartPolicy: 'Always' };

const GUARD_NOTE =
  'The matchCondition reads object.spec.initContainers unguarded: on a Pod without init containers it fails ("no such key") and, with failurePolicy Fail, the Pod is rejected. It is guarded with has() here.';

/** Both sidecar examples' spec before their mutations (the matchCondition guarded: GUARD_NOTE). */
const SIDECAR_SPEC = `  paramKind:
    kind: Sidecar
    apiVersion: mutations.example.com/v1
  matchConstraints:
    resourceRules:
    - apiGroups:   [""]
      apiVersions: ["v1"]
      operations:  ["CREATE"]
      resources:   ["pods"]
  matchConditions:
  - name: does-not-already-have-sidecar
    expression: "!has(object.spec.initContainers) || !object.spec.initContainers.exists(ic, ic.name == \\"mesh-proxy\\")"
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
`;

export const sidecarApplyConfiguration: GalleryEntry = {
  id: 'sidecar-apply-configuration',
  title: 'Add a sidecar (apply configuration)',
  summary:
    'Creating a Pod adds the mesh-proxy sidecar (an init container with restartPolicy Always), merged the server-side-apply way, unless the Pod already has it.',
  source: MAP_PAGE,
  changes: ['apiVersion v1alpha1 written as v1.', GUARD_NOTE],
  yaml: `# From ${MAP_PAGE}
# (examples mutatingadmissionpolicy/applyconfiguration-example.yaml and applyconfiguration-example-binding.yaml;
# the matchCondition is guarded with has(): see the gallery entry's notes)
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar-policy.example.com
spec:
${SIDECAR_SPEC}  mutations:
  - patchType: "ApplyConfiguration"
    applyConfiguration:
      expression: >
        Object{
          spec: Object.spec{
            initContainers: [
              Object.spec.initContainers{
                name: "mesh-proxy",
                image: "mesh/proxy:v1.0.0",
                args: ["proxy", "sidecar"],
                restartPolicy: "Always"
              }
            ]
          }
        }
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar-policy.example.com
spec:
  matchResources:
    namespaceSelector: {}
  policyName: sidecar-policy.example.com
`,
  cases: {
    'sidecar-policy.example.com': [
      {
        name: 'the page’s Pod gets mesh-proxy beside its initializer',
        request: podRequest('myapp', 'default'),
        object: pod('myapp', 'default', { containers: [app], initContainers: [initializer] }),
        expect: { outcome: 'admit', object: pod('myapp', 'default', { containers: [app], initContainers: [initializer, meshProxy] }) },
      },
      {
        name: 'a Pod without init containers gets mesh-proxy',
        request: podRequest('plain', 'default'),
        object: pod('plain', 'default', { containers: [app] }),
        expect: { outcome: 'admit', object: pod('plain', 'default', { containers: [app], initContainers: [meshProxy] }) },
      },
      {
        name: 'a Pod that has mesh-proxy is left alone',
        request: podRequest('meshed', 'default'),
        object: pod('meshed', 'default', { containers: [app], initContainers: [meshProxy] }),
        expect: { outcome: 'skip' },
      },
    ],
  },
};

export const sidecarJsonPatch: GalleryEntry = {
  id: 'sidecar-json-patch',
  title: 'Add a sidecar (JSON Patch)',
  summary:
    'The same sidecar as a JSON Patch that appends to /spec/initContainers. Unlike the apply configuration, appending needs the list to exist: a Pod without init containers fails the patch.',
  source: MAP_PAGE,
  changes: [
    'apiVersion v1beta1 written as v1.',
    'Named sidecar-policy-jsonpatch.example.com (the page reuses sidecar-policy.example.com), with a binding like the apply-configuration example’s.',
    GUARD_NOTE,
  ],
  yaml: `# From ${MAP_PAGE} (section "JSONPatch"; example mutatingadmissionpolicy/json-patch-example.yaml;
# renamed, the matchCondition guarded with has(), and a binding added: see the gallery entry's notes)
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar-policy-jsonpatch.example.com
spec:
${SIDECAR_SPEC}  mutations:
  - patchType: "JSONPatch"
    jsonPatch:
      expression: >
        [
          JSONPatch{
            op: "add", path: "/spec/initContainers/-",
            value: Object.spec.initContainers{
              name: "mesh-proxy",
              image: "mesh-proxy/v1.0.0",
              restartPolicy: "Always"
            }
          }
        ]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar-policy-jsonpatch.example.com
spec:
  matchResources:
    namespaceSelector: {}
  policyName: sidecar-policy-jsonpatch.example.com
`,
  cases: {
    'sidecar-policy-jsonpatch.example.com': [
      {
        name: 'mesh-proxy is appended after the initializer',
        request: podRequest('myapp', 'default'),
        object: pod('myapp', 'default', { containers: [app], initContainers: [initializer] }),
        expect: {
          outcome: 'admit',
          object: pod('myapp', 'default', {
            containers: [app],
            initContainers: [initializer, { name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always' }],
          }),
        },
      },
      {
        name: 'a Pod without init containers fails the patch (nothing to append to)',
        request: podRequest('plain', 'default'),
        object: pod('plain', 'default', { containers: [app] }),
        expect: { outcome: 'error' },
      },
    ],
  },
};
