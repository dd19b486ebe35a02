//go:build !(js && wasm)

package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	_ "time/tzdata" // as main_js.go: IANA zones also where the host has no zoneinfo
)

// The native engine. `serve` answers the operations table (ops.go) over stdin/stdout for
// the CLI (src/cel/native.ts); the other modes are quick checks:
// go run . compile '<expr>' <context> ['<options>'].
func main() {
	if len(os.Args) == 2 && os.Args[1] == "serve" {
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(400) // as main_js.go
		}
		if err := serve(os.Stdin, os.Stdout); err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "cel-native:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: wasm serve | compile|evaluate|declarations EXPR CONTEXT [OPTIONS] [INPUTS]")
		os.Exit(2)
	}
	arg := func(i int) string {
		if i < len(os.Args) {
			return os.Args[i]
		}
		return ""
	}
	var out any
	switch os.Args[1] {
	case "compile":
		out = Compile(arg(2), arg(3), arg(4))
	case "evaluate":
		if msg := SetInputs("cli", arg(5)); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
			os.Exit(1)
		}
		out = Evaluate(arg(2), arg(3), arg(4), "cli")
	case "declarations":
		out = Declarations(arg(3), arg(4))
	case "typeAt":
		var off int
		fmt.Sscan(arg(5), &off)
		out = TypeAt(arg(2), arg(3), arg(4), off)
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(b))
	fmt.Println(toJSON(Info()))
}

// serve answers requests in order until its input ends. A request is the op's index and
// the byte length of its arguments (little-endian uint32 each), then the arguments as
// celCall reads them from the request buffer; an answer is its byte length (uint32) and
// its UTF-8 text, as celResponse gives it. Answers are flushed when no further request is
// already waiting, so a host that writes several requests at once gets their answers in
// one write.
func serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriterSize(out, 1<<16)
	var head [8]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return err
		}
		op := int(binary.LittleEndian.Uint32(head[:4]))
		size := int(binary.LittleEndian.Uint32(head[4:]))
		if cap(buf) < size || cap(buf) > 1<<20 && cap(buf) > 4*size {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		answer := callOp(op, buf)
		binary.LittleEndian.PutUint32(head[:4], uint32(len(answer)))
		if _, err := w.Write(head[:4]); err != nil {
			return err
		}
		if _, err := w.WriteString(answer); err != nil {
			return err
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}
