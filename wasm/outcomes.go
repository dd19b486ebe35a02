package main

import (
	"errors"
	"strings"

	apiservercel "k8s.io/apiserver/pkg/cel"
)

// The kinds of a failed compile or evaluation (CelErrorKind in src/cel/types.ts): the page
// reads these, never the message, which stays the apiserver's words.
const (
	kindCompile      = "compile"       // the expression does not compile (compileResult, or stage "compile")
	kindRuntime      = "runtime"       // evaluation failed
	kindCostExceeded = "cost-exceeded" // a cost limit stopped it; limit says which
	kindInputs       = "inputs"        // the test inputs cannot be used
	kindEngine       = "engine"        // the engine itself failed (a panic, a malformed request)

	limitPerExpression = "per-expression" // cel-go's per-call limit (PerCallLimit)
	limitBudget        = "budget"         // the runtime budget of a policy or of match conditions
)

// costLimitExceeded is cel-go's error for an evaluation past the per-call cost limit
// (interpreter/runtimecost.go panics with EvalCancelledError{Cause: CostLimitExceeded}; the
// program recovers it into an error). plugincel's activation.go puts that error into the
// detail with %v and keeps nothing else of it, so its text is what is left: matched here and
// only here (outcomes_test.go runs a runaway and fails if cel-go words it differently).
const costLimitExceeded = "operation cancelled: actual cost limit exceeded"

// runtimeFailure is an evaluation's error as a result: the apiserver's message with its kind.
// The runtime budget is apiserver's cel.ErrOutOfBudget (activation.go wraps it as the Cause).
func runtimeFailure(err error, cost *int64) evalResult {
	r := evalResult{Stage: "runtime", Kind: kindRuntime, Message: err.Error(), Cost: cost}
	switch {
	case errors.Is(err, apiservercel.ErrOutOfBudget):
		r.Kind, r.Limit = kindCostExceeded, limitBudget
	case strings.HasSuffix(r.Message, costLimitExceeded):
		r.Kind, r.Limit = kindCostExceeded, limitPerExpression
	}
	return r
}
