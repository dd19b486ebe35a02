//go:build js && wasm

// The smallest Go WebAssembly program that registers a JS callback and signals readiness
// as the CEL engine does: npm run bench measures its start beside the engine's (the floor
// of any Go engine's start: Go runtime init and wasm_exec.js).
package main

import "syscall/js"

func main() {
	js.Global().Set("__goMinReady", true)
	if cb := js.Global().Get("__admissionWorkbenchCelReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}
