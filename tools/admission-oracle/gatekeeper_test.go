package oracle

// TestGatekeeperAuditLog writes a genuine audit log of a cluster where Gatekeeper decided: the
// in-process kube-apiserver (as TestKyvernoAuditLog: --audit-log-path, testdata/gatekeeper-audit/policy.yaml,
// static tokens) calls Gatekeeper v3.23's own validating webhook handler (`gatekeeper-oracle serve`,
// tools/gatekeeper-oracle/serve.go) through the ValidatingWebhookConfiguration Gatekeeper's manifest
// installs, with the templates and constraints of testdata/gatekeeper-audit/policies.yaml, and the
// traffic below is sent by alice, bob and the admin. Gatekeeper reads Namespaces from the apiserver as
// its service account (a token of the file; the audit policy leaves its reads out). It writes
// audit.log, snapshot.json and snapshot-before.json to GATEKEEPER_OUT, or compares the log's events
// and Gatekeeper's answers with the fixture in GATEKEEPER_CHECK (gatekeeper-audit.test.ts).
// GATEKEEPER_ORACLE names the gatekeeper-oracle binary (`node tools/build-oracles.mjs` builds it):
//
//	cd tools/admission-oracle && GATEKEEPER_ORACLE=... GATEKEEPER_OUT=testdata/gatekeeper-audit go test -modfile=go.1.37.mod -run '^TestGatekeeperAuditLog$' -count=1 .
//
// The fixture is the third proof of a Gatekeeper conversion (src/impact/conversion-gatekeeper.test.ts).

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// gatekeeperUser: Gatekeeper's service account (its webhook lets its own requests through; it reads Namespaces as it).
const gatekeeperUser = "system:serviceaccount:gatekeeper-system:gatekeeper-admin"

func init() {
	trafficResources["pods"] = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
}

func gkConfigMap(ns, name string, labels, data map[string]string) string {
	return kyvernoConfigMap(ns, name, labels, data)
}

// gkPod: a Pod with one container; privileged and hostPID when asked.
func gkPod(ns, name, image string, privileged, hostPID bool) string {
	c := map[string]any{"name": "main", "image": image}
	if privileged {
		c["securityContext"] = map[string]any{"privileged": true}
	}
	spec := map[string]any{"containers": []any{c}}
	if hostPID {
		spec["hostPID"] = true
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec})
	return string(b)
}

func gkNamespace(name string, labels map[string]string) string {
	meta := map[string]any{"name": name}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta})
	return string(b)
}

