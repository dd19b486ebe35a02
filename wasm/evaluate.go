package main

import (
	"encoding/json"
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
	OK         bool        `json:"ok"`
	Value      any         `json:"value,omitempty"`
	Type       string      `json:"type,omitempty"`
	StaticType string      `json:"staticType,omitempty"`
	Display    string      `json:"display,omitempty"`
	Cost       *int64      `json:"cost,omitempty"`
	Stage      string      `json:"stage,omitempty"`
	Kind       string      `json:"kind,omitempty"`  // outcomes.go
	Limit      string      `json:"limit,omitempty"` // for kind cost-exceeded
	Message    string      `json:"message,omitempty"`
	Issues     []issue     `json:"issues,omitempty"`
	Trace      []traceNode `json:"trace,omitempty"` // option trace (trace.go)
}

// compositionOverride lets test inputs give variable values directly: it wraps the
// apiserver's CompositionContext and replaces the lazy callbacks of the given names.
// It also records the cost of lazily computed variables for the expression being evaluated.
type compositionOverride struct {
	plugincel.CompositionContext
	values map[string]ref.Val
	sink   *costSink
}

func (c compositionOverride) Variables(activation any) ref.Val {
	v := c.CompositionContext.Variables(activation)
	if lm, ok := v.(*lazy.MapValue); ok && len(c.values) > 0 {
		for name, val := range c.values {
			val := val
			lm.Append(name, func(*lazy.MapValue) ref.Val { return val })
		}
	}
	return v
}

func (c compositionOverride) GetAndResetCost() int64 {
	cost := c.CompositionContext.GetAndResetCost()
	if c.sink != nil && c.sink.cur != nil {
		*c.sink.cur += cost
	}
	return cost
}

// Evaluate evaluates an expression against stored inputs (inputsID) the way admission does
// (the target's stored-expressions environment, the apiserver's activation and budgets).
// It is a batch of one item (batch.go).
//
// There is no Go-side deadline: cel-go reads ctx.Done() once per evaluation and in js/wasm
// no timer can fire while the evaluation runs synchronously. The per-call cost limit and
// the per-policy budget bound the work; the worker's wall-clock deadline
// (src/cel/browser.ts) is a safety net.
func Evaluate(expr, ctxName, optsJSON, inputsID string) evalResult {
	return evaluateItems(inputCache[inputsID], inputsID, entriesOf([]batchItem{{Expression: expr, Context: ctxName, Options: json.RawMessage(optsJSON)}}))[0]
}

// bindingsFor is what the apiserver binds for an expression of this context.
func bindingsFor(c *compiled, in *inputs) plugincel.OptionalVariableBindings {
	bindings := plugincel.OptionalVariableBindings{}
	if c.spec.params && c.opts.HasParams {
		bindings.VersionedParams = in.params
	}
	if c.spec.bindAuthorizer {
		if in.authz != nil {
			bindings.Authorizer = in.authz
		} else {
			bindings.Authorizer = &ruleAuthorizer{}
		}
	}
	return bindings
}

type namespaceMode int

const (
	noNamespace      namespaceMode = iota // matchconditions.Matcher passes no namespace
	rawNamespace                          // validator.go (audit annotations) and the MAP dispatcher pass it as is
	createdNamespace                      // validations, message expressions: CreateNamespaceObject(namespace)
)

func namespaceModeOf(c *compiled, ctxName string) namespaceMode {
	switch {
	case c.spec.matcher:
		return noNamespace
	case ctxName == "vap-auditAnnotation" || c.spec.patchTypes:
		return rawNamespace
	}
	return createdNamespace
}

func namespaceFor(mode namespaceMode, in *inputs) *corev1.Namespace {
	switch mode {
	case rawNamespace:
		return in.namespace
	case createdNamespace:
		if in.createdNS == nil {
			in.createdNS = plugincel.CreateNamespaceObject(in.namespace)
		}
		return in.createdNS
	}
	return nil
}

func budgetFor(c *compiled) int64 {
	if c.spec.matcher {
		return celconfig.RuntimeCELCostBudgetMatchConditions
	}
	return celconfig.RuntimeCELCostBudget
}

// mutating: evaluated by a MutatingEvaluator (one expression, any result type).
func mutating(c *compiled, ctxName string) bool {
	return c.spec.patchTypes || ctxName == "vap-variable"
}

// resultOf turns one evaluation into the result shape, with the MAP post-evaluation checks.
func resultOf(c *compiled, ctxName string, evalRes plugincel.EvaluationResult, cost int64) evalResult {
	if evalRes.Error != nil {
		return runtimeFailure(evalRes.Error, &cost)
	}
	v := evalRes.EvalResult
	if ctxName == "map-applyConfiguration" {
		// patch/smd.go applyConfigPatcher: the post-evaluation type-name check.
		if objVal, ok := v.(*dynamic.ObjectVal); ok {
			if err := objVal.CheckTypeNamesMatchFieldPathNames(); err != nil {
				return evalResult{Stage: "runtime", Kind: kindRuntime, Message: fmt.Sprintf("type mismatch: %v", err), Cost: &cost}
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
							return evalResult{Stage: "runtime", Kind: kindRuntime, Message: fmt.Sprintf("type mismatch: %v", err), Cost: &cost}
						}
					}
				}
			}
		}
	}
	res := evalResult{OK: true, Value: valToJSON(v), Type: releaseTypeName(typeName(v), c.minor), Display: display(v), Cost: &cost}
	if c.result.OutputType != nil {
		res.StaticType = c.result.OutputType.String()
	}
	return res
}
