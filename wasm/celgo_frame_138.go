//go:build k8s138

package main

import (
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// evalWithFrame: cel-go v0.33 (the 1.38 engine) takes a frame from its pool and returns it
// after exec (interpreter.EvalActivation); AsFrame is gone. The import path is rewritten to
// cel.dev/cel-go by the 1.38 build (scripts/engine-builds.mjs).
func evalWithFrame(vars interpreter.Activation, exec func(*interpreter.ExecutionFrame) ref.Val) ref.Val {
	return interpreter.EvalActivation(vars, exec)
}