// gatekeeperTraffic: denied is what Gatekeeper is expected to answer (the test fails when the apiserver answers otherwise).
var gatekeeperTraffic = []trafficStep{
	// ns-must-have-owner (every Namespace)
	{user: "admin", verb: "create", resource: "namespaces", name: "apps", body: gkNamespace("apps", kv{"owner": "shop"})},
	{user: "admin", verb: "create", resource: "namespaces", name: "scratch", body: gkNamespace("scratch", nil), denied: true},
	{user: "admin", verb: "patch", resource: "namespaces", name: "apps", patch: types.MergePatchType, body: `{"metadata":{"labels":{"owner":null}}}`, denied: true},
	{user: "admin", verb: "patch", resource: "namespaces", name: "apps", patch: types.MergePatchType, body: `{"metadata":{"labels":{"tier":"web"}}}`},
	// cm-must-have-team (ConfigMaps in shop and apps: a team label of lowercase letters)
	{user: "alice", verb: "create", resource: "configmaps", namespace: "shop", name: "settings", body: gkConfigMap("shop", "settings", kv{"team": "web"}, kv{"mode": "fast"})},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "unowned", body: gkConfigMap("shop", "unowned", nil, kv{"mode": "fast"}), denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "upper", body: gkConfigMap("shop", "upper", kv{"team": "Web"}, nil), denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "dev", name: "unowned", body: gkConfigMap("dev", "unowned", nil, kv{"mode": "fast"})},
	{user: "alice", verb: "get", resource: "configmaps", namespace: "shop", name: "settings"},
	{user: "alice", verb: "update", resource: "configmaps", namespace: "shop", name: "settings", body: gkConfigMap("shop", "settings", kv{"team": "web"}, kv{"mode": "slow"})},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.MergePatchType, body: `{"metadata":{"labels":{"team":null}}}`, denied: true},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.JSONPatchType, body: `[{"op":"replace","path":"/metadata/labels/team","value":"web-2"}]`, denied: true},
	{user: "alice", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.StrategicMergePatchType, body: `{"data":{"size":"m"}}`},
	// shop/legacy was made before Gatekeeper (the setup): Gatekeeper reviews the object as updated, so even a change of data is denied
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "legacy", patch: types.MergePatchType, body: `{"data":{"b":"2"}}`, denied: true},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "legacy", patch: types.MergePatchType, body: `{"metadata":{"labels":{"team":"ops"}}}`},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "apps", name: "config", body: gkConfigMap("apps", "config", kv{"team": "api"}, nil)},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "apps", name: "trial", dryRun: true, body: gkConfigMap("apps", "trial", nil, nil), denied: true},
	{user: "alice", verb: "create", resource: "configmaps", namespace: "shop", name: "trial", dryRun: true, body: gkConfigMap("shop", "trial", kv{"team": "web"}, nil)},
	{user: "alice", verb: "list", resource: "configmaps", namespace: "shop"},
	// no-privileged (Pods, not in dev; an exempt image), warn-host-namespace (warn), audit-readonly-root (dryrun: never denies)
	{user: "alice", verb: "create", resource: "pods", namespace: "shop", name: "web", body: gkPod("shop", "web", "nginx:1.27", false, false)},
	{user: "bob", verb: "create", resource: "pods", namespace: "shop", name: "root", body: gkPod("shop", "root", "nginx:1.27", true, false), denied: true},
	{user: "bob", verb: "create", resource: "pods", namespace: "dev", name: "root", body: gkPod("dev", "root", "nginx:1.27", true, false)},
	{user: "bob", verb: "create", resource: "pods", namespace: "shop", name: "debug", body: gkPod("shop", "debug", "registry.example.com/debug/tools:1", true, false)},
	{user: "alice", verb: "create", resource: "pods", namespace: "shop", name: "pid", body: gkPod("shop", "pid", "nginx:1.27", false, true)},
	{user: "bob", verb: "create", resource: "pods", namespace: "shop", name: "both", dryRun: true, body: gkPod("shop", "both", "nginx:1.27", true, true), denied: true},
	// an update is not reviewed by these PSP templates (their isUpdate): the privileged Pod in dev gets a new image
	{user: "bob", verb: "patch", resource: "pods", namespace: "dev", name: "root", patch: types.StrategicMergePatchType, body: `{"spec":{"containers":[{"name":"main","image":"nginx:1.28"}]}}`},
	{user: "alice", verb: "patch", resource: "pods", namespace: "shop", name: "web", patch: types.JSONPatchType, body: `[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"}]`},
	{user: "alice", verb: "get", resource: "pods", namespace: "shop", name: "web"},
	// deletes (Gatekeeper's webhook is not registered for DELETE)
	{user: "alice", verb: "delete", resource: "configmaps", namespace: "shop", name: "settings"},
	{user: "bob", verb: "delete", resource: "configmaps", namespace: "shop", name: "legacy"},
	{user: "bob", verb: "delete", resource: "pods", namespace: "dev", name: "root"},
	{user: "alice", verb: "delete", resource: "pods", namespace: "shop", name: "web", dryRun: true},
	// the Namespace gatekeeper-system: Gatekeeper's webhook configuration leaves it out (its namespaceSelector)
	{user: "admin", verb: "create", resource: "namespaces", name: "gatekeeper-system", body: gkNamespace("gatekeeper-system", nil)},
	{user: "admin", verb: "create", resource: "configmaps", namespace: "gatekeeper-system", name: "unowned", body: gkConfigMap("gatekeeper-system", "unowned", nil, nil)},
}

