//go:build js && wasm

// The host calls the engine through WebAssembly exports (go:wasmexport), not syscall/js.
// A js.FuncOf call resumes the Go scheduler for an event and wraps every argument and the
// result in a js.Value with a finalizer: in a CPU profile of one evaluate() at a time, that
// was about a third of all time. Here the host writes the arguments into the request buffer
// (celBuffer), each as a little-endian uint32 byte length and then its UTF-8 bytes, calls
// celCall(op, size) and reads the answer (UTF-8, JSON except for setInputs and dropInputs)
// from the response buffer (celResponse). src/cel/raw.ts is the other side; the ops are
// ops.go's table.
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"syscall/js"
	"unsafe"

	_ "time/tzdata" // IANA zones for timestamp accessors; never read zoneinfo from a host fs
)

var (
	request  []byte
	response []byte
)

// celBuffer makes the request buffer at least size bytes and returns its address. Go's
// heap does not move, and the variable keeps the buffer alive until the next celBuffer.
// A buffer far larger than needed (after a big setInputs) is given back.
//
//go:wasmexport celBuffer
func celBuffer(size int32) uint32 {
	if c := cap(request); c < int(size) || c > 1<<20 && c > 4*int(size) {
		request = make([]byte, size)
	}
	request = request[:size]
	return address(request)
}

// celCall runs op on the arguments in the first size bytes of the request buffer and
// returns the answer's length in bytes (read it at celResponse()).
//
//go:wasmexport celCall
func celCall(op, size int32) int32 {
	response = []byte(callOp(int(op), request[:min(int(size), len(request))]))
	// An export runs without returning to the scheduler, so the garbage collector's
	// background workers would not run between calls: without this, 20,000 allocating calls
	// in a test program finished 28 GC cycles instead of 192 and grew memory from 37 to 271 MB.
	runtime.Gosched()
	return int32(len(response))
}

// celResponse returns the address of the last answer.
//
//go:wasmexport celResponse
func celResponse() uint32 { return address(response) }

func address(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

func main() {
	// The engine's live heap is small (a few MB) and allocation-heavy evaluation spends most
	// of its time in GC at the default GOGC=100: 400 evaluates ~2.5x faster (see README).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	warmUp()
	// Package initialisers have run: tell the host the exports can be called.
	if cb := js.Global().Get("__admissionWorkbenchCelReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

// warmUp does once what a session's first calls would do lazily: the default env set
// (MustBaseEnvSet, read by Info) and a first compile, which builds the policy compilers'
// shared environment (in Node about 0.1 s and 0.3 s; later contexts and options then take
// milliseconds). The build snapshots the engine after this (scripts/wasm-snapshot.mjs), so
// the served cel.wasm has already done it. It stops there: each further warmed cache adds
// its heap, garbage included, to the download. Measured with the initialisers' code still in
// (wasm/README.md): cel.wasm was 3.87 MB brotli snapshotted without a warm-up, 4.05 with
// this one, 4.44 with every context, both params modes, an evaluation and declarations warmed.
func warmUp() {
	Info()
	Compile("true", "vap-validation", "")
	runtime.GC()
}
