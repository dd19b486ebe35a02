package oracle

// TestKyvernoAuditLog writes a genuine audit log of a cluster where Kyverno decided: the in-process
// kube-apiserver (as TestAuditLog: --audit-log-path, testdata/kyverno-audit/policy.yaml, static
// tokens) calls Kyverno v1.19's own resource validating webhook (`kyverno-oracle serve`,
// tools/kyverno-oracle/serve.go) through a ValidatingWebhookConfiguration in the shape Kyverno's
// webhook controller builds for testdata/kyverno-audit/policies.yaml, and the traffic below is sent
// by alice, bob and the admin. It writes audit.log (as the apiserver wrote it), snapshot.json (the
// objects afterwards, as `kubectl get -o json` lists them) and snapshot-before.json to KYVERNO_OUT,
// or compares the log's events with the fixture in KYVERNO_CHECK (tools/admission-oracle/oracle.test.ts).
// KYVERNO_ORACLE names the kyverno-oracle binary (`node tools/build-oracles.mjs` builds it):
//
//	cd tools/admission-oracle && KYVERNO_ORACLE=... KYVERNO_OUT=testdata/kyverno-audit go test -modfile=go.1.37.mod -run '^TestKyvernoAuditLog$' -count=1 .
//
// The fixture is the third proof of a Kyverno conversion (src/impact/conversion.test.ts).

import (
	"bufio"
	"context"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

func kyvernoConfigMap(ns, name string, labels, data map[string]string) string {
	meta := map[string]any{"name": name, "namespace": ns}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data})
	return string(b)
}