// gatekeeperWebhook: the webhook validation.gatekeeper.sh of the ValidatingWebhookConfiguration
// gatekeeper-validating-webhook-configuration as Gatekeeper v3.23's manifest (deploy/gatekeeper.yaml)
// installs it, with a URL for the service: every resource and the subresources it lists, CREATE and
// UPDATE, failurePolicy Ignore, matchPolicy Exact, the namespaceSelector leaving out gatekeeper-system
// and Namespaces labelled admission.gatekeeper.sh/ignore. Not Gatekeeper's: timeoutSeconds 10 (the
// manifest's 3 s: a loaded test machine would let a slow answer through, failing open). The
// manifest's second webhook (check-ignore-label, guarding that label) is left out: no request sets it.
func gatekeeperWebhook(url, caBundle string) map[string]any {
	resources := []any{"*", "pods/ephemeralcontainers", "pods/exec", "pods/log", "pods/eviction", "pods/portforward", "pods/proxy", "pods/attach", "pods/binding", "pods/resize",
		"deployments/scale", "replicasets/scale", "statefulsets/scale", "replicationcontrollers/scale", "services/proxy", "nodes/proxy", "services/status"}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "gatekeeper-validating-webhook-configuration", "labels": map[string]any{"gatekeeper.sh/system": "yes"}},
		"webhooks": []any{map[string]any{
			"name": "validation.gatekeeper.sh", "clientConfig": map[string]any{"url": url, "caBundle": caBundle},
			"rules":         []any{map[string]any{"apiGroups": []any{"*"}, "apiVersions": []any{"*"}, "operations": []any{"CREATE", "UPDATE"}, "resources": resources}},
			"failurePolicy": "Ignore", "sideEffects": "None", "admissionReviewVersions": []any{"v1", "v1beta1"}, "timeoutSeconds": int64(10), "matchPolicy": "Exact",
			"namespaceSelector": map[string]any{"matchExpressions": []any{
				map[string]any{"key": "admission.gatekeeper.sh/ignore", "operator": "DoesNotExist"},
				map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"gatekeeper-system"}},
			}},
		}}}
}

// startGatekeeper runs `gatekeeper-oracle serve` and returns its URL and CA bundle; the process ends when the test does.
func startGatekeeper(t *testing.T, bin, policies, cluster string) (string, string) {
	cmd := exec.Command(bin, "serve", policies, cluster)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("gatekeeper-oracle serve: %v", err)
	}
	var hello struct{ URL, CABundle string }
	if err := json.Unmarshal([]byte(line), &hello); err != nil {
		t.Fatalf("gatekeeper-oracle serve said %q: %v", line, err)
	}
	return hello.URL, hello.CABundle
}

// gkAnswer: an event's shape and what the apiserver answered (Gatekeeper's denial message, its warnings).
func gkAnswer(line string) string {
	var e struct {
		ResponseStatus struct{ Message string }
	}
	_ = json.Unmarshal([]byte(line), &e)
	return fmt.Sprintf("%s %q", eventShape(line), e.ResponseStatus.Message)
}

