//go:build k8s132 || k8s133

package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// 1.32–1.35: StrictCostEnforcementForVAP on (GA and locked from 1.32), MustBaseEnvSet still
// takes the strict-cost flag, and the compiler answers a ConditionEvaluator.

func baseEnvSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), true)
}

func decls() plugincel.OptionalVariableDeclarations {
	return plugincel.OptionalVariableDeclarations{HasAuthorizer: true, StrictCost: true}
}

func compileCondition(base *environment.EnvSet, expr string, mode environment.Type) compiledCondition {
	cc := compilerFor(base)
	r := cc.CompileCELExpression(accessor(expr), decls(), mode)
	return compiledCondition{err: r.Error, forInput: cc.CompileCondition([]plugincel.ExpressionAccessor{accessor(expr)}, decls(), mode).ForInput}
}

func versionedAttributes(attrs admission.Attributes, gvk schema.GroupVersionKind, obj runtimeObject) *admission.VersionedAttributes {
	return &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: obj}
}