func kyvernoDeployment(ns, name string, replicas int, images ...string) string {
	var containers []any
	for i, image := range images {
		containers = append(containers, map[string]any{"name": fmt.Sprintf("c%d", i), "image": image})
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app": name}},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}}, "spec": map[string]any{"containers": containers}}}})
	return string(b)
}

type kv = map[string]string

// kyvernoTraffic: denied is what Kyverno is expected to answer (the test fails when the apiserver answers otherwise).
var kyvernoTraffic = []trafficStep{
	{user: "admin", verb: "create", resource: "namespaces", name: "apps", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"apps"}}`},
	{user: "admin", verb: "create", resource: "namespaces", name: "dev", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}`},
	// require-team-label (ConfigMaps in shop and apps) and no-debug-mode (every ConfigMap)
	{user: "alice", verb: "create", resource: "configmaps", namespace: "shop", name: "settings", body: kyvernoConfigMap("shop", "settings", kv{"team": "web"}, kv{"mode": "fast"})},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "unowned", body: kyvernoConfigMap("shop", "unowned", nil, kv{"mode": "fast"}), denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "empty-team", body: kyvernoConfigMap("shop", "empty-team", kv{"team": ""}, kv{"mode": "fast"}), denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "dev", name: "unowned", body: kyvernoConfigMap("dev", "unowned", nil, kv{"mode": "fast"})},
	{user: "alice", verb: "create", resource: "configmaps", namespace: "shop", name: "debug", body: kyvernoConfigMap("shop", "debug", kv{"team": "web"}, kv{"mode": "debug"}), denied: true},
	{user: "alice", verb: "create", resource: "configmaps", namespace: "dev", name: "debug", body: kyvernoConfigMap("dev", "debug", nil, kv{"mode": "debug"}), denied: true},
	// no data: no-debug-mode's condition key does not resolve, an error, and Kyverno blocks on it
	{user: "alice", verb: "create", resource: "configmaps", namespace: "dev", name: "no-data", body: kyvernoConfigMap("dev", "no-data", nil, nil), denied: true},
	{user: "alice", verb: "get", resource: "configmaps", namespace: "shop", name: "settings"},
	{user: "alice", verb: "update", resource: "configmaps", namespace: "shop", name: "settings", body: kyvernoConfigMap("shop", "settings", kv{"team": "web"}, kv{"mode": "slow"})},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.MergePatchType, body: `{"metadata":{"labels":{"team":null}}}`, denied: true},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.MergePatchType, body: `{"data":{"mode":"debug"}}`, denied: true},
	{user: "alice", verb: "patch", resource: "configmaps", namespace: "shop", name: "settings", patch: types.JSONPatchType, body: `[{"op":"add","path":"/data/size","value":"m"}]`},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "dev", name: "unowned", patch: types.StrategicMergePatchType, body: `{"data":{"mode":"debug"}}`, denied: true},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "dev", name: "unowned", patch: types.StrategicMergePatchType, body: `{"data":{"mode":"slow"}}`},
	// shop/legacy was made before Kyverno (the setup): it has no team label; an update that keeps it so
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "legacy", patch: types.MergePatchType, body: `{"data":{"b":"2"}}`},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "legacy", patch: types.MergePatchType, body: `{"metadata":{"labels":{"team":"ops"}}}`},
	{user: "bob", verb: "patch", resource: "configmaps", namespace: "shop", name: "legacy", patch: types.MergePatchType, body: `{"metadata":{"labels":{"team":null}}}`, denied: true},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "apps", name: "config", body: kyvernoConfigMap("apps", "config", kv{"team": "api"}, kv{"mode": "fast"})},
	{user: "bob", verb: "create", resource: "configmaps", namespace: "shop", name: "trial", dryRun: true, body: kyvernoConfigMap("shop", "trial", nil, kv{"mode": "fast"}), denied: true},
	{user: "alice", verb: "create", resource: "configmaps", namespace: "apps", name: "trial", dryRun: true, body: kyvernoConfigMap("apps", "trial", kv{"team": "api"}, kv{"mode": "fast"})},
	{user: "alice", verb: "list", resource: "configmaps", namespace: "shop"},
	// disallow-latest-tag (Pods, and by Kyverno's autogen their controllers) and limit-replicas (Deployments)
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "api", body: kyvernoDeployment("apps", "api", 2, "ghcr.io/shop/api:1.0")},
	{user: "alice", verb: "create", resource: "deployments", namespace: "apps", name: "edge", body: kyvernoDeployment("apps", "edge", 1, "nginx:latest"), denied: true},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "big", body: kyvernoDeployment("apps", "big", 8, "ghcr.io/shop/big:1"), denied: true},
	{user: "bob", verb: "create", resource: "deployments", namespace: "apps", name: "pair", body: kyvernoDeployment("apps", "pair", 1, "ghcr.io/shop/a:1", "busybox:latest"), denied: true},
	{user: "bob", verb: "create", resource: "deployments", namespace: "dev", name: "untagged", body: kyvernoDeployment("dev", "untagged", 1, "nginx")},
	{user: "bob", verb: "patch", resource: "deployments", namespace: "apps", name: "api", patch: types.MergePatchType, body: `{"spec":{"replicas":6}}`, denied: true},
	{user: "bob", verb: "patch", resource: "deployments", namespace: "apps", name: "api", patch: types.MergePatchType, body: `{"spec":{"replicas":4}}`},
	{user: "alice", verb: "patch", resource: "deployments", namespace: "apps", name: "api", patch: types.StrategicMergePatchType, body: `{"spec":{"template":{"spec":{"containers":[{"name":"c0","image":"ghcr.io/shop/api:latest"}]}}}}`, denied: true},
	{user: "alice", verb: "patch", resource: "deployments", namespace: "apps", name: "api", patch: types.StrategicMergePatchType, body: `{"spec":{"template":{"spec":{"containers":[{"name":"c0","image":"ghcr.io/shop/api:1.1"}]}}}}`},
	{user: "alice", verb: "get", resource: "deployments", namespace: "apps", name: "api"},
	// deletes (Kyverno's webhook is called for DELETE too)
	{user: "alice", verb: "delete", resource: "configmaps", namespace: "shop", name: "settings"},
	{user: "bob", verb: "delete", resource: "configmaps", namespace: "dev", name: "unowned"},
	{user: "bob", verb: "delete", resource: "configmaps", namespace: "shop", name: "legacy"},
	{user: "bob", verb: "delete", resource: "deployments", namespace: "dev", name: "untagged"},
	{user: "alice", verb: "delete", resource: "deployments", namespace: "apps", name: "api", dryRun: true},
	// the Namespace kyverno: Kyverno's webhook configuration leaves it out (its namespaceSelector)
	{user: "admin", verb: "create", resource: "namespaces", name: "kyverno", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kyverno"}}`},
	{user: "admin", verb: "create", resource: "configmaps", namespace: "kyverno", name: "debug", body: kyvernoConfigMap("kyverno", "debug", nil, kv{"mode": "debug"})},
}

