//go:build k8s130 || k8s131

package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// 1.30 and 1.31: StrictCostEnforcementForVAP is beta and off by default (features/kube_features.go;
// validating/plugin.go compilePolicy reads the gate and uses the template without strict
// cost), and the compiler answers a Filter (cc.Compile).

func baseEnvSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), false)
}

func decls() plugincel.OptionalVariableDeclarations {
	return plugincel.OptionalVariableDeclarations{HasAuthorizer: true, StrictCost: false}
}

func compileCondition(base *environment.EnvSet, expr string, mode environment.Type) compiledCondition {
	cc := compilerFor(base)
	r := cc.CompileCELExpression(accessor(expr), decls(), mode)
	return compiledCondition{err: r.Error, forInput: cc.Compile([]plugincel.ExpressionAccessor{accessor(expr)}, decls(), mode).ForInput}
}

func versionedAttributes(attrs admission.Attributes, gvk schema.GroupVersionKind, obj runtimeObject) *admission.VersionedAttributes {
	return &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: obj}
}
