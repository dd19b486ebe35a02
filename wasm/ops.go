package main

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
)

// The engine's operations, in the order of src/cel/ops.ts's OP_INDEX: each reads its
// arguments as strings (encoded as decodeArgs reads them) and answers text (JSON except for
// setInputs and dropInputs, and the batches' answers: answers.go). Both hosts call only callOp: the WebAssembly exports
// (main_js.go) and the native server (main_native.go), so both builds answer the same.
var ops = [...]func(a []string) string{
	func(a []string) string { return toJSON(Compile(a[0], a[1], a[2])) },
	func(a []string) string { return toJSON(Evaluate(a[0], a[1], a[2], a[3])) },
	func(a []string) string { return batchAnswer(EvaluateBatch(a[0], a[1])) },
	func(a []string) string { return SetInputs(a[0], a[1]) },
	func(a []string) string { DropInputs(a[0]); return "" },
	func(a []string) string { return toJSON(Declarations(a[0], a[1])) },
	func(a []string) string { off, _ := strconv.Atoi(a[3]); return toJSON(TypeAt(a[0], a[1], a[2], off)) },
	func(a []string) string { return toJSON(Info()) },
	func(a []string) string { return toJSON(SetSchemas(a[0], a[1])) },
	func(a []string) string { return toJSON(TypeCheck(a[0], a[1])) },
	func(a []string) string { return batchAnswer(EvaluateBatchOnce(a[0], a[1])) },
	func(a []string) string { return toJSON(Reads(a[0], a[1], a[2])) },
}

// opArgs: how many arguments each op reads (missing ones are "").
var opArgs = [len(ops)]int{3, 4, 2, 2, 1, 2, 4, 0, 2, 2, 2, 3}

// decodeArgs reads n length-prefixed strings; a truncated buffer gives "" for the rest.
func decodeArgs(b []byte, n int) []string {
	args := make([]string, n)
	for i := range args {
		if len(b) < 4 {
			break
		}
		l := int(binary.LittleEndian.Uint32(b))
		b = b[4:]
		if l > len(b) {
			break
		}
		args[i] = string(b[:l])
		b = b[l:]
	}
	return args
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ok": false, "message": "internal: " + err.Error()})
	}
	return string(b)
}

// guard turns a Go panic into an error result instead of killing the module.
func guard(f func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = toJSON(map[string]any{"ok": false, "stage": "runtime", "kind": kindEngine, "message": "internal error: " + toString(r), "issues": []any{}})
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

// callOp runs op on its encoded arguments: each a little-endian uint32 byte length and
// then its UTF-8 bytes. A panic or an unknown op is an answer of kind engine.
func callOp(op int, b []byte) string {
	return guard(func() string {
		if op < 0 || op >= len(ops) {
			return toJSON(map[string]any{"ok": false, "stage": "runtime", "kind": kindEngine, "message": "internal error: unknown op " + strconv.Itoa(op)})
		}
		return ops[op](decodeArgs(b, opArgs[op]))
	})
}
