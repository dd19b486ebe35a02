package oracle

// The candidate side of the audit-log fixture (src/impact/README.md, "Checked against a real apiserver"):
// the apiserver itself decides what a candidate chain would have done with each write of the
// log. testdata/audit/candidate.json holds the candidate (admission objects, the params they
// read, and each candidate webhook's answer). Before the traffic, TestAuditLog installs it
// guarded by candidateGuard (a first matchCondition on every policy and webhook), so that it
// acts only on dry-run copies sent by the replayer; every write of the traffic is then sent
// three times: two copies (the replayer impersonating the write's user, uid and groups, with the
// extra copyExtra, as a dry run, the same verb, object or patch), then the write itself. The
// apiserver's answers to the copies are the candidate's decisions in both modes of analyzeImpact:
// the "overlay" copy meets the baseline chain and the candidate together (the candidate as an
// overlay of the cluster's chain); the "replace" copy meets the candidate alone (the baseline's
// own first matchCondition, baselineGuard, skips it). The audit policy logs the replayer at
// Metadata; its events (their audit annotations) are taken out of the log into the decisions, so
// audit.log holds the traffic alone.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// The replayer's user (a static token, system:masters so that it may impersonate).
const replayer = "candidate-replayer"

// copyExtra: the userInfo extra the replayer adds to each copy (its value: the mode); the guards look for it.
const copyExtra = "workbench.example.com/candidate-copy"

// The candidate's modes, in the order the copies are sent (analyzeImpact's options.candidate).
var candidateModes = []string{"overlay", "replace"}

// candidateGuard: the candidate acts on the replayer's dry-run copies alone (not on the traffic,
// whose own dry runs included). has() first: a request without extras has no `extra` field.
const candidateGuard = "has(request.userInfo.extra) && '" + copyExtra + "' in request.userInfo.extra && request.dryRun == true"

// baselineGuard: the baseline acts on everything but the "replace" copies (true for every request
// of the traffic, so it changes nothing a replay of the log decides).
const baselineGuard = "!has(request.userInfo.extra) || !('" + copyExtra + "' in request.userInfo.extra) || !('replace' in request.userInfo.extra['" + copyExtra + "'])"

// candidateDecisions: candidate-decisions.json, the answers to each write's copies by mode.
type candidateDecisions struct {
	Overlay []candidateDecision `json:"overlay"`
	Replace []candidateDecision `json:"replace"`
}

func (c *candidateDecisions) mode(m string) *[]candidateDecision {
	if m == "replace" {
		return &c.Replace
	}
	return &c.Overlay
}

// candidateFile: the candidate (testdata/audit/candidate.json).
type candidateFile struct {
	Objects  []map[string]any           `json:"objects"`
	Webhooks map[string]json.RawMessage `json:"webhooks"`
}

