//go:build !k8s138

package main

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
)

// The engine generation on k8s.io/apiserver v0.37 (wasm/go.mod): it answers 1.30–1.37,
// emulating the older releases (versions.go, fixes.go).
const (
	oldestMinor = 30
	binaryMinor = 37 // k8s.io/apiserver v0.37.x
)

// strictCostOff: the program option of the strict-cost-admission fix (1.30–1.31).
var strictCostOff = []cel.ProgramOption{cel.CostTrackerOptions(withoutEstimator)}

// withoutEstimator: a cost tracker that charges as cel-go does without an ActualCostEstimator.
func withoutEstimator(t *interpreter.CostTracker) error {
	t.Estimator = nil
	return nil
}
