package oracle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// env: the admin's client and the server's resources (discovery).
type env struct {
	client dynamic.Interface
	// byKind: "group/version/Kind" → resource and scope.
	byKind map[string]resourceInfo
	// scoped: "group/version/resource" → namespaced.
	scoped map[string]bool
}

type resourceInfo struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

func newEnv(cfg *rest.Config) (*env, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	e := &env{client: client, byKind: map[string]resourceInfo{}, scoped: map[string]bool{}}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			e.byKind[gv.String()+"/"+r.Kind] = resourceInfo{gv.WithResource(r.Name), r.Namespaced}
			e.scoped[gv.WithResource(r.Name).String()] = r.Namespaced
		}
	}
	return e, nil
}

func (e *env) namespaced(r gvr) bool {
	return e.scoped[schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}.String()]
}

// resourceFor: the client for an object's resource (in its namespace, "default" when it has none).
func (e *env) resourceFor(u *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	info, ok := e.byKind[u.GroupVersionKind().GroupVersion().String()+"/"+u.GetKind()]
	if !ok {
		return nil, fmt.Errorf("the apiserver does not serve %s %s", u.GetAPIVersion(), u.GetKind())
	}
	if !info.namespaced {
		return e.client.Resource(info.gvr), nil
	}
	ns := u.GetNamespace()
	if ns == "" {
		ns = "default"
	}
	return e.client.Resource(info.gvr).Namespace(ns), nil
}

func (e *env) create(ctx context.Context, obj map[string]any) error {
	u := &unstructured.Unstructured{Object: obj}
	ri, err := e.resourceFor(u)
	if err != nil {
		return err
	}
	if _, err := ri.Create(ctx, u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

// delete removes an object as the admin and checks that it is gone from storage.
func (e *env) delete(ctx context.Context, obj map[string]any) error {
	u := &unstructured.Unstructured{Object: obj}
	ri, err := e.resourceFor(u)
	if err != nil {
		return err
	}
	if err := ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	if _, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s: still there (%v)", u.GetKind(), u.GetName(), err)
	}
	return nil
}

var setupOrder = map[string]int{
	"Namespace":                        0,
	"ValidatingAdmissionPolicy":        3,
	"MutatingAdmissionPolicy":          3,
	"ValidatingAdmissionPolicyBinding": 4,
	"MutatingAdmissionPolicyBinding":   4,
	"ValidatingWebhookConfiguration":   5,
	"MutatingWebhookConfiguration":     5,
}

// setUp creates the scenario's objects (see the package comment for the order) and returns
// those it created (also on an error), for the cleanup.
func setUp(ctx context.Context, e *env, h *hooks, s *Scenario) ([]map[string]any, error) {
	stages := make([][]map[string]any, 6)
	for _, o := range s.Objects {
		kind, _ := o["kind"].(string)
		stage, ok := setupOrder[kind]
		if !ok {
			stage = 1
		}
		stages[stage] = append(stages[stage], o)
	}
	stages[0] = append(stages[0], map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "oracle-probe"}})
	switch s.Request.Operation {
	case "UPDATE":
		if s.Request.OldObject != nil {
			stages[2] = append(stages[2], s.Request.OldObject)
		}
	case "DELETE":
		existing := s.Request.OldObject
		if existing == nil {
			existing = s.Request.Object
		}
		if existing != nil {
			stages[2] = append(stages[2], existing)
		}
	}
	var created []map[string]any
	for i, stage := range stages {
		for _, o := range stage {
			if i == 5 {
				if err := rewriteWebhooks(o, h, s); err != nil {
					return created, err
				}
			}
			err := e.create(ctx, o)
			if err != nil && !(i == 0 && apierrors.IsAlreadyExists(err)) {
				return created, err
			}
			if err == nil {
				created = append(created, o)
			}
		}
	}
	return created, nil
}

// createProbes creates the probes of one generation (see probes) and returns those it created.
func createProbes(ctx context.Context, e *env, h *hooks, generation int) ([]map[string]any, error) {
	var created []map[string]any
	for _, p := range probes(h, generation) {
		if err := e.create(ctx, p); err != nil {
			return created, fmt.Errorf("probe: %w", err)
		}
		created = append(created, p)
	}
	return created, nil
}

// rewriteWebhooks points every webhook of a configuration at the local server (or a closed endpoint).
func rewriteWebhooks(o map[string]any, h *hooks, s *Scenario) error {
	config, _ := o["metadata"].(map[string]any)["name"].(string)
	list, _ := o["webhooks"].([]any)
	for _, w := range list {
		wh, ok := w.(map[string]any)
		if !ok {
			continue
		}
		name, _ := wh["name"].(string)
		r, err := parseResponse(s.Webhooks[name])
		if err != nil {
			return fmt.Errorf("webhook %s: %w", name, err)
		}
		u, err := h.urlFor(config, name, r)
		if err != nil {
			return err
		}
		wh["clientConfig"] = map[string]any{"url": u, "caBundle": base64.StdEncoding.EncodeToString(h.caPEM)}
	}
	return nil
}

// probeName: a probe's name in one generation. Names are never reused, so a probe that acts is
// the one just created, not an earlier one whose deletion admission has not seen yet.
func probeName(base string, generation int) string {
	return fmt.Sprintf("%s-%d", base, generation)
}

