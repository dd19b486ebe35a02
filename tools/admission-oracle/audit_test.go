package oracle

// TestAuditLog writes a genuine audit log: the in-process kube-apiserver started with
// --audit-log-path and --audit-policy-file (testdata/audit/policy.yaml: RequestResponse for
// writes, Metadata for the rest, nothing for the apiserver's own requests), a baseline chain
// installed (a ValidatingAdmissionPolicy + binding, a validating webhook served by the local
// TLS server) and the candidate of testdata/audit/candidate.json (acting only on the replayer's
// dry-run copies: candidate_test.go), then the traffic below sent by several users (static
// tokens; carol by impersonation), each write preceded by its copies. It writes audit.log (the
// file as the apiserver wrote it, the replayer's events taken out), snapshot.json (the objects
// afterwards, as `kubectl get -o json` lists them), snapshot-before.json (before the traffic) and
// candidate-decisions.json (the answers to the copies) to AUDIT_OUT; with AUDIT_CHECK=dir it
// compares the log and the decisions with the fixture in dir instead (oracle.test.ts does, in npm test):
//
//	cd tools/admission-oracle && AUDIT_OUT=testdata/audit go test -modfile=go.1.37.mod -run '^TestAuditLog$' -count=1 .
//
// The fixture in testdata/audit is the differential test of the traffic replay
// (src/impact/real-log.test.ts).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// The users: token, name, uid, groups (the --token-auth-file's columns).
var auditUsers = [][4]string{
	{"alice-token", "alice", "1001", "shop-devs"},
	{"bob-token", "bob", "1002", "shop-devs"},
	{"admin-token", "admin", "1000", "system:masters"},
	{"replayer-token", replayer, "999", "system:masters"},
}

// The clients' user agent (the default names the test binary, which changes with every build;
// it is also the field manager in managedFields).
const trafficAgent = "audit-traffic/v1.36.0"

// carol: the admin impersonates her.
const impersonated = "carol"

type trafficStep struct {
	user      string
	verb      string // create | update | patch | delete | get | list
	resource  string // a key of trafficResources
	namespace string
	name      string
	body      string // the object (create, update) or the patch
	patch     types.PatchType
	dryRun    bool
	denied    bool // the expected outcome (the test fails when the apiserver answers otherwise)
	// after the step, wait until admission sees its outcome: a param ("namespace/name") the candidate
	// reads, or the baseline policy the step changed (the marker its probe denial carries)
	waitParam, waitPolicy string
}

var trafficResources = map[string]schema.GroupVersionResource{
	"namespaces":                        {Version: "v1", Resource: "namespaces"},
	"configmaps":                        {Version: "v1", Resource: "configmaps"},
	"deployments":                       {Group: "apps", Version: "v1", Resource: "deployments"},
	"validatingadmissionpolicies":       {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	"validatingadmissionpolicybindings": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
}

// appDeployment: a Deployment in the namespace apps (the traffic's second part).
func appDeployment(name, image string, replicas int, labels, annotations map[string]string) string {
	meta := map[string]any{"name": name, "namespace": "apps", "labels": map[string]any{"app": name}}
	for k, v := range labels {
		meta["labels"].(map[string]any)[k] = v
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": image}}}}}})
	return string(b)
}

// teamLabel: the baseline policy the admin creates in the traffic (v1: Deployments in apps carry a
// team label) and patches (v2: or an owner label). It also matches Leases, so that a probe Lease
// tells which version admission holds (waitPolicySeen).
func teamLabel() string {
	b, _ := json.Marshal(map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "team-label"},
		"spec": map[string]any{"failurePolicy": "Fail",
			"matchConstraints": map[string]any{"resourceRules": []any{
				map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"deployments"}},
				map[string]any{"apiGroups": []any{"coordination.k8s.io"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"leases"}}}},
			"matchConditions": []any{map[string]any{"name": "not-a-replace-copy", "expression": baselineGuard},
				map[string]any{"name": "only-its-probe-lease", "expression": "request.resource.resource != 'leases' || object.metadata.name == 'policy-probe'"}},
			"validations": []any{map[string]any{"expression": "has(object.metadata.labels) && 'team' in object.metadata.labels", "message": "a team label (v1)"}}}})
	return string(b)
}

