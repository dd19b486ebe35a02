// Package oracle replays admission scenarios on a real kube-apiserver (k8s.io/kubernetes,
// the release in go.mod) running in-process on an embedded etcd, for the differential
// test of the Workbench's simulate() (tools/admission-oracle/oracle.test.ts).
//
// It is a Go test so that it gets a real testing.T for StartTestServer; the TypeScript
// side builds it with `go test -c` and runs
//
//	ORACLE_IN=scenarios.json ORACLE_OUT=results.json ./admission-oracle.test -test.run '^TestOracle$'
//
// Per scenario (a fresh apiserver each, on its own etcd prefix: policy informers keep
// state across deletes, and a fresh server has none):
//  1. create the scenario's objects as the admin, in an order that lets them all in:
//     Namespaces, other objects (params), the request's existing object (UPDATE/DELETE),
//     policies, bindings, then webhook configurations with each webhook's clientConfig
//     rewritten to the local TLS server (caBundle injected, service → url);
//  2. wait until admission has seen them: probes created after them (a webhook configuration
//     of each kind calling an unavailable endpoint, a VAP + binding that deny, a MAP + binding
//     that label) must act on a probe Lease (informers deliver each type in order);
//  3. replay the request as a dry run, impersonating the scenario's user and groups;
//  4. print the verdict (allowed, code, reason, message), warnings, the webhook calls in order
//     and the object the apiserver returned.
package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

type gvr struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

type userInfo struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// Scenario: the workspace objects, the request and each webhook's response (by webhook name).
type Scenario struct {
	Name     string                     `json:"name"`
	Objects  []map[string]any           `json:"objects"`
	Webhooks map[string]json.RawMessage `json:"webhooks"`
	Request  struct {
		Operation string         `json:"operation"`
		Resource  gvr            `json:"resource"`
		Name      string         `json:"name"`
		Namespace string         `json:"namespace"`
		Object    map[string]any `json:"object"`
		OldObject map[string]any `json:"oldObject"`
		UserInfo  *userInfo      `json:"userInfo"`
	} `json:"request"`
}

// Result: what the apiserver answered.
type Result struct {
	Name     string          `json:"name"`
	Allowed  bool            `json:"allowed"`
	Code     int32           `json:"code,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Message  string          `json:"message,omitempty"`
	Warnings []string        `json:"warnings"`
	Calls    []Call          `json:"calls"`
	Object   json.RawMessage `json:"object,omitempty"`
	// Synced: how the wait for admission's informers ended ("probes" or "timeout").
	Synced string `json:"synced"`
	// Error: the oracle could not run the scenario (setup failed); the verdict is meaningless.
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

func TestOracle(t *testing.T) {
	in, out := os.Getenv("ORACLE_IN"), os.Getenv("ORACLE_OUT")
	if in == "" || out == "" {
		t.Skip("ORACLE_IN and ORACLE_OUT name the scenario and result files")
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var scenarios []Scenario
	if err := json.Unmarshal(data, &scenarios); err != nil {
		t.Fatal(err)
	}
	etcdURL := startEtcd(t)
	h, err := newHooks()
	if err != nil {
		t.Fatal(err)
	}
	results := make([]Result, len(scenarios))
	for i := range scenarios {
		t0 := time.Now()
		results[i] = runOne(t, etcdURL, fmt.Sprintf("/oracle-%d", i), h, &scenarios[i])
		results[i].Name = scenarios[i].Name
		results[i].Seconds = time.Since(t0).Seconds()
	}
	b, _ := json.MarshalIndent(results, "", " ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func freeURL(t *testing.T) url.URL {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}

func startEtcd(t *testing.T) string {
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.LogLevel = "error"
	client, peer := freeURL(t), freeURL(t)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		t.Fatal("embedded etcd did not start")
	}
	return client.String()
}

func runOne(t *testing.T, etcdURL, prefix string, h *hooks, s *Scenario) (res Result) {
	res = Result{Warnings: []string{}, Calls: []Call{}}
	h.reset()
	storage := storagebackend.NewDefaultConfig(prefix, nil)
	storage.Transport.ServerList = []string{etcdURL}
	server, err := kubeapiservertesting.StartTestServer(t, nil, nil, storage)
	if err != nil {
		res.Error = fmt.Sprintf("start kube-apiserver: %v", err)
		return res
	}
	defer server.TearDownFn()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	admin := rest.CopyConfig(server.ClientConfig)
	admin.QPS, admin.Burst = 500, 1000
	env, err := newEnv(admin)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if err := setUp(ctx, env, h, s); err != nil {
		res.Error = err.Error()
		return res
	}
	res.Synced = waitSynced(ctx, env, h)
	h.takeCalls() // the probes' calls

	replay(ctx, admin, env, s, &res)
	res.Calls = append([]Call{}, h.takeCalls()...)
	return res
}

// replay sends the request as a dry run as the scenario's user.
func replay(ctx context.Context, admin *rest.Config, env *env, s *Scenario, res *Result) {
	cfg := rest.CopyConfig(admin)
	if u := s.Request.UserInfo; u != nil && u.Username != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: u.Username, Groups: u.Groups}
	}
	warnings := &warningRecorder{}
	cfg.WarningHandler = warnings
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		res.Error = err.Error()
		return
	}
	r := s.Request
	ri := client.Resource(schema.GroupVersionResource{Group: r.Resource.Group, Version: r.Resource.Version, Resource: r.Resource.Resource})
	var target dynamic.ResourceInterface = ri
	if r.Namespace != "" && env.namespaced(r.Resource) {
		target = ri.Namespace(r.Namespace)
	}
	dry := []string{metav1.DryRunAll}
	var obj *unstructured.Unstructured
	switch r.Operation {
	case "CREATE":
		obj, err = target.Create(ctx, &unstructured.Unstructured{Object: r.Object}, metav1.CreateOptions{DryRun: dry})
	case "UPDATE":
		obj, err = target.Update(ctx, &unstructured.Unstructured{Object: r.Object}, metav1.UpdateOptions{DryRun: dry})
	case "DELETE":
		err = target.Delete(ctx, r.Name, metav1.DeleteOptions{DryRun: dry})
	default:
		res.Error = fmt.Sprintf("operation %q is not replayed by the oracle", r.Operation)
		return
	}
	res.Warnings = append(res.Warnings, warnings.list...)
	if err != nil {
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			res.Error = err.Error()
			return
		}
		st := status.Status()
		res.Code, res.Reason, res.Message = st.Code, string(st.Reason), st.Message
		return
	}
	res.Allowed = true
	if obj != nil {
		res.Object, _ = json.Marshal(obj.Object)
	}
}

type warningRecorder struct{ list []string }

func (w *warningRecorder) HandleWarningHeader(code int, agent string, text string) {
	w.list = append(w.list, text)
}
