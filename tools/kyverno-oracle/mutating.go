package main

// MutatingPolicy / NamespacedMutatingPolicy (policies.kyverno.io) through Kyverno v1.19's own CEL
// mutating engine, as `kyverno apply`/`kyverno test` run it (cmd/cli/kubectl-kyverno/processor,
// the MutatingPolicies branch): mpolengine.NewProvider (compile, exceptions none, autogen policies),
// mpolengine.NewEngine with the matcher, the Namespace resolver and the CLI's static type converter
// (mpolcompiler.NewStaticTypeConverterManager over kubectl-validate's built-in 1.32 schemas: what
// the CLI reads without a cluster; Kyverno's webhook reads the apiserver's /openapi/v3 instead),
// then Handle on the admission request. The answer carries each policy's rule response and the
// patched resource (none: nothing applied or changed).

import (
	"context"

	policiesv1beta1 "github.com/kyverno/api/api/policies.kyverno.io/v1beta1"
	"github.com/kyverno/kyverno/pkg/cel/libs"
	"github.com/kyverno/kyverno/pkg/cel/matching"
	mpolcompiler "github.com/kyverno/kyverno/pkg/cel/policies/mpol/compiler"
	mpolengine "github.com/kyverno/kyverno/pkg/cel/policies/mpol/engine"
	"sigs.k8s.io/kubectl-validate/pkg/openapiclient"
)

// typeConverters: built once (the schemas are parsed on first use and kept), as the CLI's openAPI() without CRD paths.
var typeConverters = mpolcompiler.NewStaticTypeConverterManager(openapiclient.NewComposite(openapiclient.NewHardcodedBuiltins("1.32")))

// mpolProviders: each policy compiled once (compiledOnce). The provider's own context is read only
// by MatchesMutateExisting (background mutate-existing), never on the Handle path; the request's
// cluster goes to the engine.
var mpolProviders = map[string]compiled[policiesv1beta1.MutatingPolicyLike, mpolengine.Provider]{}

func mutatingPolicy(policy policiesv1beta1.MutatingPolicyLike, raw string, req *request) answer {
	cluster := libs.NewFakeContextProvider()
	r, namespaces, err := celRequest(req, cluster)
	if err != nil {
		return answer{Error: err.Error()}
	}
	cached, err := compiledOnce(mpolProviders, raw, policy, func() (mpolengine.Provider, error) {
		return mpolengine.NewProvider(mpolcompiler.NewCompiler(), []policiesv1beta1.MutatingPolicyLike{policy}, nil, cluster)
	})
	if err != nil {
		return answer{Error: err.Error()}
	}
	policy = cached.policy
	eng := mpolengine.NewEngine(cached.provider, namespaces, matching.NewMatcher(), typeConverters, cluster)
	reps, err := eng.Handle(context.Background(), r, nil)
	if err != nil {
		return answer{Error: err.Error()}
	}
	var a answer
	for _, p := range reps.Policies {
		a.Results = append(a.Results, celResults(p.Policy.GetName(), p.Policy != policy, p.Rules)...)
	}
	if reps.PatchedResource != nil {
		a.Patched = reps.PatchedResource.Object
	}
	return a
}