func TestGatekeeperAuditLog(t *testing.T) {
	out, check, bin := os.Getenv("GATEKEEPER_OUT"), os.Getenv("GATEKEEPER_CHECK"), os.Getenv("GATEKEEPER_ORACLE")
	if (out == "" && check == "") || bin == "" {
		t.Skip("GATEKEEPER_ORACLE names the gatekeeper-oracle binary; GATEKEEPER_OUT the folder to write the fixture to, GATEKEEPER_CHECK the fixture to compare a run with")
	}
	fixture := check
	if fixture == "" {
		fixture = "testdata/gatekeeper-audit"
	}
	policy, err := filepath.Abs(filepath.Join(fixture, "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	var lines []string
	for _, u := range auditUsers {
		lines = append(lines, fmt.Sprintf("%s,%s,%s,%q", u[0], u[1], u[2], u[3]))
	}
	lines = append(lines, fmt.Sprintf("gatekeeper-token,%s,900,%q", gatekeeperUser, "system:masters"))
	if err := os.WriteFile(tokens, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit.log")
	// --allow-privileged: privileged containers are the apiserver's to allow (no-privileged is Gatekeeper's)
	sv, err := startServer(t, startEtcd(t), "/gatekeeper", &Scenario{},
		"--audit-log-path="+logPath, "--audit-policy-file="+policy, "--audit-log-mode=blocking", "--token-auth-file="+tokens, "--allow-privileged=true")
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

	conn, _ := json.Marshal(map[string]string{"host": sv.admin.Host, "caData": base64.StdEncoding.EncodeToString(sv.admin.TLSClientConfig.CAData), "serverName": sv.admin.TLSClientConfig.ServerName, "token": "gatekeeper-token"})
	connFile := filepath.Join(dir, "cluster.json")
	if err := os.WriteFile(connFile, conn, 0o600); err != nil {
		t.Fatal(err)
	}
	url, caBundle := startGatekeeper(t, bin, filepath.Join(fixture, "policies.yaml"), connFile)

	// the setup, by the apiserver's own client (not in the log): the Namespaces shop and dev with their
	// default ServiceAccounts (no controller manager makes them; Pods need them), a ConfigMap made
	// before Gatekeeper, then Gatekeeper's webhook
	setup := []string{gkNamespace("shop", kv{"owner": "shop", "env": "prod"}), gkNamespace("dev", kv{"owner": "dev"}),
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"shop"}}`,
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"dev"}}`,
		gkConfigMap("shop", "legacy", nil, kv{"mode": "fast"})}
	for _, o := range setup {
		var m map[string]any
		_ = json.Unmarshal([]byte(o), &m)
		if err := sv.env.create(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := sv.env.create(ctx, gatekeeperWebhook(url, caBundle)); err != nil {
		t.Fatal(err)
	}
	// until admission calls Gatekeeper: a dry-run ConfigMap in shop that cm-must-have-team denies (the apiserver's own request: not logged)
	probe := &unstructured.Unstructured{}
	_ = json.Unmarshal([]byte(gkConfigMap("shop", "gatekeeper-probe", nil, nil)), &probe.Object)
	cms := sv.env.client.Resource(trafficResources["configmaps"]).Namespace("shop")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := cms.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), "cm-must-have-team") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("admission does not call Gatekeeper (last answer: %v)", err)
		}
	}
	// `kubectl get namespaces,validatingwebhookconfigurations,configmaps,pods -A -o json`
	listed := []listed{{trafficResources["namespaces"], ""}, {policyResource("validatingwebhookconfigurations"), ""}, {trafficResources["configmaps"], ""}, {trafficResources["pods"], ""}}
	before, err := takeSnapshot(ctx, sv.env, listed, nil)
	if err != nil {
		t.Fatal(err)
	}

	clients := map[string]dynamic.Interface{}
	for _, u := range auditUsers {
		cfg := rest.AnonymousClientConfig(sv.admin)
		cfg.BearerToken, cfg.UserAgent = u[0], trafficAgent
		clients[u[1]] = dynamic.NewForConfigOrDie(cfg)
	}
	for i, st := range gatekeeperTraffic {
		err := send(ctx, clients[st.user], st)
		_, answered := err.(apierrors.APIStatus)
		if denied := err != nil; denied != st.denied || (denied && !answered) {
			t.Fatalf("step %d (%s %s %s/%s by %s): expected denied=%v, got %v", i+1, st.verb, st.resource, st.namespace, st.name, st.user, st.denied, err)
		}
	}
	snapshot, err := takeSnapshot(ctx, sv.env, listed, nil)
	if err != nil {
		t.Fatal(err)
	}
	sv.stop() // flushes the audit log
	stopped = true
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	events := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(events) != len(gatekeeperTraffic) {
		t.Errorf("the audit log has %d events, the traffic %d requests", len(events), len(gatekeeperTraffic))
	}
	if check != "" {
		old, err := os.ReadFile(filepath.Join(check, "audit.log"))
		if err != nil {
			t.Fatal(err)
		}
		oldLines := strings.Split(strings.TrimSpace(string(old)), "\n")
		var diffs []string
		for i := 0; i < len(oldLines) || i < len(events); i++ {
			var a, b string
			if i < len(oldLines) {
				a = gkAnswer(oldLines[i])
			}
			if i < len(events) {
				b = gkAnswer(events[i])
			}
			if a != b {
				diffs = append(diffs, fmt.Sprintf("audit.log line %d: fixture %s, this run %s", i+1, a, b))
			}
		}
		if len(diffs) > 0 {
			t.Fatalf("the fixture in %s is not what this run wrote (regenerate it: GATEKEEPER_OUT=testdata/gatekeeper-audit):\n%s", check, strings.Join(diffs, "\n"))
		}
	}
	if out == "" {
		return
	}
	for name, data := range map[string][]byte{"audit.log": raw, "snapshot.json": append(snapshot, '\n'), "snapshot-before.json": append(before, '\n')} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
