//go:build k8s138

package main

import "github.com/google/cel-go/cel"

// The engine generation on k8s.io/apiserver v0.38 (wasm/go.1.38.mod, cel.dev/cel-go v0.33): it
// answers 1.38 alone. Older targets are the v0.37 engine's (engine_137.go): cel-go v0.33's cost
// model, error texts and k8s.io/apimachinery v0.38's resource.Quantity differ from every older
// release's, so no runtime fix of fixes.go applies here (each is for a target before 1.38).
const (
	oldestMinor = 38
	binaryMinor = 38 // k8s.io/apiserver v0.38.x
)

// strictCostOff: never used at 1.38 (the fix is for 1.30–1.31); cel-go v0.33's tracker options
// are sealed (an unexported method), so the v0.37 engine's withoutEstimator has no equivalent.
var strictCostOff []cel.ProgramOption
