// Command kyverno-oracle decides Kyverno policies on resources with Kyverno's own engines
// (github.com/kyverno/kyverno v1.19), the way `kyverno apply` / `kyverno test` do without a
// cluster: legacy kyverno.io/v1 ClusterPolicy/Policy through pkg/engine (Validate, each validate
// rule with the failure action Kyverno's webhook takes on it: actions.go; mutate rules
// are reported by Mutate, with the patched resource), policies.kyverno.io ValidatingPolicy/NamespacedValidatingPolicy
// through the CEL policy engine (pkg/cel/policies/vpol, with its autogen policies) and
// MutatingPolicy/NamespacedMutatingPolicy through the CEL mutating engine (mutating.go, pkg/cel/policies/mpol).
//
// Protocol: one JSON object a line on stdin (see request), one JSON object a line on stdout
// (see answer), in the same order. A line that cannot be decided answers with "error".
// `kyverno-oracle serve POLICIES.yaml` is Kyverno's validating webhook instead (serve.go).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"os"
	"strings"

	policiesv1beta1 "github.com/kyverno/api/api/policies.kyverno.io/v1beta1"
	kyvernov1 "github.com/kyverno/kyverno/api/kyverno/v1"
	kyvernov2 "github.com/kyverno/kyverno/api/kyverno/v2"
	celengine "github.com/kyverno/kyverno/pkg/cel/engine"
	"github.com/kyverno/kyverno/pkg/cel/libs"
	"github.com/kyverno/kyverno/pkg/cel/matching"
	vpolcompiler "github.com/kyverno/kyverno/pkg/cel/policies/vpol/compiler"
	vpolengine "github.com/kyverno/kyverno/pkg/cel/policies/vpol/engine"
	"github.com/kyverno/kyverno/pkg/config"
	"github.com/kyverno/kyverno/pkg/engine"
	engineapi "github.com/kyverno/kyverno/pkg/engine/api"
	"github.com/kyverno/kyverno/pkg/engine/factories"
	"github.com/kyverno/kyverno/pkg/engine/jmespath"
	"github.com/kyverno/kyverno/pkg/engine/policycontext"
	imageverifycache "github.com/kyverno/kyverno/pkg/image/verification/cache"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// request is one line of input.
type request struct {
	// Policy: decoded once per distinct text (policies below), not once per request.
	Policy   json.RawMessage `json:"policy"`
	Resource map[string]any  `json:"resource"`
	// OldResource is the object before an UPDATE (default: the resource itself, as `kyverno test`
	// does) or the object deleted by a DELETE (default: the resource).
	OldResource map[string]any `json:"oldResource,omitempty"`
	// Operation: CREATE (default), UPDATE, DELETE.
	Operation string `json:"operation,omitempty"`
	// NamespaceLabels: the labels of the resource's Namespace (namespaceSelector, namespaceObject).
	NamespaceLabels map[string]string          `json:"namespaceLabels,omitempty"`
	UserInfo        *authenticationv1.UserInfo `json:"userInfo,omitempty"`
	// Resource plural (default: the apimachinery guess from the kind, as the CLI does offline).
	Plural string `json:"plural,omitempty"`
	// Subresource of the request (legacy policies: `status` for a rule matching `Node/status`).
	Subresource string `json:"subresource,omitempty"`
	// Variables for legacy policies (a kyverno-test values file's per-resource values).
	Variables map[string]any `json:"variables,omitempty"`
	// ConfigMaps: the cluster's ConfigMaps for legacy policies' configMap context entries (present,
	// even empty: the entries are resolved, a missing one is an error; absent: they are not loaded).
	ConfigMaps []map[string]any `json:"configMaps,omitempty"`
	// Namespace: the request's Namespace object, served to apiCall context entries at
	// /api/v1/namespaces/<name> (absent: apiCall entries are not loaded).
	Namespace map[string]any `json:"namespace,omitempty"`
}

type ruleResult struct {
	Policy string `json:"policy"`
	Rule   string `json:"rule"`
	Status string `json:"status"`
	// Message: the rule's message (a failure's reason, an error's text).
	Message string `json:"message,omitempty"`
	// Generated: a rule or policy Kyverno generated from the source (autogen for Pod controllers).
	Generated bool `json:"generated,omitempty"`
	// Action: a legacy validate rule's failure action for this request as Kyverno's webhook takes it
	// (actions.go): Enforce (a failure is denied) or Audit.
	Action string `json:"action,omitempty"`
}

