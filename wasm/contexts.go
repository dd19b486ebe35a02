// Package main is the CEL engine of Admission Workbench: cel-go and the
// k8s.io/apiserver CEL environment and libraries (pinned in go.mod to the
// Kubernetes 1.37 release), compiled to WebAssembly.
//
// Everything that decides a result goes through the apiserver's own code:
//   - the base environment is environment.MustBaseEnvSet(DefaultCompatibilityVersion()),
//     exactly as the validating/mutating policy plugins and the webhook dispatcher build it;
//   - compilation is plugincel.Compiler.CompileCELExpression (webhooks) or a
//     plugincel.CompositedCompiler (policies, which declares `variables`), called with
//     the same OptionalVariableDeclarations as the plugins and with expression accessors
//     whose result types are those of the apiserver's (matchconditions.MatchCondition
//     itself; copies of validating.* and patch.* in accessors.go, checked by a test);
//   - evaluation is ConditionEvaluator.ForInput / MutatingEvaluator.ForInput, i.e. the
//     apiserver builds the activation (request via the unstructured converter,
//     namespaceObject, lazy variables, authorizer values) and charges the cost budget.
//
// The only code here that mirrors rather than calls apiserver code is envFor (used for
// the static cost estimate, the type under the cursor and the declarations listing):
// it re-assembles the same EnvOptions as plugincel's createEnvForOpts, which is
// unexported.
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
)

// ---------------------------------------------------------------------------
// Contexts

type contextSpec struct {
	// policy: compiled with a CompositedCompiler (declares `variables`); false for webhooks.
	policy bool
	// authorizer: HasAuthorizer at compile time.
	authorizer bool
	// bindAuthorizer: whether the apiserver binds the authorizer when evaluating.
	bindAuthorizer bool
	// patchTypes: HasPatchTypes (MAP mutations).
	patchTypes bool
	// matcher: evaluated by matchconditions.Matcher (namespaceObject is not bound, smaller budget).
	matcher bool
	// params: params can be declared (policy with paramKind).
	params   bool
	accessor func(expr string) plugincel.ExpressionAccessor
}

var contexts = map[string]contextSpec{
	// webhook/accessors.go GetCompiledMatcher: HasParams false, HasAuthorizer true; no composition.
	"webhook-matchCondition": {policy: false, authorizer: true, bindAuthorizer: true, matcher: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &matchconditions.MatchCondition{Expression: e} }},
	// validating/plugin.go compilePolicy: optionalVars = {HasParams, HasAuthorizer: true}
	"vap-matchCondition": {policy: true, authorizer: true, bindAuthorizer: true, matcher: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &matchconditions.MatchCondition{Expression: e} }},
	"vap-validation": {policy: true, authorizer: true, bindAuthorizer: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &validationCondition{Expression: e} }},
	// expressionOptionalVars = {HasParams, HasAuthorizer: false}; bound without authorizer.
	"vap-messageExpression": {policy: true, authorizer: false, bindAuthorizer: false, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &messageExpressionCondition{MessageExpression: e}
		}},
	// compiled with the authorizer declared, evaluated with OptionalVariableBindings{VersionedParams} only.
	"vap-auditAnnotation": {policy: true, authorizer: true, bindAuthorizer: false, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &auditAnnotationCondition{ValueExpression: e}
		}},
	"vap-variable": {policy: true, authorizer: true, bindAuthorizer: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &variableExpression{Name: "__workbench__", Expression: e}
		}},
	// mutating/compilation.go compilePolicy: opts = {HasParams, HasAuthorizer: true}
	"map-matchCondition": {policy: true, authorizer: true, bindAuthorizer: true, matcher: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &matchconditions.MatchCondition{Expression: e} }},
	// patchOptions = opts + HasPatchTypes
	"map-applyConfiguration": {policy: true, authorizer: true, bindAuthorizer: true, patchTypes: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor {
			return &applyConfigurationCondition{Expression: e}
		}},
	"map-jsonPatch": {policy: true, authorizer: true, bindAuthorizer: true, patchTypes: true, params: true,
		accessor: func(e string) plugincel.ExpressionAccessor { return &jsonPatchCondition{Expression: e} }},
}

// ---------------------------------------------------------------------------
// Options

type variableDef struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

type compileOptions struct {
	HasParams bool          `json:"hasParams"`
	Variables []variableDef `json:"variables"`
	// VariableName: in vap-variable, the variable being compiled; only the variables
	// before it are declared (CompileAndStoreVariables compiles them in order).
	VariableName string `json:"variableName"`
	// KubernetesVersion: the target release, "1.30" … "1.37" ("" = 1.37); see versions.go.
	KubernetesVersion string `json:"kubernetesVersion"`
	// Stateless: at write time, compile a policy expression with the stateless compiler
	// (plugincel.NewCompiler, no `variables` declared) as validation.go's createCompiler(false)
	// does for matchConditions and for a ValidatingAdmissionPolicy without spec.variables.
	// Evaluation ignores it: the admission plugins always compose.
	Stateless bool `json:"stateless"`
	// Stored: compile as the apiserver compiles an expression already in etcd
	// (environment.StoredExpressions: the admission plugins, and validation of an update
	// that keeps the expression), e.g. the new release's view of a policy after an upgrade.
	// Variables are compiled the same way; Stateless does not apply (the plugins compose).
	Stored bool `json:"stored"`
	// Trace: evaluation also returns every sub-expression's value (trace.go). Not part of
	// the compiled program's cache key.
	Trace bool `json:"trace"`
}

func parseOptions(s string) (compileOptions, error) {
	var o compileOptions
	if strings.TrimSpace(s) == "" {
		return o, nil
	}
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		return o, fmt.Errorf("invalid options: %w", err)
	}
	if _, err := targetMinor(o.KubernetesVersion); err != nil {
		return o, err
	}
	return o, nil
}

// visibleVariables returns the variables declared for an expression of the given context.
func visibleVariables(ctxName string, o compileOptions) []variableDef {
	if ctxName == "vap-variable" && o.VariableName != "" {
		for i, v := range o.Variables {
			if v.Name == o.VariableName {
				return o.Variables[:i]
			}
		}
	}
	return o.Variables
}