const teamLabelBinding = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"team-label"},
"spec":{"policyName":"team-label","validationActions":["Deny"],"matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"apps"}}}}}`

const teamOrOwner = `{"spec":{"validations":[{"expression":"has(object.metadata.labels) && ('team' in object.metadata.labels || 'owner' in object.metadata.labels)","message":"a team or owner label (v2)"}]}}`

const deployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},
"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]},{"name":"log","image":"busybox:1.37","args":["tail","-f","/dev/null"]}]}}}}`

// The traffic, in order. The baseline chain denies a ConfigMap with more than three data keys
// in a namespace labelled env=prod (the policy) and one labelled frozen=true (the webhook).
var traffic = []trafficStep{
	{user: "alice", verb: "create", resource: "namespaces", name: "shop", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"env":"prod"}}}`},
	{user: "alice", verb: "patch", resource: "namespaces", name: "shop", patch: types.MergePatchType, body: `{"metadata":{"labels":{"team":"web"}}}`},
	{user: "alice", verb: "create", resource: "configmaps", namespace: "shop", name: "settings", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop","labels":{"app":"web"}},"data":{"mode":"fast"}}`},
	{user: "alice", verb: "get", resource: "configmaps", namespace: "shop", name: "settings"},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "frozen", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen","namespace":"shop","labels":{"frozen":"true"}},"data":{"a":"1"}}`, denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "big", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"shop"},"data":{"a":"1","b":"2","c":"3","d":"4"}}`, denied: true},
	{user: "alice", verb: "update", resource: "configmaps", namespace: "shop", name: "settings", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop","labels":{"app":"web"}},"data":{"mode":"slow","size":"m"}}`},
	{user: "alice", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.JSONPatchType, body: `[{"op":"add","path":"/data/owner","value":"alice"}]`},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.MergePatchType, body: `{"data":{"size":"l"}}`},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.JSONPatchType, body: `[{"op":"add","path":"/data/extra","value":"1"}]`, denied: true},
	{user: "alice", verb: "create", resource: "deployments", namespace: "shop", name: "web", body: deployment},
	{user: "bob", verb: "patch", resource: "deployments", namespace: "shop", name: "web", patch: types.StrategicMergePatchType, body: `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}`},
	{user: impersonated, verb: "create", resource: "configmaps", namespace: "shop", name: "notes", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"notes","namespace":"shop"},"data":{"a":"1"}}`},
	{user: impersonated, verb: "patch", resource: "configmaps", namespace: "shop", name: "notes", patch: types.StrategicMergePatchType, body: `{"metadata":{"labels":{"frozen":"true"}}}`, denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "trial", dryRun: true, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"trial","namespace":"shop"},"data":{"a":"1"}}`},
	{user: "bob", verb: "delete", resource: "configmaps", namespace: "shop", name: "notes", dryRun: true},
	{user: "alice", verb: "list", resource: "configmaps", namespace: "shop"},
	{user: "alice", verb: "delete", resource: "configmaps", namespace: "shop", name: "settings"},
	{user: "alice", verb: "create", resource: "namespaces", name: "scratch", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"scratch","labels":{"env":"dev"}}}`},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "scratch", name: "big", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"scratch"},"data":{"a":"1","b":"2","c":"3","d":"4"}}`},
	{user: "bob", verb: "patch", resource: "namespaces", name: "scratch", patch: types.StrategicMergePatchType, body: `{"metadata":{"labels":{"env":"prod"}}}`},
	{user: "bob", verb: "update", resource: "configmaps", namespace: "scratch", name: "big", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"scratch"},"data":{"a":"1","b":"2","c":"3","d":"5"}}`, denied: true},
	{user: "bob", verb: "delete", resource: "configmaps", namespace: "scratch", name: "big"},
	{user: "alice", verb: "delete", resource: "namespaces", name: "scratch"},
	// ConfigMaps the setup made (not in the log) and the traffic deletes (not in the snapshot): their old object is unknown to a replay
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "default", name: "legacy", patch: types.MergePatchType, body: `{"metadata":{"labels":{"app":null}},"data":{"b":"2"}}`},
	{user: "alice", verb: "delete", resource: "configmaps", namespace: "default", name: "old-settings"},
	{user: "alice", verb: "delete", resource: "configmaps", namespace: "default", name: "legacy"},
	// The chains change during the traffic: the candidate's params (a per-namespace limit in apps, the
	// registry allowlist in policy-params) are patched, a baseline policy is created and patched, the
	// Namespace apps relabelled; a replay must decide each request with them as they were then.
	{user: "admin", verb: "create", resource: "namespaces", name: "apps", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"apps"}}`},
	{user: "admin", verb: "create", resource: "configmaps", namespace: "apps", name: "limits", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"limits","namespace":"apps"},"data":{"maxReplicas":"2"}}`, waitParam: "apps/limits"},
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "api", body: appDeployment("api", "ghcr.io/shop/api:1", 1, nil, nil)},
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "worker", body: appDeployment("worker", "ghcr.io/shop/worker:1", 3, nil, nil)},
	{user: "admin", verb: "patch", resource: "configmaps", namespace: "apps", name: "limits", patch: types.MergePatchType, body: `{"data":{"maxReplicas":"5"}}`, waitParam: "apps/limits"},
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "queue", body: appDeployment("queue", "ghcr.io/shop/queue:1", 3, nil, nil)},
	{user: "admin", verb: "patch", resource: "configmaps", namespace: "policy-params", name: "registry-allowlist", patch: types.MergePatchType, body: `{"data":{"registries":"docker.io"}}`, waitParam: "policy-params/registry-allowlist"},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "cache", body: appDeployment("cache", "ghcr.io/shop/cache:1", 1, nil, nil)},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "proxy", body: appDeployment("proxy", "docker.io/library/nginx:1.27", 1, nil, nil)},
	{user: "admin", verb: "create", resource: "validatingadmissionpolicies", name: "team-label", body: teamLabel()},
	{user: "admin", verb: "create", resource: "validatingadmissionpolicybindings", name: "team-label", body: teamLabelBinding, waitPolicy: "(v1)"},
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "batch", body: appDeployment("batch", "docker.io/shop/batch:1", 1, map[string]string{"owner": "alice"}, nil), denied: true},
	{user: "admin", verb: "patch", resource: "validatingadmissionpolicies", name: "team-label", patch: types.MergePatchType, body: teamOrOwner, waitPolicy: "(v2)"},
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "batch", body: appDeployment("batch", "docker.io/shop/batch:1", 1, map[string]string{"owner": "alice"}, nil)},
	{user: "admin", verb: "patch", resource: "namespaces", name: "apps", patch: types.MergePatchType, body: `{"metadata":{"labels":{"registry-policy":"off"}}}`},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "search", body: appDeployment("search", "ghcr.io/shop/search:1", 1, map[string]string{"team": "a"}, nil)},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "ledger", body: appDeployment("ledger", "docker.io/shop/ledger:1", 1, map[string]string{"team": "a", "strict": "yes"}, nil)},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "vault", body: appDeployment("vault", "docker.io/shop/vault:1", 1, map[string]string{"team": "a", "strict": "yes"}, map[string]string{"tier": "gold"})},
	{user: "alice", verb: "patch", resource: "deployments", namespace: "apps", name: "queue", patch: types.StrategicMergePatchType, body: `{"metadata":{"labels":{"team":"a"}},"spec":{"replicas":4}}`},
}

// Objects the setup makes before the traffic, by the apiserver's own client (so not in the log):
// the candidate's params Namespace, and two ConfigMaps in default that the traffic changes and deletes.
var auditSetup = []map[string]any{
	{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "policy-params"}},
	{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "legacy", "namespace": "default", "labels": map[string]any{"app": "web"}}, "data": map[string]any{"a": "1"}},
	{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "old-settings", "namespace": "default", "labels": map[string]any{"app": "web"}}, "data": map[string]any{"a": "1"}},
}

// The baseline chain (created by the apiserver's own client, so not in the log; in the snapshot).
// Its matchCondition skips the candidate's "replace" copies (candidate_test.go).
func auditBaseline(h *hooks) []map[string]any {
	notReplaceCopy := map[string]any{"name": "not-a-replace-copy", "expression": baselineGuard}
	cm := []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"}}}
	u, _ := h.urlFor("frozen-guard", "frozen.shop.example.com", response{kind: "deny"})
	return []map[string]any{
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "max-three-keys"},
			"spec": map[string]any{"failurePolicy": "Fail", "matchConstraints": map[string]any{"resourceRules": cm}, "matchConditions": []any{notReplaceCopy},
				"validations": []any{map[string]any{"expression": "!has(object.data) || size(object.data) <= 3", "message": "at most three data keys"}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "max-three-keys-prod"},
			"spec": map[string]any{"policyName": "max-three-keys", "validationActions": []any{"Deny", "Audit"},
				"matchResources": map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"env": "prod"}}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": map[string]any{"name": "frozen-guard"},
			"webhooks": []any{map[string]any{
				"name": "frozen.shop.example.com", "rules": cm, "matchConditions": []any{notReplaceCopy}, "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": []any{"v1"}, "timeoutSeconds": int64(5),
				"objectSelector": map[string]any{"matchLabels": map[string]any{"frozen": "true"}},
				"clientConfig":   map[string]any{"url": u, "caBundle": base64.StdEncoding.EncodeToString(h.caPEM)},
			}}},
	}
}

func TestAuditLog(t *testing.T) {
	out, check := os.Getenv("AUDIT_OUT"), os.Getenv("AUDIT_CHECK")
	if out == "" && check == "" {
		t.Skip("AUDIT_OUT names the folder to write the fixture to; AUDIT_CHECK the fixture to compare a run with")
	}
	// the inputs (audit policy, candidate) come from the fixture being checked, else testdata/audit
	fixture := check
	if fixture == "" {
		fixture = "testdata/audit"
	}
	policy, err := filepath.Abs(filepath.Join(fixture, "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	candidate, err := readCandidate(filepath.Join(fixture, "candidate.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	var lines []string
	for _, u := range auditUsers {
		lines = append(lines, fmt.Sprintf("%s,%s,%s,%q", u[0], u[1], u[2], u[3]))
	}
	if err := os.WriteFile(tokens, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit.log")

	defer generic.SetPolicyRefreshIntervalForTests(20 * time.Millisecond)()
	etcdURL := startEtcd(t)
	h, err := newHooks()
	if err != nil {
		t.Fatal(err)
	}
	sv, err := startServer(t, etcdURL, "/audit", &Scenario{},
		"--audit-log-path="+logPath, "--audit-policy-file="+policy, "--audit-log-mode=blocking", "--token-auth-file="+tokens)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			sv.stop()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// the baseline chain and the guarded candidate, then probes until admission sees them (the apiserver's own requests: not logged)
	installed, err := candidate.guarded(h)
	if err != nil {
		t.Fatal(err)
	}
	installed = append(installed, namespaceProbe()...)
	for _, p := range []string{"apps/limits", "policy-params/registry-allowlist"} {
		installed = append(installed, paramProbe(p)...)
	}
	setup := append([]map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "oracle-probe"}}}, auditSetup...)
	setup = append(append(setup, auditBaseline(h)...), installed...)
	for _, o := range setup {
		if err := sv.env.create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	probeObjects, err := createProbes(ctx, sv.env, h, 1)
	if err != nil {
		t.Fatal(err)
	}
	if synced := waitSynced(ctx, sv.env, h, 1); synced != "probes" {
		t.Fatalf("admission did not see the baseline: %s", synced)
	}
	for _, o := range probeObjects {
		if err := sv.env.delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	// the snapshot before the traffic (the cluster's objects the traffic finds: the candidate and the probes are the test's, not the cluster's)
	before, err := takeSnapshot(ctx, sv.env, []listed{
		{trafficResources["namespaces"], ""}, {policyResource("validatingadmissionpolicies"), ""}, {policyResource("validatingadmissionpolicybindings"), ""},
		{policyResource("validatingwebhookconfigurations"), ""}, {policyResource("mutatingwebhookconfigurations"), ""}, {trafficResources["configmaps"], "default"},
	}, installed)
	if err != nil {
		t.Fatal(err)
	}

	clients := map[string]dynamic.Interface{}
	for _, u := range auditUsers {
		cfg := rest.AnonymousClientConfig(sv.admin)
		cfg.BearerToken, cfg.UserAgent = u[0], trafficAgent
		clients[u[1]] = dynamic.NewForConfigOrDie(cfg)
	}
	cfg := rest.AnonymousClientConfig(sv.admin)
	cfg.BearerToken, cfg.UserAgent = "admin-token", trafficAgent
	cfg.Impersonate = rest.ImpersonationConfig{UserName: impersonated, Groups: []string{"shop-viewers"}}
	clients[impersonated] = dynamic.NewForConfigOrDie(cfg)

	replayerConfig := rest.AnonymousClientConfig(sv.admin)
	replayerConfig.BearerToken, replayerConfig.UserAgent = "replayer-token", trafficAgent
	writes := 0
	var decisions candidateDecisions
	copied := 0
	for i, st := range traffic {
		if st.verb != "get" && st.verb != "list" {
			for _, m := range candidateModes {
				d, err := sendCopy(ctx, replayerConfig, h, st, m)
				if err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				d.Line = i + 1
				*decisions.mode(m) = append(*decisions.mode(m), d)
				copied++
			}
		}
		err := send(ctx, clients[st.user], st)
		_, answered := err.(apierrors.APIStatus) // a denial, not a transport error
		if denied := err != nil; denied != st.denied || (denied && !answered) {
			t.Fatalf("step %d (%s %s %s/%s by %s): expected denied=%v, got %v", i+1, st.verb, st.resource, st.namespace, st.name, st.user, st.denied, err)
		}
		if st.verb != "get" && st.verb != "list" {
			writes++
		}
		// the next copies meet the Namespace, the param, the policy as the live requests after it do
		if err == nil && st.resource == "namespaces" && (st.verb == "create" || st.verb == "update" || st.verb == "patch") && !st.dryRun {
			if err := waitNamespaceSeen(ctx, sv.env, replayerConfig, st.name); err != nil {
				t.Fatalf("step %d: %v", i+1, err)
			}
		}
		if st.waitParam != "" {
			if err := waitParamSeen(ctx, sv.env, replayerConfig, st.waitParam); err != nil {
				t.Fatalf("step %d: %v", i+1, err)
			}
		}
		if st.waitPolicy != "" {
			if err := waitPolicySeen(ctx, replayerConfig, st.waitPolicy); err != nil {
				t.Fatalf("step %d: %v", i+1, err)
			}
		}
	}

	// the candidate goes before the snapshot (the snapshot is the cluster's, the candidate the workspace's)
	for i := len(installed) - 1; i >= 0; i-- {
		if err := sv.env.delete(ctx, installed[i]); err != nil {
			t.Fatal(err)
		}
	}

	// the snapshot: `kubectl get namespaces,validatingadmissionpolicies,validatingadmissionpolicybindings,
	// validatingwebhookconfigurations,mutatingwebhookconfigurations -o json` and `kubectl get configmaps,deployments
	// -n shop -o json` (and -n apps), items together (kubectl hides managedFields)
	snapshot, err := takeSnapshot(ctx, sv.env, []listed{
		{trafficResources["namespaces"], ""}, {policyResource("validatingadmissionpolicies"), ""}, {policyResource("validatingadmissionpolicybindings"), ""},
		{policyResource("validatingwebhookconfigurations"), ""}, {policyResource("mutatingwebhookconfigurations"), ""},
		{trafficResources["configmaps"], "shop"}, {trafficResources["deployments"], "shop"}, {trafficResources["configmaps"], "apps"}, {trafficResources["deployments"], "apps"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}

	sv.stop() // flushes the audit log
	stopped = true
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	events, copies, err := splitLog(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != copied {
		t.Fatalf("the audit log has %d events of the replayer, the traffic %d copies", len(copies), copied)
	}
	// the copies' events in the order sent: per write, one per mode
	for i, e := range copies {
		d := &(*decisions.mode(candidateModes[i%len(candidateModes)]))[i/len(candidateModes)]
		d.Annotations = annotationsOf(e)
		d.withDenials()
	}
	decisionsJSON, _ := json.MarshalIndent(decisions, "", "  ")
	decisionsJSON = append(decisionsJSON, '\n')
	log := []byte(strings.Join(events, "\n") + "\n")
	if len(events) != len(traffic) {
		t.Errorf("the audit log has %d events, the traffic %d requests (%d writes)", len(events), len(traffic), writes)
	}
	for i, line := range events {
		var e struct {
			Verb, Level, Stage string
			User               struct{ Username string }
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		if i < len(traffic) && e.Verb != traffic[i].verb {
			t.Errorf("event %d: verb %s, the traffic's step %s", i+1, e.Verb, traffic[i].verb)
		}
	}
	if check != "" {
		diffs, err := checkFixture(check, events, decisionsJSON)
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) > 0 {
			t.Fatalf("the fixture in %s is not what this run wrote (regenerate it: AUDIT_OUT=testdata/audit):\n%s", check, strings.Join(diffs, "\n"))
		}
	}
	if out == "" {
		return
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "audit.log"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "snapshot.json"), append(snapshot, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "snapshot-before.json"), append(before, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "candidate-decisions.json"), decisionsJSON, 0o644); err != nil {
		t.Fatal(err)
	}
}

func send(ctx context.Context, client dynamic.Interface, st trafficStep) error {
	var ri dynamic.ResourceInterface = client.Resource(trafficResources[st.resource])
	if st.namespace != "" {
		ri = client.Resource(trafficResources[st.resource]).Namespace(st.namespace)
	}
	var dry []string
	if st.dryRun {
		dry = []string{metav1.DryRunAll}
	}
	object := func() (*unstructured.Unstructured, error) {
		var o map[string]any
		err := json.Unmarshal([]byte(st.body), &o)
		return &unstructured.Unstructured{Object: o}, err
	}
	switch st.verb {
	case "create":
		o, err := object()
		if err != nil {
			return err
		}
		_, err = ri.Create(ctx, o, metav1.CreateOptions{DryRun: dry})
		return err
	case "update":
		o, err := object()
		if err != nil {
			return err
		}
		_, err = ri.Update(ctx, o, metav1.UpdateOptions{DryRun: dry})
		return err
	case "patch":
		_, err := ri.Patch(ctx, st.name, st.patch, []byte(st.body), metav1.PatchOptions{DryRun: dry})
		return err
	case "delete":
		return ri.Delete(ctx, st.name, metav1.DeleteOptions{DryRun: dry})
	case "get":
		_, err := ri.Get(ctx, st.name, metav1.GetOptions{})
		return err
	case "list":
		_, err := ri.List(ctx, metav1.ListOptions{})
		return err
	}
	return fmt.Errorf("unknown verb %s", st.verb)
}
