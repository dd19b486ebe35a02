// Package oracle replays admission scenarios on a real kube-apiserver (k8s.io/kubernetes,
// the release in go.mod) running in-process on an embedded etcd, for the differential
// test of the Workbench's simulate() (tools/admission-oracle/oracle.test.ts).
//
// It is a Go test so that it gets a real testing.T for StartTestServer; the TypeScript
// side builds it with `go test -c` and runs
//
//	ORACLE_IN=scenarios.json ORACLE_OUT=results.json ./admission-oracle.test -test.run '^TestOracle$'
//
// The scenarios share one apiserver (on an embedded etcd) as long as each finds the state a
// fresh server would have: the same Namespaces, and no policy with a paramKind (those get a
// fresh server each, as does every scenario with ORACLE_SERVER=fresh, the cross-check).
// Per scenario:
//  1. create the scenario's objects as the admin, in an order that lets them all in:
//     Namespaces, other objects (params), the request's existing object (UPDATE/DELETE),
//     policies, bindings, then webhook configurations with each webhook's clientConfig
//     rewritten to the local TLS server (caBundle injected, service → url);
//  2. wait until admission has seen them: probes created after them (a webhook configuration
//     of each kind calling an unavailable endpoint, a VAP + binding that deny, a MAP + binding
//     that label) must act on a probe Lease (informers deliver each type in order); probe
//     names carry a generation number, never reused;
//  3. replay the request as a dry run, impersonating the scenario's user and groups;
//  4. record the verdict (allowed, code, reason, message), warnings, the webhook calls in order
//     and the object the apiserver returned;
//  5. delete the admission objects and probes, wait for new probes (admission no longer sees
//     the scenario), then delete the other objects and the probes. Namespaces stay.
package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
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
	// Policies are recompiled by a loop that looks for changes every second; the probes wait
	// for it, so a shorter period only shortens the waits (the same setter the apiserver's own
	// integration tests use).
	defer generic.SetPolicyRefreshIntervalForTests(20 * time.Millisecond)()
	etcdURL := startEtcd(t)
	h, err := newHooks()
	if err != nil {
		t.Fatal(err)
	}
	fresh := os.Getenv("ORACLE_SERVER") == "fresh"
	results := make([]Result, len(scenarios))
	var current *server
	defer func() { current.stop() }()
	for i := range scenarios {
		s := &scenarios[i]
		t0 := time.Now()
		if current != nil && (fresh || !current.canRun(s)) {
			current.stop()
			current = nil
		}
		if current == nil {
			current, err = startServer(t, etcdURL, fmt.Sprintf("/oracle-%d", i), s)
		}
		if err != nil {
			results[i] = Result{Warnings: []string{}, Calls: []Call{}, Error: err.Error()}
		} else {
			results[i] = current.run(h, s)
		}
		results[i].Name = s.Name
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

// server: one apiserver that runs scenarios one after another. Each scenario's objects are
// created, its probes waited for, its request replayed, then its objects deleted and the
// deletion waited for (probes again), so the next scenario meets the state a fresh server
// would have — except for what canRun rules out.
type server struct {
	ts    kubeapiservertesting.TestServer
	admin *rest.Config
	env   *env
	// namespaces: the scenario Namespaces it holds (they stay: nothing finalizes a deleted
	// Namespace without a controller manager), as namespaceKey.
	namespaces string
	// spent: it ran a scenario whose state the cleanup cannot vouch for; the next scenario gets a fresh one.
	spent bool
	// generation names each round of probes (a probe name is never reused).
	generation int
}

func startServer(t *testing.T, etcdURL, prefix string, s *Scenario, flags ...string) (*server, error) {
	storage := storagebackend.NewDefaultConfig(prefix, nil)
	storage.Transport.ServerList = []string{etcdURL}
	ts, err := kubeapiservertesting.StartTestServer(t, nil, flags, storage)
	if err != nil {
		return nil, fmt.Errorf("start kube-apiserver: %v", err)
	}
	admin := rest.CopyConfig(ts.ClientConfig)
	admin.QPS, admin.Burst = 500, 1000
	e, err := newEnv(admin)
	if err != nil {
		ts.TearDownFn()
		return nil, err
	}
	return &server{ts: ts, admin: admin, env: e, namespaces: namespaceKey(s)}, nil
}

func (sv *server) stop() {
	if sv != nil {
		sv.ts.TearDownFn()
	}
}

// canRun: the scenario finds on this server what it would find on a fresh one. Not when its
// Namespaces differ from the ones the server holds, nor when a policy has a paramKind (its
// param informer may be one an earlier scenario started, whose cache no probe checks).
func (sv *server) canRun(s *Scenario) bool {
	return !sv.spent && sv.namespaces == namespaceKey(s) && !usesParams(s)
}

func namespaceKey(s *Scenario) string {
	var list []map[string]any
	for _, o := range s.Objects {
		if o["kind"] == "Namespace" {
			list = append(list, o)
		}
	}
	sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]["metadata"]) < fmt.Sprint(list[j]["metadata"]) })
	b, _ := json.Marshal(list)
	return string(b)
}

func usesParams(s *Scenario) bool {
	for _, o := range s.Objects {
		if spec, ok := o["spec"].(map[string]any); ok && spec["paramKind"] != nil {
			return true
		}
	}
	return false
}

func (sv *server) run(h *hooks, s *Scenario) (res Result) {
	res = Result{Warnings: []string{}, Calls: []Call{}}
	h.reset()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if usesParams(s) {
		sv.spent = true
	}
	created, err := setUp(ctx, sv.env, h, s)
	// whatever happens next, the objects made go (or the server is not used again)
	defer func() {
		if err := sv.cleanUp(ctx, h, created); err != nil {
			sv.spent = true
		}
	}()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	sv.generation++
	probeObjects, err := createProbes(ctx, sv.env, h, sv.generation)
	created = append(created, probeObjects...)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Synced = waitSynced(ctx, sv.env, h, sv.generation)
	h.takeCalls() // the probes' calls

	replay(ctx, sv.admin, sv.env, s, &res)
	res.Calls = append([]Call{}, h.takeCalls()...)
	return res
}

// cleanUp deletes a scenario's objects: the admission configuration first (with the probes),
// then, once new probes show admission no longer sees it, the other objects (a scenario's
// DELETE rules would otherwise act on their deletion), last the new probes. Namespaces stay.
func (sv *server) cleanUp(ctx context.Context, h *hooks, created []map[string]any) error {
	var config, others []map[string]any
	for _, o := range created {
		kind, _ := o["kind"].(string)
		switch stage, ok := setupOrder[kind]; {
		case ok && stage == 0:
		case ok:
			config = append(config, o)
		default:
			others = append(others, o)
		}
	}
	for i := len(config) - 1; i >= 0; i-- {
		if err := sv.env.delete(ctx, config[i]); err != nil {
			return err
		}
	}
	sv.generation++
	probeObjects, err := createProbes(ctx, sv.env, h, sv.generation)
	if err != nil {
		return err
	}
	if synced := waitSynced(ctx, sv.env, h, sv.generation); synced != "probes" {
		return fmt.Errorf("cleanup: %s", synced)
	}
	for _, o := range append(others, probeObjects...) {
		if err := sv.env.delete(ctx, o); err != nil {
			return err
		}
	}
	h.reset()
	return nil
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
