package oracle

// TestConditionalAuthorization: the AuthorizationConditionsEnforcer of Kubernetes 1.38
// (KEP-5681, alpha gate ConditionalAuthorization) on a real kube-apiserver. It compiles into every
// release's binary (the reviews are plain JSON here, no 1.38 types) but runs only with the 1.38
// one (conditional.test.ts): older releases have no such gate and refuse the flag.
//
// What is real: the apiserver (its authorization filter, the enforcer plugin, the webhook
// authorizer's SubjectAccessReview and AuthorizationConditionsReview calls, the status it answers)
// and the audit log it writes (Metadata level, blocking). What the test chooses: the authorizer
// webhook itself, a local TLS server that answers the SubjectAccessReview of each scenario's user
// with a ConditionsMap (one Deny and one Allow condition) — or an unconditional allow for the
// answer "none" — and evaluates the conditions as the scenario says: Allow, Deny, Deny with an
// evaluationError (an evaluation that failed), or NoOpinion (no condition holds).
//
//	COND_IN=scenarios.json COND_OUT=results.json ./admission-oracle-1.38.test -test.run '^TestConditionalAuthorization$'

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// condScenario: one request by one user, the authorizer's evaluation of its conditions, and the
// objects that must exist first (created as the admin).
type condScenario struct {
	Name    string           `json:"name"`
	Objects []map[string]any `json:"objects"`
	// Verb: create | update | patch | delete | connect (a POST to the subresource, as kubectl exec).
	Verb        string         `json:"verb"`
	Resource    gvr            `json:"resource"`
	Subresource string         `json:"subresource"`
	Namespace   string         `json:"namespace"`
	Name_       string         `json:"objectName"`
	Body        map[string]any `json:"body"`
	// Query: the connect request's query (e.g. command=sh&stdout=true).
	Query string `json:"query"`
	User  string `json:"user"`
	// WaitDenied: before the request, its body is created (dry run, as the admin) until the
	// apiserver's refusal says this (the scenario's policy is in force).
	WaitDenied string `json:"waitDenied"`
	// Answer: the authorizer's — none (an unconditional allow), or its conditions' evaluation:
	// Allow | Deny | Error (Deny with an evaluationError) | NoOpinion; Reason its reason or error text.
	Answer string `json:"answer"`
	Reason string `json:"reason"`
}