type answer struct {
	Results []ruleResult `json:"results"`
	// Patched: the resource after the policy's mutate rules or MutatingPolicy (none: no mutation applied).
	Patched map[string]any `json:"patched,omitempty"`
	Error   string         `json:"error,omitempty"`
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		if err := serve(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "kyverno-oracle serve:", err)
			os.Exit(1)
		}
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	cfg := config.NewDefaultConfiguration(false)
	jp := jmespath.New(cfg)
	isCluster := false
	eng := engine.NewEngine(cfg, jp, nil, nil, imageverifycache.DisabledImageVerifyCache(), factories.DefaultContextLoaderFactory(nil), nil, &isCluster)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var req request
		var a answer
		// as Kyverno reads objects (unstructured, `kyverno test`'s YAML): integers stay int64, not
		// float64 (a sysctl value 943 must not print as 9.43E+02 to a pattern)
		if err := utiljson.Unmarshal([]byte(line), &req); err != nil {
			a.Error = "bad request: " + err.Error()
		} else {
			a = decide(eng, jp, cfg, &req)
		}
		if a.Results == nil {
			a.Results = []ruleResult{}
		}
		_ = enc.Encode(a)
		out.Flush()
	}
}

// decodedPolicy is a request's policy as decide reads it: the kind, the typed policy of that kind
// and its JSON (the key of the compiled CEL policies), or why it could not be decoded.
type decodedPolicy struct {
	apiVersion, kind string
	raw              string
	legacy           kyvernov1.PolicyInterface
	vpol             policiesv1beta1.ValidatingPolicyLike
	mpol             policiesv1beta1.MutatingPolicyLike
	err              string
}

// policies: each policy text decoded once for the requests that follow (a differential sends the
// same policy with every request; decoding it, three JSON passes, was repeated per request). The
// typed policy is shared by those requests as `kyverno apply` shares it across its resources.
var policies = map[string]*decodedPolicy{}

func decodePolicy(text []byte) *decodedPolicy {
	if len(text) == 0 {
		// no policy in the request: as a null one (an unsupported policy)
		text = []byte("null")
	}
	if d, ok := policies[string(text)]; ok {
		return d
	}
	d := &decodedPolicy{}
	if len(policies) >= 256 {
		clear(policies)
	}
	policies[string(text)] = d
	// as Kyverno reads objects: integers stay int64 (utiljson), then the typed policy from its JSON
	var m map[string]any
	if err := utiljson.Unmarshal(text, &m); err != nil {
		d.err = "bad request: " + err.Error()
		return d
	}
	raw, err := json.Marshal(m)
	if err != nil {
		d.err = err.Error()
		return d
	}
	d.raw = string(raw)
	d.apiVersion, _ = m["apiVersion"].(string)
	d.kind, _ = m["kind"].(string)
	group, _, _ := strings.Cut(d.apiVersion, "/")
	switch {
	case group == "kyverno.io" && (d.kind == "ClusterPolicy" || d.kind == "Policy"):
		if d.kind == "ClusterPolicy" {
			p := &kyvernov1.ClusterPolicy{}
			err = json.Unmarshal(raw, p)
			d.legacy = p
		} else {
			p := &kyvernov1.Policy{}
			err = json.Unmarshal(raw, p)
			d.legacy = p
		}
	case group == "policies.kyverno.io" && (d.kind == "ValidatingPolicy" || d.kind == "NamespacedValidatingPolicy"):
		if d.kind == "ValidatingPolicy" {
			p := &policiesv1beta1.ValidatingPolicy{}
			err = json.Unmarshal(raw, p)
			d.vpol = p
		} else {
			p := &policiesv1beta1.NamespacedValidatingPolicy{}
			err = json.Unmarshal(raw, p)
			d.vpol = p
		}
	case group == "policies.kyverno.io" && (d.kind == "MutatingPolicy" || d.kind == "NamespacedMutatingPolicy"):
		if d.kind == "MutatingPolicy" {
			p := &policiesv1beta1.MutatingPolicy{}
			err = json.Unmarshal(raw, p)
			d.mpol = p
		} else {
			p := &policiesv1beta1.NamespacedMutatingPolicy{}
			err = json.Unmarshal(raw, p)
			d.mpol = p
		}
	default:
		d.err = fmt.Sprintf("unsupported policy %s %s", d.apiVersion, d.kind)
	}
	if err != nil {
		d.err = "policy: " + err.Error()
	}
	return d
}