// kyvernoWebhook: the ValidatingWebhookConfiguration Kyverno's webhook controller builds for the
// fixture's policies (pkg/controllers/webhook: buildResourceValidatingWebhookConfiguration): one
// webhook for the policies with failurePolicy Fail, its path /validate/fail, the policies' kinds and
// their Pod controllers (autogen) with every operation a rule without operations gets (CREATE,
// UPDATE, DELETE, CONNECT), sideEffects None (admission reports off), the default namespaceSelector
// of Kyverno's configuration (not the Namespace kyverno), matchPolicy Equivalent, timeout 10 s.
func kyvernoWebhook(url, caBundle string) map[string]any {
	all := []any{"CREATE", "UPDATE", "DELETE", "CONNECT"}
	rule := func(group string, resources ...string) map[string]any {
		rs := []any{}
		for _, r := range resources {
			rs = append(rs, r)
		}
		return map[string]any{"apiGroups": []any{group}, "apiVersions": []any{"v1"}, "operations": all, "resources": rs, "scope": "*"}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "kyverno-resource-validating-webhook-cfg"},
		"webhooks": []any{map[string]any{
			"name": "validate.kyverno.svc-fail", "clientConfig": map[string]any{"url": url, "caBundle": caBundle},
			"rules":         []any{rule("", "configmaps", "pods", "replicationcontrollers"), rule("apps", "daemonsets", "deployments", "replicasets", "statefulsets"), rule("batch", "cronjobs", "jobs")},
			"failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": []any{"v1"}, "timeoutSeconds": int64(10), "matchPolicy": "Equivalent",
			"namespaceSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kyverno"}}}},
			"objectSelector":    map[string]any{},
		}}}
}

// startKyverno runs `kyverno-oracle serve` and returns its URL and CA bundle; the process ends when the test does.
func startKyverno(t *testing.T, bin, policies string) (string, string) {
	cmd := exec.Command(bin, "serve", policies)
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
		t.Fatalf("kyverno-oracle serve: %v", err)
	}
	var hello struct{ URL, CABundle string }
	if err := json.Unmarshal([]byte(line), &hello); err != nil {
		t.Fatalf("kyverno-oracle serve said %q: %v", line, err)
	}
	return hello.URL, hello.CABundle
}

func TestKyvernoAuditLog(t *testing.T) {
	out, check, bin := os.Getenv("KYVERNO_OUT"), os.Getenv("KYVERNO_CHECK"), os.Getenv("KYVERNO_ORACLE")
	if (out == "" && check == "") || bin == "" {
		t.Skip("KYVERNO_ORACLE names the kyverno-oracle binary; KYVERNO_OUT the folder to write the fixture to, KYVERNO_CHECK the fixture to compare a run with")
	}
	fixture := check
	if fixture == "" {
		fixture = "testdata/kyverno-audit"
	}
	policy, err := filepath.Abs(filepath.Join(fixture, "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	url, caBundle := startKyverno(t, bin, filepath.Join(fixture, "policies.yaml"))
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
	sv, err := startServer(t, startEtcd(t), "/kyverno", &Scenario{},
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

	// the setup, by the apiserver's own client (not in the log): the Namespace shop with a ConfigMap made before Kyverno, then Kyverno's webhook
	for _, o := range []string{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"env":"prod"}}}`, kyvernoConfigMap("shop", "legacy", nil, kv{"mode": "fast"})} {
		var m map[string]any
		_ = json.Unmarshal([]byte(o), &m)
		if err := sv.env.create(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := sv.env.create(ctx, kyvernoWebhook(url, caBundle)); err != nil {
		t.Fatal(err)
	}
	// until admission calls Kyverno: a dry-run ConfigMap that no-debug-mode denies (the apiserver's own request: not logged)
	probe := &unstructured.Unstructured{}
	_ = json.Unmarshal([]byte(kyvernoConfigMap("default", "kyverno-probe", nil, kv{"mode": "debug"})), &probe.Object)
	cms := sv.env.client.Resource(trafficResources["configmaps"]).Namespace("default")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, err := cms.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), "no-debug-mode") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("admission does not call Kyverno (last answer: %v)", err)
		}
	}
	// `kubectl get namespaces,validatingwebhookconfigurations,configmaps,deployments -A -o json`
	listed := []listed{{trafficResources["namespaces"], ""}, {policyResource("validatingwebhookconfigurations"), ""}, {trafficResources["configmaps"], ""}, {trafficResources["deployments"], ""}}
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
	for i, st := range kyvernoTraffic {
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
	if len(events) != len(kyvernoTraffic) {
		t.Errorf("the audit log has %d events, the traffic %d requests", len(events), len(kyvernoTraffic))
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
				a = eventShape(oldLines[i])
			}
			if i < len(events) {
				b = eventShape(events[i])
			}
			if a != b {
				diffs = append(diffs, fmt.Sprintf("audit.log line %d: fixture %q, this run %q", i+1, a, b))
			}
		}
		if len(diffs) > 0 {
			t.Fatalf("the fixture in %s is not what this run wrote (regenerate it: KYVERNO_OUT=testdata/kyverno-audit):\n%s", check, strings.Join(diffs, "\n"))
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
