package main

// The action Kyverno's validating webhook takes when a legacy policy's validate rule fails on a
// request: Enforce (the request is denied) or Audit (reported only), per rule. The webhook
// (pkg/webhooks/resource/handlers.go Validate, validation.go) takes the policies of the
// ValidateEnforce kind from the policy cache for the request's resource and Namespace
// (pkg/policycache GetPolicies: the policy reduced to the rules enforced in that Namespace,
// checkValidationFailureActionOverrides), runs them and blocks when a failed rule resolves to
// Enforce (pkg/utils/engine BlockRequest → EngineResponse.HasEnforcedFailure, which reads the
// overrides again on the resource's namespace and the Namespace's labels); the other rules run in
// the audit pass, which never blocks. Both are Kyverno's own code here: a policy cache holding the
// policy alone (its discovery answering the request's resource for every kind selector that names
// it) and an engine response with the rule failed.

import (
	"fmt"

	kyvernov1 "github.com/kyverno/kyverno/api/kyverno/v1"
	"github.com/kyverno/kyverno/ext/wildcard"
	"github.com/kyverno/kyverno/pkg/autogen"
	"github.com/kyverno/kyverno/pkg/clients/dclient"
	engineapi "github.com/kyverno/kyverno/pkg/engine/api"
	"github.com/kyverno/kyverno/pkg/policycache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// requestResource is the policy cache's discovery for one request: the request's resource for a
// kind selector that names its kind (dclient's matching: "*" any group or version, wildcards in the kind).
type requestResource struct {
	gvr         schema.GroupVersionResource
	kind        string
	subresource string
}

func (r requestResource) FindResources(group, version, kind, subresource string) (map[dclient.TopLevelApiDescription]metav1.APIResource, error) {
	out := map[dclient.TopLevelApiDescription]metav1.APIResource{}
	if (group != "*" && group != r.gvr.Group) || (version != "*" && version != "" && version != r.gvr.Version) || !wildcard.Match(kind, r.kind) {
		return out, nil
	}
	if subresource != r.subresource && !(subresource == "*" && r.subresource != "") {
		return out, nil
	}
	gv := schema.GroupVersion{Group: r.gvr.Group, Version: r.gvr.Version}
	out[dclient.TopLevelApiDescription{GroupVersion: gv, Kind: r.kind, Resource: r.gvr.Resource, SubResource: r.subresource}] = metav1.APIResource{
		Name: r.gvr.Resource, Kind: r.kind, Group: r.gvr.Group, Version: r.gvr.Version,
	}
	return out, nil
}

// enforcedCache: the enforced rules per policy and request shape (the differential asks the same
// shape many times); the policy is kept with them, so its address is not reused while it keys them.
var enforcedCache = map[string]enforcedEntry{}

type enforcedEntry struct {
	policy kyvernov1.PolicyInterface
	rules  map[string]bool
}

// enforcedRules: the names of the rules (autogen ones included) whose failure on this request
// Kyverno's webhook denies. `resource` is the request's object (a DELETE's old object).
func enforcedRules(policy kyvernov1.PolicyInterface, resource unstructured.Unstructured, plural, subresource string, namespaceLabels map[string]string) (map[string]bool, error) {
	gvk := resource.GroupVersionKind()
	if plural == "" {
		guessed, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Kind: gvk.Kind})
		plural = guessed.Resource
	}
	key := fmt.Sprintf("%p|%v|%s|%s|%s|%v", policy, gvk, plural, subresource, resource.GetNamespace(), namespaceLabels)
	if e, ok := enforcedCache[key]; ok {
		return e.rules, nil
	}
	gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: plural}
	cache := policycache.NewCache()
	name := policy.GetName()
	if policy.GetNamespace() != "" {
		name = policy.GetNamespace() + "/" + name
	}
	if err := cache.Set(name, policy, requestResource{gvr: gvr, kind: gvk.Kind, subresource: subresource}); err != nil {
		return nil, err
	}
	// the webhook's Namespace: the request's, from the lister (none for a cluster-scoped request)
	var namespace *corev1.Namespace
	if ns := resource.GetNamespace(); ns != "" {
		namespace = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: namespaceLabels}}
	}
	enforced := map[string]bool{}
	for _, p := range cache.GetPolicies(policycache.ValidateEnforce, gvr, subresource, namespace) {
		er := engineapi.NewEngineResponse(resource, engineapi.NewKyvernoPolicy(p), namespaceLabels)
		for _, rule := range autogen.Default.ComputeRules(p, gvk.Kind) {
			if !rule.HasValidate() {
				continue
			}
			er.PolicyResponse.Rules = []engineapi.RuleResponse{*engineapi.RuleFail(rule.Name, engineapi.Validation, "", nil)}
			if er.HasEnforcedFailure() {
				enforced[rule.Name] = true
			}
		}
	}
	if len(enforcedCache) >= 4096 {
		clear(enforcedCache)
	}
	enforcedCache[key] = enforcedEntry{policy, enforced}
	return enforced, nil
}
