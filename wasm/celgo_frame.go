//go:build !k8s138

package main

import (
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// evalWithFrame runs exec on an ExecutionFrame for vars: cel-go up to v0.29 promotes the
// activation in place (AsFrame); v0.33 pools frames (EvalActivation, celgo_frame_138.go).
func evalWithFrame(vars interpreter.Activation, exec func(*interpreter.ExecutionFrame) ref.Val) ref.Val {
	return exec(interpreter.AsFrame(vars))
}