func decide(eng engineapi.Engine, jp jmespath.Interface, cfg config.Configuration, req *request) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	d := decodePolicy(req.Policy)
	switch {
	case d.err != "":
		return answer{Error: d.err}
	case d.legacy != nil:
		return legacy(eng, jp, cfg, d.legacy, req)
	case d.vpol != nil:
		return validatingPolicy(d.vpol, d.raw, req)
	default:
		return mutatingPolicy(d.mpol, d.raw, req)
	}
}

func operation(req *request) string {
	switch req.Operation {
	case "", "CREATE":
		return "CREATE"
	case "UPDATE", "DELETE":
		return req.Operation
	}
	return ""
}

// legacy follows the CLI's makePolicyContext + Mutate/Validate (cmd/cli/kubectl-kyverno/processor).
func legacy(eng engineapi.Engine, jp jmespath.Interface, cfg config.Configuration, policy kyvernov1.PolicyInterface, req *request) answer {
	op := operation(req)
	if op == "" {
		return answer{Error: "invalid operation " + req.Operation}
	}
	resource := unstructured.Unstructured{Object: req.Resource}
	old := resource.DeepCopy()
	if req.OldResource != nil {
		old = &unstructured.Unstructured{Object: req.OldResource}
	}
	newResource := resource
	if op == "DELETE" {
		newResource = unstructured.Unstructured{}
		if req.OldResource == nil {
			old = resource.DeepCopy()
		}
	}
	var info *kyvernov2.RequestInfo
	if req.UserInfo != nil {
		info = &kyvernov2.RequestInfo{AdmissionUserInfo: *req.UserInfo}
	}
	pc, err := policycontext.NewPolicyContext(jp, newResource, kyvernov1.AdmissionOperation(op), info, cfg)
	if err != nil {
		return answer{Error: "policy context: " + err.Error()}
	}
	if op != "CREATE" {
		pc = pc.WithOldResource(*old)
		if err := pc.JSONContext().AddOldResource(old.Object); err != nil {
			return answer{Error: err.Error()}
		}
	}
	gvk := resource.GroupVersionKind()
	if op == "DELETE" {
		gvk = old.GroupVersionKind()
	}
	pc = pc.WithPolicy(policy).WithNamespaceLabels(req.NamespaceLabels).WithResourceKind(gvk, req.Subresource)
	if req.ConfigMaps != nil || req.Namespace != nil {
		// the engine with this request's cluster: a resolver of its ConfigMaps, a client of its Namespace
		cms, err := decodeConfigMaps(req.ConfigMaps)
		if err != nil {
			return answer{Error: err.Error()}
		}
		var resolver engineapi.ConfigmapResolver
		if req.ConfigMaps != nil {
			resolver = cms
		}
		var client engineapi.Client
		if req.Namespace != nil {
			client = cluster{namespace: req.Namespace}
		}
		isCluster := false
		eng = engine.NewEngine(cfg, jp, client, nil, imageverifycache.DisabledImageVerifyCache(), factories.DefaultContextLoaderFactory(resolver), nil, &isCluster)
	}
	for k, v := range req.Variables {
		if err := pc.JSONContext().AddVariable(k, v); err != nil {
			return answer{Error: fmt.Sprintf("variable %s: %v", k, err)}
		}
	}
	var a answer
	add := func(r engineapi.EngineResponse, enforced map[string]bool) {
		for _, rule := range r.PolicyResponse.Rules {
			action := ""
			if enforced != nil {
				action = "Audit"
				if enforced[rule.Name()] {
					action = "Enforce"
				}
			}
			a.Results = append(a.Results, ruleResult{
				Policy:    policy.GetName(),
				Rule:      rule.Name(),
				Status:    string(rule.Status()),
				Message:   rule.Message(),
				Generated: strings.HasPrefix(rule.Name(), "autogen-"),
				Action:    action,
			})
		}
	}
	spec := policy.GetSpec()
	if spec.HasMutate() {
		r := eng.Mutate(context.Background(), pc)
		add(r, nil)
		a.Patched = r.PatchedResource.Object
	}
	if spec.HasValidate() {
		object := resource
		if op == "DELETE" {
			object = *old
		}
		enforced, err := enforcedRules(policy, object, req.Plural, req.Subresource, req.NamespaceLabels)
		if err != nil {
			return answer{Error: "policy cache: " + err.Error()}
		}
		add(eng.Validate(context.Background(), pc), enforced)
	}
	return a
}