type condResult struct {
	Name    string `json:"name"`
	Allowed bool   `json:"allowed"`
	Code    int32  `json:"code,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Annotations: the authorization.k8s.io/ audit annotations of the request's ResponseComplete event.
	Annotations map[string]string `json:"annotations"`
	// Evaluated: what the authorizer was asked to evaluate ("<operation> object=<apiVersion/kind> oldObject=…" of
	// the AdmissionRequest it was sent, "-" for none), "" when it was not asked.
	Evaluated string `json:"evaluated"`
	Error     string `json:"error,omitempty"`
}

// condAuthorizer: the authorizer webhook. It answers SubjectAccessReviews and (same endpoint,
// told apart by kind, as the configuration's conditionsReview without a context name implies)
// AuthorizationConditionsReviews.
type condAuthorizer struct {
	mu        sync.Mutex
	scenarios map[string]*condScenario // by user
	evaluated map[string]string        // by user
}

const (
	condAllowID = "oracle.example/allow"
	condDenyID  = "oracle.example/deny"
)

func (a *condAuthorizer) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var in struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			User string `json:"user"`
		} `json:"spec"`
		Request struct {
			AdmissionRequest struct {
				UID       string `json:"uid"`
				Operation string `json:"operation"`
				UserInfo  struct {
					Username string `json:"username"`
				} `json:"userInfo"`
				Object    json.RawMessage `json:"object"`
				OldObject json.RawMessage `json:"oldObject"`
			} `json:"admissionRequest"`
		} `json:"request"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out map[string]any
	switch in.Kind {
	case "SubjectAccessReview":
		status := map[string]any{"allowed": true}
		if s := a.scenarios[in.Spec.User]; s != nil && s.Answer != "none" {
			status = map[string]any{"allowed": false, "conditionalDecision": map[string]any{
				"type": "ConditionsMap",
				"conditionsMap": map[string]any{
					"denyConditions":  []any{map[string]any{"id": condDenyID, "condition": "the scenario denies", "description": "denied by the oracle's conditions"}},
					"allowConditions": []any{map[string]any{"id": condAllowID, "condition": "the scenario allows", "description": "allowed by the oracle's conditions"}},
				},
			}}
		}
		out = map[string]any{"apiVersion": in.APIVersion, "kind": in.Kind, "status": status}
	case "AuthorizationConditionsReview":
		ar := in.Request.AdmissionRequest
		a.evaluated[ar.UserInfo.Username] = fmt.Sprintf("%s object=%s oldObject=%s", ar.Operation, kindOf(ar.Object), kindOf(ar.OldObject))
		decision := map[string]any{"type": "NoOpinion", "noOpinion": map[string]any{}}
		if s := a.scenarios[ar.UserInfo.Username]; s != nil {
			switch s.Answer {
			case "NoOpinion":
				decision = map[string]any{"type": "NoOpinion", "noOpinion": map[string]any{"reason": s.Reason}}
			case "Allow":
				decision = map[string]any{"type": "Allow", "allow": map[string]any{"reason": s.Reason}}
			case "Deny":
				decision = map[string]any{"type": "Deny", "deny": map[string]any{"reason": s.Reason}}
			case "Error":
				decision = map[string]any{"type": "Deny", "deny": map[string]any{"evaluationError": s.Reason}}
			}
		}
		out = map[string]any{"apiVersion": in.APIVersion, "kind": in.Kind, "response": map[string]any{"uid": ar.UID, "decision": decision}}
	default:
		http.Error(w, "unknown review kind "+in.Kind, http.StatusBadRequest)
		return
	}
	b, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// kindOf: an object's kind as the authorizer was sent it ("-" when there is none).
func kindOf(raw json.RawMessage) string {
	var o struct{ APIVersion, Kind string }
	if json.Unmarshal(raw, &o) != nil || o.Kind == "" {
		return "-"
	}
	return o.APIVersion + "/" + o.Kind
}

func TestConditionalAuthorization(t *testing.T) {
	in, out := os.Getenv("COND_IN"), os.Getenv("COND_OUT")
	if in == "" || out == "" {
		t.Skip("COND_IN and COND_OUT name the scenario and result files")
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var scenarios []condScenario
	if err := json.Unmarshal(data, &scenarios); err != nil {
		t.Fatal(err)
	}
	az := &condAuthorizer{scenarios: map[string]*condScenario{}, evaluated: map[string]string{}}
	for i := range scenarios {
		if az.scenarios[scenarios[i].User] != nil {
			t.Fatalf("user %s is in two scenarios (the audit events are told apart by user)", scenarios[i].User)
		}
		az.scenarios[scenarios[i].User] = &scenarios[i]
	}
	// the webhook authorizer's server: the admission webhooks' certificate, its own handler
	h, err := newHooks()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(az.serve), TLSConfig: h.srv.TLSConfig.Clone()}
	go srv.ServeTLS(ln, "", "")
	defer srv.Close()

	dir := t.TempDir()
	files := map[string]string{
		"authz.kubeconfig": fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: oracle
  cluster: {server: "https://%s/authorize", certificate-authority-data: %s}
users:
- name: apiserver
contexts:
- name: oracle
  context: {cluster: oracle, user: apiserver}
current-context: oracle
`, ln.Addr().String(), base64.StdEncoding.EncodeToString(h.caPEM)),
		"authz.yaml": fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: oracle-conditional
  webhook:
    timeout: 5s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    cacheAuthorizedRequests: false
    cacheUnauthorizedRequests: false
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: %q}
    conditionsReview: {version: v1alpha1}
`, filepath.Join(dir, "authz.kubeconfig")),
		"audit.yaml": "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(dir, "audit.log")
	etcdURL := startEtcd(t)
	sv, err := startServer(t, etcdURL, "/conditional", &Scenario{},
		"--feature-gates=ConditionalAuthorization=true",
		"--authorization-config="+filepath.Join(dir, "authz.yaml"),
		"--audit-log-path="+logPath, "--audit-policy-file="+filepath.Join(dir, "audit.yaml"), "--audit-log-mode=blocking")
	if err != nil {
		t.Fatal(err)
	}
	defer sv.stop()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	results := make([]condResult, len(scenarios))
	for i := range scenarios {
		s := &scenarios[i]
		results[i] = condRun(ctx, sv, s)
		results[i].Name = s.Name
	}
	events, err := readAuditAnnotations(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range scenarios {
		results[i].Annotations = events[s.User]
		if results[i].Annotations == nil {
			results[i].Annotations = map[string]string{}
		}
		results[i].Evaluated = az.evaluated[s.User]
	}
	b, _ := json.MarshalIndent(results, "", " ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// condRun creates the scenario's objects (as the admin: the privileged group, never asked of the
// webhook) and sends its request as its user (impersonated; a dry run but for connect).
func condRun(ctx context.Context, sv *server, s *condScenario) (res condResult) {
	for _, o := range s.Objects {
		if err := sv.env.create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			res.Error = err.Error()
			return res
		}
	}
	if s.WaitDenied != "" {
		if err := waitDenied(ctx, sv, s); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	cfg := rest.CopyConfig(sv.admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: s.User, Groups: []string{"system:authenticated"}}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	r := client.Resource(schema.GroupVersionResource{Group: s.Resource.Group, Version: s.Resource.Version, Resource: s.Resource.Resource}).Namespace(s.Namespace)
	dry := []string{metav1.DryRunAll}
	u := &unstructured.Unstructured{Object: s.Body}
	switch s.Verb {
	case "create":
		_, err = r.Create(ctx, u, metav1.CreateOptions{DryRun: dry})
	case "update":
		_, err = r.Update(ctx, u, metav1.UpdateOptions{DryRun: dry})
	case "patch":
		b, _ := json.Marshal(s.Body)
		_, err = r.Patch(ctx, s.Name_, types.MergePatchType, b, metav1.PatchOptions{DryRun: dry})
	case "delete":
		err = r.Delete(ctx, s.Name_, metav1.DeleteOptions{DryRun: dry})
	case "connect":
		err = connect(ctx, cfg, s)
	default:
		res.Error = fmt.Sprintf("verb %q is not sent by the oracle", s.Verb)
		return res
	}
	if err == nil {
		res.Allowed = true
		return res
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		res.Error = err.Error()
		return res
	}
	st := status.Status()
	res.Code, res.Reason, res.Message = st.Code, string(st.Reason), st.Message
	return res
}

func waitDenied(ctx context.Context, sv *server, s *condScenario) error {
	r := sv.env.client.Resource(schema.GroupVersionResource{Group: s.Resource.Group, Version: s.Resource.Version, Resource: s.Resource.Resource}).Namespace(s.Namespace)
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, err = r.Create(ctx, &unstructured.Unstructured{Object: s.Body}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), s.WaitDenied) {
			return nil
		}
	}
	return fmt.Errorf("the policy did not come into force (last answer: %v)", err)
}

// connect POSTs to the subresource (the verb kubectl exec is authorized with: create).
func connect(ctx context.Context, cfg *rest.Config, s *condScenario) error {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &schema.GroupVersion{Group: s.Resource.Group, Version: s.Resource.Version}
	c.APIPath = "/api"
	if s.Resource.Group != "" {
		c.APIPath = "/apis"
	}
	c.NegotiatedSerializer = clientscheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return err
	}
	req := rc.Post().Namespace(s.Namespace).Resource(s.Resource.Resource).Name(s.Name_).SubResource(s.Subresource)
	for _, kv := range strings.Split(s.Query, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			req = req.Param(k, v)
		}
	}
	return req.Do(ctx).Error()
}

// readAuditAnnotations: the authorization.k8s.io/ annotations of each impersonated user's
// ResponseComplete (or Panic) event.
func readAuditAnnotations(path string) (map[string]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byUser := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Stage            string                     `json:"stage"`
			ImpersonatedUser *struct{ Username string } `json:"impersonatedUser"`
			Annotations      map[string]string          `json:"annotations"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, err
		}
		if e.ImpersonatedUser == nil || (e.Stage != "ResponseComplete" && e.Stage != "Panic") {
			continue
		}
		got := map[string]string{}
		for k, v := range e.Annotations {
			if strings.HasPrefix(k, "authorization.k8s.io/") {
				got[k] = v
			}
		}
		byUser[e.ImpersonatedUser.Username] = got
	}
	return byUser, sc.Err()
}
