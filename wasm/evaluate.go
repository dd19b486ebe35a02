package main

import (
	"context"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	corev1 "k8s.io/api/core/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/lazy"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
)

// ---------------------------------------------------------------------------
// evaluate()

type evalResult struct {
	OK         bool    `json:"ok"`
	Value      any     `json:"value,omitempty"`
	Type       string  `json:"type,omitempty"`
	StaticType string  `json:"staticType,omitempty"`
	Display    string  `json:"display,omitempty"`
	Cost       *int64  `json:"cost,omitempty"`
	Stage      string  `json:"stage,omitempty"`
	Message    string  `json:"message,omitempty"`
	Issues     []issue `json:"issues,omitempty"`
}

// compositionOverride lets test inputs give variable values directly: it wraps the
// apiserver's CompositionContext and replaces the lazy callbacks of the given names.
type compositionOverride struct {
	plugincel.CompositionContext
	values map[string]ref.Val
}

func (c compositionOverride) Variables(activation any) ref.Val {
	v := c.CompositionContext.Variables(activation)
	if lm, ok := v.(*lazy.MapValue); ok {
		for name, val := range c.values {
			val := val
			lm.Append(name, func(*lazy.MapValue) ref.Val { return val })
		}
	}
	return v
}

// Evaluate evaluates an expression against stored inputs (inputsID) the way admission does
// (environment.StoredExpressions, the apiserver's activation and budgets).
//
// There is no Go-side deadline: cel-go reads ctx.Done() once per evaluation and in js/wasm
// no timer can fire while the evaluation runs synchronously. The per-call cost limit and
// the worker's wall-clock deadline (src/cel/browser.ts) bound the time instead.
func Evaluate(expr, ctxName, optsJSON, inputsID string) evalResult {
	o, err := parseOptions(optsJSON)
	if err != nil {
		return evalResult{Stage: "compile", Message: err.Error()}
	}
	in, ok := inputCache[inputsID]
	if !ok {
		return evalResult{Stage: "runtime", Message: fmt.Sprintf("unknown inputs id %q", inputsID)}
	}
	c, err := cachedCompile(expr, ctxName, o, runStage)
	if err != nil {
		return evalResult{Stage: "compile", Message: err.Error()}
	}
	if c.result.Error != nil {
		return evalResult{Stage: "compile", Message: c.result.Error.Detail, Issues: issuesOf(c.result.Error)}
	}
	ctx := context.Background()
	bindings := plugincel.OptionalVariableBindings{}
	if c.spec.params && o.HasParams {
		bindings.VersionedParams = in.params
	}
	if c.spec.bindAuthorizer {
		if in.authz != nil {
			bindings.Authorizer = in.authz
		} else {
			bindings.Authorizer = &ruleAuthorizer{}
		}
	}
	var ns *corev1.Namespace
	switch {
	case c.spec.matcher:
		// matchconditions.Matcher passes no namespace.
	case ctxName == "vap-auditAnnotation" || c.spec.patchTypes:
		// validator.go (audit annotations) and the MAP dispatcher pass the namespace as is.
		ns = in.namespace
	default:
		// validator.go: validations and message expressions get CreateNamespaceObject(namespace).
		ns = plugincel.CreateNamespaceObject(in.namespace)
	}
	budget := int64(celconfig.RuntimeCELCostBudget)
	if c.spec.matcher {
		budget = celconfig.RuntimeCELCostBudgetMatchConditions
	}
	var evalRes plugincel.EvaluationResult
	var remaining int64
	if c.policy != nil {
		cctx := c.policy.cc.CreateContext(ctx)
		if len(in.variables) > 0 {
			ctx = compositionOverride{CompositionContext: cctx, values: in.variables}
		} else {
			ctx = cctx
		}
	}
	if c.spec.patchTypes || ctxName == "vap-variable" {
		ev := plugincel.NewMutatingEvaluator(c.result)
		evalRes, remaining, err = ev.ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
	} else {
		cond := plugincel.NewCondition([]plugincel.CompilationResult{c.result})
		var results []plugincel.EvaluationResult
		results, remaining, err = cond.ForInput(ctx, in.attrs, in.request, bindings, ns, budget)
		if err == nil && len(results) == 1 {
			evalRes = results[0]
		}
	}
	if err != nil {
		return evalResult{Stage: "runtime", Message: err.Error()}
	}
	cost := budget - remaining
	if evalRes.Error != nil {
		return evalResult{Stage: "runtime", Message: evalRes.Error.Error(), Cost: &cost}
	}
	v := evalRes.EvalResult
	if ctxName == "map-applyConfiguration" {
		// patch/smd.go applyConfigPatcher: the post-evaluation type-name check.
		if objVal, ok := v.(*dynamic.ObjectVal); ok {
			if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
				return evalResult{Stage: "runtime", Message: fmt.Sprintf("type mismatch: %v", err), Cost: &cost}
			}
		}
	}
	if ctxName == "map-jsonPatch" {
		// patch/json_patch.go evaluatePatchExpression: Object{} values are type-name checked.
		if l, ok := v.(traits.Lister); ok {
			for it := l.Iterator(); it.HasNext() == types.True; {
				if op, ok := it.Next().(*mutation.JSONPatchVal); ok && op.Val != nil {
					if objVal, ok := op.Val.(*dynamic.ObjectVal); ok {
						if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
							return evalResult{Stage: "runtime", Message: fmt.Sprintf("type mismatch: %v", err), Cost: &cost}
						}
					}
				}
			}
		}
	}
	res := evalResult{OK: true, Value: valToJSON(v), Type: typeName(v), Display: display(v), Cost: &cost}
	if c.result.OutputType != nil {
		res.StaticType = c.result.OutputType.String()
	}
	return res
}