// celRequest is the admission request the CLI builds for a CEL policy (its AdmissionRequestShape and
// celengine.Request: the operation's object and old object, the resource's GVK, the plural guessed
// from the kind unless given, the user; `cluster`: what the CEL libraries read, the CLI's fake) and
// the Namespace resolver the engines read namespaceObject and namespace selectors from: the
// request's Namespace with the labels given.
func celRequest(req *request, cluster libs.Context) (celengine.EngineRequest, func(string) *corev1.Namespace, error) {
	op := operation(req)
	if op == "" {
		return celengine.EngineRequest{}, nil, fmt.Errorf("invalid operation %s", req.Operation)
	}
	resource := &unstructured.Unstructured{Object: req.Resource}
	var object, oldObject runtime.Object
	switch op {
	case "CREATE":
		object = resource
	case "UPDATE":
		object = resource
		oldObject = resource.DeepCopy()
		if req.OldResource != nil {
			oldObject = &unstructured.Unstructured{Object: req.OldResource}
		}
	case "DELETE":
		oldObject = resource.DeepCopy()
		if req.OldResource != nil {
			oldObject = &unstructured.Unstructured{Object: req.OldResource}
			resource = oldObject.(*unstructured.Unstructured)
		}
	}
	namespaces := func(name string) *corev1.Namespace {
		if name == "" {
			return nil
		}
		return &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: req.NamespaceLabels},
		}
	}
	gvk := resource.GroupVersionKind()
	plural := req.Plural
	if plural == "" {
		guessed, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Kind: gvk.Kind})
		plural = guessed.Resource
	}
	gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: plural}
	var user authenticationv1.UserInfo
	if req.UserInfo != nil {
		user = *req.UserInfo
	}
	r := celengine.Request(cluster, gvk, gvr, "", resource.GetName(), resource.GetNamespace(), admissionv1.Operation(op), user, object, oldObject, false, nil)
	return r, namespaces, nil
}

// compiled is a CEL policy's compiled provider with the policy it was compiled from.
type compiled[P, E any] struct {
	policy   P
	provider E
}

// compiledOnce: each policy (by its JSON) compiled once for the requests that follow, as the CLI
// compiles it once for all its resources. Compiling (the CEL environments) was 40% of the
// oracle's CPU in the Kyverno differential when it was done per request.
func compiledOnce[P, E any](cache map[string]compiled[P, E], raw string, policy P, compile func() (E, error)) (compiled[P, E], error) {
	if c, ok := cache[raw]; ok {
		return c, nil
	}
	provider, err := compile()
	if err != nil {
		return compiled[P, E]{}, err
	}
	if len(cache) >= 256 {
		clear(cache)
	}
	cache[raw] = compiled[P, E]{policy, provider}
	return cache[raw], nil
}

var vpolProviders = map[string]compiled[policiesv1beta1.ValidatingPolicyLike, vpolengine.Provider]{}

// validatingPolicy follows the CLI's ValidatingPolicy path: NewProvider (compile + autogen),
// vpolengine.NewEngine with a matcher and the namespace resolver, celengine.Request.
func validatingPolicy(policy policiesv1beta1.ValidatingPolicyLike, raw string, req *request) answer {
	r, namespaces, err := celRequest(req, libs.NewFakeContextProvider())
	if err != nil {
		return answer{Error: err.Error()}
	}
	cached, err := compiledOnce(vpolProviders, raw, policy, func() (vpolengine.Provider, error) {
		return vpolengine.NewProvider(vpolcompiler.NewCompiler(), []policiesv1beta1.ValidatingPolicyLike{policy}, nil)
	})
	if err != nil {
		return answer{Error: err.Error()}
	}
	policy = cached.policy
	eng := vpolengine.NewEngine(cached.provider, namespaces, matching.NewMatcher())
	reps, err := eng.Handle(context.Background(), r, nil)
	if err != nil {
		return answer{Error: err.Error()}
	}
	var a answer
	for _, p := range reps.Policies {
		a.Results = append(a.Results, celResults(p.Policy.GetName(), p.Policy != policy, p.Rules)...)
	}
	return a
}

// celResults: a CEL policy's rule responses (`generated`: a policy Kyverno's autogen made of the source).
func celResults(policy string, generated bool, rules []engineapi.RuleResponse) []ruleResult {
	var out []ruleResult
	for _, rule := range rules {
		out = append(out, ruleResult{Policy: policy, Rule: rule.Name(), Status: string(rule.Status()), Message: rule.Message(), Generated: generated})
	}
	return out
}
