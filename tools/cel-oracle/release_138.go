//go:build k8s138

package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// 1.38 (-tags k8s138 -modfile go.1.38.mod): as 1.37; cel-go is cel.dev/cel-go (celgo_138.go).

func baseEnvSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
}

func decls() plugincel.OptionalVariableDeclarations {
	return plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
}

func compileCondition(base *environment.EnvSet, expr string, mode environment.Type) compiledCondition {
	cc := compilerFor(base)
	r := cc.CompileCELExpression(accessor(expr), decls(), mode)
	return compiledCondition{err: r.Error, forInput: cc.CompileCondition([]plugincel.ExpressionAccessor{accessor(expr)}, decls(), mode).ForInput}
}

func versionedAttributes(attrs admission.Attributes, gvk schema.GroupVersionKind, obj runtimeObject) *admission.VersionedAttributes {
	return &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(obj)}
}