// candidateDecision: the apiserver's answer to one write's dry-run copy.
type candidateDecision struct {
	// Line: the write's event in audit.log (1-based).
	Line int `json:"line"`
	// Request: what was sent, for people ("patch configmaps shop/settings by bob (application/merge-patch+json)").
	Request  string   `json:"request"`
	Allowed  bool     `json:"allowed"`
	Code     int32    `json:"code,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Message  string   `json:"message,omitempty"`
	Warnings []string `json:"warnings"`
	// Calls: the webhooks the apiserver called (names, sorted: validating webhooks are called in parallel).
	Calls []string `json:"calls"`
	// Annotations: the copy's audit annotations, but for the authorizer's and the latency tracker's.
	Annotations map[string]string `json:"annotations"`
	// Denials: every ValidatingAdmissionPolicy binding that denied ("policy/binding", sorted), from the
	// validation_failure annotation (bindings with the Audit action). When there are several, the
	// apiserver's message names any one of them: it evaluates policies in the order of a Go map
	// (calculatePolicyData in k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_source.go).
	Denials []string `json:"denials,omitempty"`
}

const validationFailureKey = "validation.policy.admission.k8s.io/validation_failure"

type validationFailure struct {
	Message           string   `json:"message"`
	Policy            string   `json:"policy"`
	Binding           string   `json:"binding"`
	ExpressionIndex   int      `json:"expressionIndex"`
	ValidationActions []string `json:"validationActions"`
}

// withDenials fills in Denials from the annotations.
func (d *candidateDecision) withDenials() {
	var failures []validationFailure
	if err := json.Unmarshal([]byte(d.Annotations[validationFailureKey]), &failures); err != nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range failures {
		for _, a := range f.ValidationActions {
			if k := f.Policy + "/" + f.Binding; a == "Deny" && !seen[k] {
				seen[k] = true
				d.Denials = append(d.Denials, k)
			}
		}
	}
	sort.Strings(d.Denials)
}

// canonical: what two runs must agree on. The validation_failure entries sorted, and, when
// several bindings denied, not which one the message names (see Denials).
func (d candidateDecision) canonical() string {
	c := d
	c.Annotations = map[string]string{}
	for k, v := range d.Annotations {
		c.Annotations[k] = v
	}
	var failures []validationFailure
	if json.Unmarshal([]byte(c.Annotations[validationFailureKey]), &failures) == nil && len(failures) > 0 {
		sort.SliceStable(failures, func(i, j int) bool {
			a, b := failures[i], failures[j]
			return a.Policy+"/"+a.Binding < b.Policy+"/"+b.Binding || (a.Policy+"/"+a.Binding == b.Policy+"/"+b.Binding && a.ExpressionIndex < b.ExpressionIndex)
		})
		v, _ := json.Marshal(failures)
		c.Annotations[validationFailureKey] = string(v)
	}
	if len(c.Denials) > 1 {
		c.Message = fmt.Sprintf("(one of %d denials)", len(c.Denials))
	}
	b, _ := json.Marshal(c)
	return string(b)
}

func readCandidate(path string) (*candidateFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c candidateFile
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// guarded: the candidate's objects as installed: candidateGuard first in every policy's and
// webhook's matchConditions, webhooks pointed at the test's server with their answers; in
// setupOrder (params before policies before bindings before webhooks).
func (c *candidateFile) guarded(h *hooks) ([]map[string]any, error) {
	guard := map[string]any{"name": "candidate-copy", "expression": candidateGuard}
	var out []map[string]any
	for _, o := range c.Objects {
		o = runtime.DeepCopyJSON(o)
		kind, _ := o["kind"].(string)
		name, _ := o["metadata"].(map[string]any)["name"].(string)
		switch kind {
		case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
			spec, _ := o["spec"].(map[string]any)
			conditions, _ := spec["matchConditions"].([]any)
			spec["matchConditions"] = append([]any{guard}, conditions...)
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			list, _ := o["webhooks"].([]any)
			for _, w := range list {
				wh := w.(map[string]any)
				webhook, _ := wh["name"].(string)
				conditions, _ := wh["matchConditions"].([]any)
				wh["matchConditions"] = append([]any{guard}, conditions...)
				r, err := parseResponse(c.Webhooks[webhook])
				if err != nil {
					return nil, fmt.Errorf("webhook %s: %w", webhook, err)
				}
				u, err := h.urlFor(name, webhook, r)
				if err != nil {
					return nil, err
				}
				wh["clientConfig"] = map[string]any{"url": u, "caBundle": base64.StdEncoding.EncodeToString(h.caPEM)}
			}
		}
		out = append(out, o)
	}
	rank := func(o map[string]any) int {
		if r, ok := setupOrder[o["kind"].(string)]; ok {
			return r
		}
		return 1
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out, nil
}

// identities: who each traffic user is as admission sees them (the replayer impersonates them).
func identities() map[string]rest.ImpersonationConfig {
	out := map[string]rest.ImpersonationConfig{}
	for _, u := range auditUsers {
		out[u[1]] = rest.ImpersonationConfig{UserName: u[1], UID: u[2], Groups: []string{u[3]}}
	}
	out[impersonated] = rest.ImpersonationConfig{UserName: impersonated, Groups: []string{"shop-viewers"}}
	return out
}

// sendCopy sends a write's dry-run copy as the replayer impersonating the write's user and
// returns the apiserver's answer (Line and Annotations are filled in later).
func sendCopy(ctx context.Context, replayerConfig *rest.Config, h *hooks, st trafficStep, mode string) (candidateDecision, error) {
	cfg := rest.CopyConfig(replayerConfig)
	who := identities()[st.user]
	who.Extra = map[string][]string{copyExtra: {mode}}
	cfg.Impersonate = who
	warnings := &warningRecorder{}
	cfg.WarningHandler = warnings
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return candidateDecision{}, err
	}
	h.takeCalls()
	copied := st
	copied.dryRun = true
	err = send(ctx, client, copied)
	d := candidateDecision{Request: describeStep(st), Allowed: err == nil, Warnings: append([]string{}, warnings.list...), Calls: []string{}}
	sort.Strings(d.Warnings)
	for _, c := range h.takeCalls() {
		d.Calls = append(d.Calls, c.Webhook)
	}
	sort.Strings(d.Calls)
	if err != nil {
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			return d, fmt.Errorf("the copy of %s: %w", d.Request, err)
		}
		s := status.Status()
		d.Code, d.Reason, d.Message = s.Code, string(s.Reason), s.Message
	}
	return d, nil
}

func describeStep(st trafficStep) string {
	where := st.name
	if st.namespace != "" {
		where = st.namespace + "/" + st.name
	}
	s := fmt.Sprintf("%s %s %s by %s", st.verb, st.resource, where, st.user)
	if st.patch != "" {
		s += fmt.Sprintf(" (%s)", st.patch)
	}
	if st.dryRun {
		s += " (dry run)"
	}
	return s
}

// namespaceProbe: a policy that tells the replayer which version of a Namespace admission sees.
// Admission reads Namespaces (namespaceSelector, namespaceObject) from an informer, which may lag
// a write just made: a copy sent right after the write that relabels a Namespace could meet the
// old labels, as the live request after it need not. It denies the replayer's dry-run Lease
// creates marked "probe" with the resourceVersion of their namespaceObject.
func namespaceProbe() []map[string]any {
	marked := "has(request.userInfo.extra) && '" + copyExtra + "' in request.userInfo.extra && 'probe' in request.userInfo.extra['" + copyExtra + "'] && object.metadata.name == 'namespace-probe'"
	return []map[string]any{
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "oracle-namespace-probe"},
			"spec": map[string]any{"failurePolicy": "Fail",
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"coordination.k8s.io"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"leases"}}}},
				"matchConditions":  []any{map[string]any{"name": "probe", "expression": marked}},
				"validations":      []any{map[string]any{"expression": "false", "messageExpression": "'namespace resourceVersion ' + namespaceObject.metadata.resourceVersion + ';'"}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "oracle-namespace-probe"},
			"spec": map[string]any{"policyName": "oracle-namespace-probe", "validationActions": []any{"Deny"}}},
	}
}

// paramProbe: a policy that tells the replayer which version of a param ("namespace/name", a
// ConfigMap) admission sees: params come from an informer too. It denies the replayer's dry-run
// Lease creates named param-probe-<namespace>-<name> (in oracle-probe) with the param's resourceVersion.
func paramProbe(param string) []map[string]any {
	ns, name, _ := strings.Cut(param, "/")
	probe := "param-probe-" + ns + "-" + name
	marked := "has(request.userInfo.extra) && '" + copyExtra + "' in request.userInfo.extra && 'probe' in request.userInfo.extra['" + copyExtra + "'] && object.metadata.name == '" + probe + "'"
	return []map[string]any{
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "oracle-" + probe},
			"spec": map[string]any{"failurePolicy": "Fail", "paramKind": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"coordination.k8s.io"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"leases"}}}},
				"matchConditions":  []any{map[string]any{"name": "probe", "expression": marked}},
				"validations":      []any{map[string]any{"expression": "false", "messageExpression": "'param resourceVersion ' + params.metadata.resourceVersion + ';'"}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "oracle-" + probe},
			"spec": map[string]any{"policyName": "oracle-" + probe, "validationActions": []any{"Deny"},
				// Allow: a binding whose param is missing with Deny fails before its matchConditions, for every request it matches
				"paramRef": map[string]any{"name": name, "namespace": ns, "parameterNotFoundAction": "Allow"}}},
	}
}

var seenVersion = regexp.MustCompile(`namespace resourceVersion (\d+);`)
var seenParam = regexp.MustCompile(`param resourceVersion (\d+);`)

// probeUntil creates the replayer's dry-run Lease named name in namespace until done accepts the
// answer (10 s at most).
func probeUntil(ctx context.Context, cfg *rest.Config, namespace, name string, done func(error) bool) error {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	leases := client.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).Namespace(namespace)
	lease := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": name}}}
	var last error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, last = leases.Create(ctx, lease, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if done(last) {
			return nil
		}
	}
	return fmt.Errorf("admission did not answer the probe %s/%s as expected within 10 s (last answer: %v)", namespace, name, last)
}

// waitParamSeen waits until admission's params informer holds a ConfigMap ("namespace/name") as it is stored now.
func waitParamSeen(ctx context.Context, e *env, replayerConfig *rest.Config, param string) error {
	ns, name, _ := strings.Cut(param, "/")
	cm, err := e.client.Resource(trafficResources["configmaps"]).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	want, _ := strconv.Atoi(cm.GetResourceVersion())
	cfg := rest.CopyConfig(replayerConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: replayer, Groups: []string{"system:masters"}, Extra: map[string][]string{copyExtra: {"probe"}}}
	return probeUntil(ctx, cfg, "oracle-probe", "param-probe-"+ns+"-"+name, func(err error) bool {
		m := seenParam.FindStringSubmatch(fmt.Sprint(err))
		seen := 0
		if m != nil {
			seen, _ = strconv.Atoi(m[1])
		}
		return seen >= want
	})
}

// waitPolicySeen waits until admission holds the baseline policy team-label in the version whose
// denial says marker: the replayer's dry-run Lease in apps (no extra: the candidate stays out).
func waitPolicySeen(ctx context.Context, replayerConfig *rest.Config, marker string) error {
	return probeUntil(ctx, replayerConfig, "apps", "policy-probe", func(err error) bool { return strings.Contains(fmt.Sprint(err), marker) })
}

// waitNamespaceSeen waits until admission sees the Namespace as it is stored now.
func waitNamespaceSeen(ctx context.Context, e *env, replayerConfig *rest.Config, name string) error {
	ns, err := e.client.Resource(trafficResources["namespaces"]).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	want, _ := strconv.Atoi(ns.GetResourceVersion())
	cfg := rest.CopyConfig(replayerConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: replayer, Groups: []string{"system:masters"}, Extra: map[string][]string{copyExtra: {"probe"}}}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	leases := client.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).Namespace(name)
	lease := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "namespace-probe"}}}
	var last error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, last = leases.Create(ctx, lease, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if m := seenVersion.FindStringSubmatch(fmt.Sprint(last)); m != nil {
			if seen, _ := strconv.Atoi(m[1]); seen >= want {
				return nil
			}
		}
	}
	return fmt.Errorf("admission did not see Namespace %s at resourceVersion %d within 10 s (last answer: %v)", name, want, last)
}

// splitLog separates the replayer's events (in order) from the traffic's (the log as the
// cluster's users wrote it).
func splitLog(raw []byte) (traffic []string, copies []map[string]any, err error) {
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			return nil, nil, fmt.Errorf("audit log line %d: %w", i+1, err)
		}
		if user, _ := e["user"].(map[string]any); user["username"] == replayer {
			if ref, _ := e["objectRef"].(map[string]any); ref["resource"] != "leases" { // not a namespace probe
				copies = append(copies, e)
			}
			continue
		}
		traffic = append(traffic, line)
	}
	return traffic, copies, nil
}

// annotationsOf: a copy's audit annotations that admission wrote (not the authorizer's, not
// the latency tracker's, which appears only when a request is slow).
func annotationsOf(e map[string]any) map[string]string {
	out := map[string]string{}
	a, _ := e["annotations"].(map[string]any)
	for k, v := range a {
		if strings.HasPrefix(k, "authorization.k8s.io/") || strings.HasPrefix(k, "apiserver.latency.k8s.io/") {
			continue
		}
		out[k], _ = v.(string)
	}
	return out
}

// eventShape: what must stay equal between two runs of the traffic (not IDs, times, versions).
func eventShape(line string) string {
	var e struct {
		Verb             string
		User             struct{ Username string }
		ImpersonatedUser *struct{ Username string }
		ObjectRef        struct{ Resource, Namespace, Name string }
		ResponseStatus   struct{ Code int }
	}
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		return "not JSON: " + err.Error()
	}
	who := e.User.Username
	if e.ImpersonatedUser != nil {
		who += " as " + e.ImpersonatedUser.Username
	}
	return fmt.Sprintf("%s %s %s/%s by %s: %d", e.Verb, e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name, who, e.ResponseStatus.Code)
}

// checkFixture compares a run with the fixture in dir: the log's events (their shape) and the
// candidate's decisions (exactly). The differences, one per line; none = the fixture is current.
func checkFixture(dir string, traffic []string, decisions []byte) ([]string, error) {
	var diffs []string
	old, err := os.ReadFile(filepath.Join(dir, "audit.log"))
	if err != nil {
		return nil, err
	}
	oldLines := strings.Split(strings.TrimSpace(string(old)), "\n")
	for i := 0; i < len(oldLines) || i < len(traffic); i++ {
		var a, b string
		if i < len(oldLines) {
			a = eventShape(oldLines[i])
		}
		if i < len(traffic) {
			b = eventShape(traffic[i])
		}
		if a != b {
			diffs = append(diffs, fmt.Sprintf("audit.log line %d: fixture %q, this run %q", i+1, a, b))
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "candidate-decisions.json"))
	if err != nil {
		return nil, err
	}
	var fa, fb candidateDecisions
	if err := json.Unmarshal(want, &fa); err != nil {
		return nil, fmt.Errorf("candidate-decisions.json: %w", err)
	}
	if err := json.Unmarshal(decisions, &fb); err != nil {
		return nil, err
	}
	for _, m := range candidateModes {
		a, b := *fa.mode(m), *fb.mode(m)
		for i := 0; i < len(a) || i < len(b); i++ {
			var x, y string
			if i < len(a) {
				x = a[i].canonical()
			}
			if i < len(b) {
				y = b[i].canonical()
			}
			if x != y {
				diffs = append(diffs, fmt.Sprintf("candidate-decisions.json %s[%d]:\n  fixture:  %s\n  this run: %s", m, i, x, y))
			}
		}
	}
	return diffs, nil
}
