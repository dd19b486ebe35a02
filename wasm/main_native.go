//go:build !(js && wasm)

package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// A native entry point for quick checks: go run . compile '<expr>' <context> ['<options>']
func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: wasm compile|evaluate|declarations EXPR CONTEXT [OPTIONS] [INPUTS]")
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
	fmt.Println(toJSONInfo())
}

func toJSONInfo() string { b, _ := json.Marshal(Info()); return string(b) }