func probes(h *hooks, generation int) []map[string]any {
	n := func(base string) string { return probeName(base, generation) }
	// Leases: a resource the scenarios do not target (only a scenario's wildcard rules meet the probes).
	rules := []any{map[string]any{"apiGroups": []any{"coordination.k8s.io"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"leases"}}}
	only := func(name string) []any {
		return []any{map[string]any{"name": "probe", "expression": fmt.Sprintf("object.metadata.name == '%s'", name)}}
	}
	webhook := func(kind, config, name, probe string) map[string]any {
		config, probe = n(config), n(probe)
		u, _ := h.urlFor(config, name, response{kind: "unavailable"})
		return map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": config},
			"webhooks": []any{map[string]any{
				"name": name, "rules": rules, "matchConditions": only(probe), "failurePolicy": "Fail", "sideEffects": "None",
				"admissionReviewVersions": []any{"v1"}, "timeoutSeconds": int64(2),
				"clientConfig": map[string]any{"url": u, "caBundle": base64.StdEncoding.EncodeToString(h.caPEM)},
			}},
		}
	}
	constraints := map[string]any{"resourceRules": rules}
	return []map[string]any{
		webhook("MutatingWebhookConfiguration", "oracle-probe-mutating", "probe.mutating.oracle", "oracle-probe-mwh"),
		webhook("ValidatingWebhookConfiguration", "oracle-probe-validating", "probe.validating.oracle", "oracle-probe-vwh"),
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": n("oracle-probe-vap")},
			"spec": map[string]any{"matchConstraints": constraints, "matchConditions": only(n("oracle-probe-vap")), "failurePolicy": "Fail",
				"validations": []any{map[string]any{"expression": "false", "message": n("oracle-probe-vap") + " denies"}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": n("oracle-probe-vap")},
			"spec": map[string]any{"policyName": n("oracle-probe-vap"), "validationActions": []any{"Deny"}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": n("oracle-probe-map")},
			"spec": map[string]any{"matchConstraints": constraints, "matchConditions": only(n("oracle-probe-map")), "failurePolicy": "Fail", "reinvocationPolicy": "Never",
				"mutations": []any{map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{
					"expression": `Object{metadata: Object.metadata{labels: {"oracle-probe": "seen"}}}`}}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": map[string]any{"name": n("oracle-probe-map")},
			"spec": map[string]any{"policyName": n("oracle-probe-map")}},
	}
}

// waitSynced polls each probe until it acts (informers deliver each type in order, so the
// scenario's objects of that type were seen before it); a probe that does not act within
// its time (a scenario webhook or policy may reject the probe Lease first) is noted.
func waitSynced(ctx context.Context, e *env, h *hooks, generation int) string {
	n := func(base string) string { return probeName(base, generation) }
	leases := e.client.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).Namespace("oracle-probe")
	try := func(name string) (*unstructured.Unstructured, error) {
		lease := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": name}}}
		return leases.Create(ctx, lease, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	checks := []struct {
		name string
		ok   func(*unstructured.Unstructured, error) bool
	}{
		{n("oracle-probe-mwh"), func(_ *unstructured.Unstructured, err error) bool {
			return err != nil && strings.Contains(err.Error(), "probe.mutating.oracle")
		}},
		{n("oracle-probe-vwh"), func(_ *unstructured.Unstructured, err error) bool {
			return err != nil && strings.Contains(err.Error(), "probe.validating.oracle")
		}},
		{n("oracle-probe-vap"), func(_ *unstructured.Unstructured, err error) bool {
			return err != nil && strings.Contains(err.Error(), n("oracle-probe-vap")+" denies")
		}},
		{n("oracle-probe-map"), func(o *unstructured.Unstructured, err error) bool {
			return err == nil && o.GetLabels()["oracle-probe"] == "seen"
		}},
	}
	missed := []string{}
	for _, c := range checks {
		deadline := time.Now().Add(4 * time.Second)
		for {
			o, err := try(c.name)
			if c.ok(o, err) {
				break
			}
			if time.Now().After(deadline) {
				missed = append(missed, fmt.Sprintf("%s (last answer: %v)", c.name, err))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(missed) > 0 {
		return "timeout: " + strings.Join(missed, ", ")
	}
	return "probes"
}

// listed: a resource listed for a snapshot, in a namespace ("": all, or cluster-scoped).
type listed struct {
	gvr       schema.GroupVersionResource
	namespace string
}

func policyResource(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource}
}

// takeSnapshot lists the resources as kubectl get -o json does (one List, managedFields hidden),
// leaving out the objects of except (by kind and name: the test's own).
func takeSnapshot(ctx context.Context, e *env, lists []listed, except []map[string]any) ([]byte, error) {
	skip := map[string]bool{}
	for _, o := range except {
		u := unstructured.Unstructured{Object: o}
		skip[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = true
	}
	items := []any{}
	for _, l := range lists {
		list, err := e.client.Resource(l.gvr).Namespace(l.namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range list.Items {
			if skip[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] {
				continue
			}
			unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
			items = append(items, o.Object)
		}
	}
	return json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}, "", "    ")
}
