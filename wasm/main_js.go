//go:build js && wasm

package main

import (
	"encoding/json"
	"os"
	"runtime/debug"
	"syscall/js"
	_ "time/tzdata" // IANA zones for timestamp accessors; never read zoneinfo from a host fs
)

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ok": false, "message": "internal: " + err.Error()})
	}
	return string(b)
}

func str(args []js.Value, i int) string {
	if i < len(args) && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

func num(args []js.Value, i int) int {
	if i < len(args) && args[i].Type() == js.TypeNumber {
		return args[i].Int()
	}
	return 0
}

// guard turns a Go panic into an error result instead of killing the module.
func guard(f func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = toJSON(map[string]any{"ok": false, "stage": "runtime", "message": "internal error: " + toString(r), "issues": []any{}})
		}
	}()
	return f()
}

func toString(r any) string {
	if e, ok := r.(error); ok {
		return e.Error()
	}
	if s, ok := r.(string); ok {
		return s
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func main() {
	// The engine's live heap is small (a few MB) and allocation-heavy evaluation spends most
	// of its time in GC at the default GOGC=100: 400 evaluates ~2.5x faster (see README).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	api := js.Global().Get("Object").New()
	api.Set("compile", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return toJSON(Compile(str(a, 0), str(a, 1), str(a, 2))) })
	}))
	api.Set("evaluate", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return toJSON(Evaluate(str(a, 0), str(a, 1), str(a, 2), str(a, 3))) })
	}))
	api.Set("evaluateBatch", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return toJSON(EvaluateBatch(str(a, 0), str(a, 1))) })
	}))
	api.Set("setInputs", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return SetInputs(str(a, 0), str(a, 1)) })
	}))
	api.Set("dropInputs", js.FuncOf(func(_ js.Value, a []js.Value) any {
		DropInputs(str(a, 0))
		return ""
	}))
	api.Set("declarations", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return toJSON(Declarations(str(a, 0), str(a, 1))) })
	}))
	api.Set("typeAt", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return toJSON(TypeAt(str(a, 0), str(a, 1), str(a, 2), num(a, 3))) })
	}))
	api.Set("info", js.FuncOf(func(_ js.Value, a []js.Value) any {
		return guard(func() string { return toJSON(Info()) })
	}))
	js.Global().Set("__admissionWorkbenchCel", api)
	if cb := js.Global().Get("__admissionWorkbenchCelReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}
